// graphql-js (Debian's node-graphql) as a client of a live PayQL:
//  1. buildClientSchema on the live introspection result, printed, equals /schema.graphql printed
//     (both sorted with lexicographicSortSchema: introspection does not promise an order);
//  2. an Apollo-style automatic persisted query round trip on a payments query, sent the way
//     Apollo Client's persisted-queries link sends it with useGETForHashedQueries: hash-only GET →
//     PERSISTED_QUERY_NOT_FOUND → POST with the query and the hash → the next hash-only GET is served.
// Usage: node graphql_js.js PAYQL_URL SECRET_KEY   (started by run.sh). Prints `N passed, N failed`.
'use strict';
const crypto = require('crypto');
const graphql = require('/usr/share/nodejs/graphql');
const { buildClientSchema, buildSchema, getIntrospectionQuery, printSchema, lexicographicSortSchema } = graphql;

const [url, key] = process.argv.slice(2);
const auth = { authorization: 'Bearer ' + key };
let passed = 0, failed = 0;

async function check(name, body) {
  try {
    await body();
    passed++;
    console.log('  ok    ' + name);
  } catch (error) {
    failed++;
    console.log('  FAIL  ' + name + ': ' + (error && error.stack || error));
  }
}

function expect(condition, message) {
  if (!condition) throw new Error(message);
}

async function post(body, headers = {}) {
  const response = await fetch(url + '/graphql', {
    method: 'POST', body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', ...auth, ...headers },
  });
  return { status: response.status, json: await response.json() };
}

// The spec's built-in directives that graphql-js 16.6 (Debian bookworm) predates: `@oneOf` is built in
// since the September 2025 edition (graphql-js 16.9 omits it from printSchema as a specified directive;
// 16.6 does not know it and prints its definition). Only such a definition is taken out, nothing else.
const newerBuiltIns = ['oneOf'].filter((name) => !graphql.specifiedDirectives.some((directive) => directive.name === name));

function canonical(schema) {
  const config = schema.toConfig();
  config.directives = config.directives.filter((directive) => !newerBuiltIns.includes(directive.name));
  return printSchema(lexicographicSortSchema(new graphql.GraphQLSchema(config)));
}

(async () => {
  await check('graphql-js buildClientSchema(introspection) prints as /schema.graphql', async () => {
    const answer = await post({ query: getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true,
                                                               schemaDescription: true, inputValueDeprecation: true }) });
    expect(answer.status === 200 && !answer.json.errors, 'introspection failed: ' + JSON.stringify(answer.json.errors));
    const fromIntrospection = canonical(buildClientSchema(answer.json.data));
    const sdl = await (await fetch(url + '/schema.graphql', { headers: auth })).text();
    const served = canonical(buildSchema(sdl));
    if (fromIntrospection !== served) {
      const a = fromIntrospection.split('\n'), b = served.split('\n');
      const line = a.findIndex((text, index) => text !== b[index]);
      throw new Error(`differ at line ${line + 1}:\n  introspection: ${a[line]}\n  /schema.graphql: ${b[line]}`);
    }
    expect(fromIntrospection.includes('type Order implements Node'), 'the printed schema has no Order');
  });

  await check('Apollo-style APQ: hash-only GET -> PERSISTED_QUERY_NOT_FOUND -> POST with query -> GET served', async () => {
    // A unique document each run, so the first GET cannot find it cached by an earlier run.
    const query = `query RecentOrders($first: Int!) { orders(first: $first) { nodes { id status amount { amount currency } } } } # ${crypto.randomUUID()}`;
    const sha256Hash = crypto.createHash('sha256').update(query, 'utf8').digest('hex');
    const extensions = { persistedQuery: { version: 1, sha256Hash } };
    const variables = { first: 5 };
    const get = async () => {
      const parameters = new URLSearchParams({ operationName: 'RecentOrders', variables: JSON.stringify(variables), extensions: JSON.stringify(extensions) });
      const response = await fetch(url + '/graphql?' + parameters, { headers: { accept: 'application/json', ...auth } });
      return { status: response.status, json: await response.json() };
    };
    const miss = await get();
    const codes = (miss.json.errors || []).map((error) => error.extensions && error.extensions.code);
    expect(codes.includes('PERSISTED_QUERY_NOT_FOUND'), 'hash-only GET: ' + JSON.stringify(miss.json));
    expect((miss.json.errors || []).some((error) => error.message === 'PersistedQueryNotFound'), 'Apollo matches the message PersistedQueryNotFound');
    const stored = await post({ operationName: 'RecentOrders', query, variables, extensions });
    expect(stored.status === 200 && !stored.json.errors && Array.isArray(stored.json.data.orders.nodes), 'POST with query: ' + JSON.stringify(stored.json));
    const hit = await get();
    expect(hit.status === 200 && !hit.json.errors, 'second hash-only GET: ' + JSON.stringify(hit.json));
    expect(JSON.stringify(hit.json.data) === JSON.stringify(stored.json.data), 'the persisted query answered differently');
    const wrong = await post({ query: query + ' ', extensions });
    expect((wrong.json.errors || []).length > 0 && !wrong.json.data, 'a hash that does not match its query must be refused');
  });

  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
})();
