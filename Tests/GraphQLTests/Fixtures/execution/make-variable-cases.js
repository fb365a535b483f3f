// Regenerates variable-cases.json: each case's variables and graphql-js 16's response
// (graphqlSync: parse, validate, execute).
// node Tests/GraphQLTests/Fixtures/execution/make-variable-cases.js > Tests/GraphQLTests/Fixtures/execution/variable-cases.json
const fs = require('fs');
const path = require('path');
const { buildSchema, graphqlSync } = require('/usr/share/nodejs/graphql');
const schema = buildSchema(fs.readFileSync(path.join(__dirname, 'semantics.graphql'), 'utf8'));
schema.getQueryType().getFields().echo.resolve = (_, args) => JSON.stringify(args);
const query = 'query ($input: EchoInput, $list: [Int], $id: ID, $color: Color, $n: Int!) { echo(input: $input, list: $list, id: $id, color: $color) n: echo(list: [$n]) }';
const cases = [
  { n: 1, input: { times: 2 } },
  { n: 1, input: { text: 5, extra: 1, txt: 2 } },
  { n: 1, list: [1, 'x', 2.5] },
  { n: 1, list: 7 },
  { n: 1, id: 12 },
  { n: 1, id: 1.5 },
  { n: 1, color: 'BLUE' },
  { n: 1, color: 3 },
  { n: null },
  {},
  { n: 3000000000 },
  { n: 1, input: 'str' },
  { n: 1, input: { text: 'hi', tags: 'one' }, list: [1, null], color: 'RED' },
  { n: 1, input: { text: null } },
  { n: 1, input: { text: 'a', tags: ['x', null] } },
];
const out = cases.map((variables) => ({ query, variables, response: graphqlSync({ schema, source: query, variableValues: variables }) }));
console.log(JSON.stringify(out, null, 1));
