// graphql-js 16 (Debian's node-graphql) on the same workload and resolvers as
// `payql graphql bench`: look-ups by id in data.json, property access for every
// other field, abstract types by `__typename` (graphql-js's default resolvers).
// Usage: node graphql-js-bench.js WORKLOAD_DIR SECONDS
'use strict';
const fs = require('fs');
const path = require('path');
const { parse, validate, execute, buildSchema } = require('/usr/share/nodejs/graphql');

const dir = process.argv[2] || '../shared/bench/graphql';
const seconds = Number(process.argv[3] || 3);
const read = (name) => fs.readFileSync(path.join(dir, name), 'utf8');
const sdl = read('schema.graphql');
const query = read('query.graphql');
const variables = JSON.parse(read('variables.json'));
const data = JSON.parse(read('data.json'));
const expected = read('expected_result.json');

const byId = (list) => new Map((list || []).map((item) => [item.id, item]));
const orders = byId(data.orders);
const customers = byId(data.customers);
const payments = byId(data.payments);

const schema = buildSchema(sdl);
const fields = (type) => schema.getType(type).getFields();
fields('Query').order.resolve = (_, { id }) => orders.get(id) ?? null;
fields('Query').node.resolve = (_, { id }) => orders.get(id) ?? customers.get(id) ?? payments.get(id) ?? null;
fields('Order').customer.resolve = (order) => customers.get(order.customerId) ?? null;
fields('Order').lineItems.resolve = (order, { first }) => order.lineItems.slice(0, Math.max(0, first));
fields('Order').payments.resolve = (order, { first, status }) => {
  let list = order.paymentIds.map((id) => payments.get(id)).filter(Boolean);
  if (status != null) list = list.filter((payment) => payment.status === status);
  return list.slice(0, Math.max(0, first));
};

const document = parse(query);
const once = execute({ schema, document, variableValues: variables });
if (JSON.stringify(once) !== JSON.stringify(JSON.parse(expected))) {
  console.error('graphql-js response differs from expected_result.json');
  process.exit(1);
}

// Runs `body` for about `seconds` of CPU time; reports ops per CPU second (the
// figure that survives a busy machine) and ops per wall-clock second.
function measure(body) {
  for (let i = 0; i < 200; i++) body();
  const startWall = process.hrtime.bigint();
  const startCPU = process.cpuUsage();
  let count = 0;
  for (;;) {
    for (let i = 0; i < 64; i++) body();
    count += 64;
    const used = process.cpuUsage(startCPU);
    const cpu = (used.user + used.system) / 1e6;
    if (cpu >= seconds) {
      const wall = Number(process.hrtime.bigint() - startWall) / 1e9;
      return { cpu: count / cpu, wall: count / wall };
    }
  }
}

const results = [
  ['parse', measure(() => parse(query))],
  ['validate', measure(() => validate(schema, document))],
  ['execute', measure(() => execute({ schema, document, variableValues: variables }))],
  ['uncached', measure(() => {
    const doc = parse(query);
    if (validate(schema, doc).length === 0) execute({ schema, document: doc, variableValues: variables });
  })],
  // graphql-js has no document cache: its best case is executing a reused document.
  ['cached', measure(() => execute({ schema, document, variableValues: variables }))],
  // To the response's JSON text, as a server sends it.
  ['execute+json', measure(() => JSON.stringify(execute({ schema, document, variableValues: variables })))],
  ['cached+json', measure(() => JSON.stringify(execute({ schema, document, variableValues: variables })))],
];
for (const [phase, ops] of results) {
  console.log(JSON.stringify({ engine: 'graphql-js', phase, ops: Math.round(ops.cpu), wallOps: Math.round(ops.wall) }));
}
