// Regenerates schema-cases.json: for each SDL, the messages graphql-js 16 reports
// (SDL validation errors from buildSchema, else validateSchema's type-system errors).
// node Tests/GraphQLTests/Fixtures/type/make-schema-cases.js
const fs = require('fs');
const path = require('path');
const { buildSchema, validateSchema, parse } = require('/usr/share/nodejs/graphql');
const { validateSDL } = require('/usr/share/nodejs/graphql/validation/validate.js');
const cases = [
  // accepted
  'type Query { a: Int }',
  'interface A { x: Int } interface B implements A { x: Int } type Query implements B & A { x: Int }',
  // type-system validation
  'type Query { a: Int } type Empty',
  'type Query { a: In } input In { x: Int }',
  'type Query { a(x: Query): Int }',
  'type Query implements I { a: Int } interface I { a: Int b(x: Int): String }',
  'type Query implements I { a: String } interface I { a: Int }',
  'type Query implements I { a(y: Int!): Int } interface I { a(x: String): Int }',
  'type Query implements I { a(x: Int): Int } interface I { a(x: String): Int }',
  'interface A { x: Int } interface B implements A { x: Int } type Query implements B { x: Int }',
  'type Query { a: U } union U = Query | I interface I { a: Int }',
  'type Query { a: Int } input A { b: B! } input B { a: A! } input C { c: C }',
  'type Query { __bad: Int } type __Nope { a: Int }',
  'type Query { a(x: Int! @deprecated): Int } input In { y: Int! @deprecated }',
  'schema { query: Query mutation: In } type Query { a: Int } input In { x: Int }',
  'type Q { a: Int }',
  'type Query implements Query { a: Int }',
  'type Query { a: Int } enum E',
  // SDL validation rules
  'type Query { a: Int } type Query { b: Int }',
  'type Query { a: Int a: String }',
  'type Query { a(x: Int, x: Int): Int }',
  'type Query { a: Unknown }',
  'type Query { a: Int @unknown }',
  'type Query @deprecated { a: Int }',
  'type Query { a: Int @deprecated @deprecated }',
  'extend type Nope { a: Int } type Query { a: Int }',
  'enum E { A A } type Query { a: E }',
  'directive @d on FIELD directive @d on FIELD type Query { a: Int }',
  'schema { query: Query } schema { query: Query } type Query { a: Int }',
  'schema { query: Query query: Query } type Query { a: Int }',
  'type Query { a: Int @deprecated(why: "x") }',
  'directive @d(x: Int!) on FIELD_DEFINITION type Query { a: Int @d }',
  'directive @d(x: In) on FIELD_DEFINITION input In { a: Int } type Query { a: Int @d(x: {a: 1, a: 2}) }',
  'scalar S type Query { a: S } extend type S @deprecated',
];
const out = cases.map((sdl) => {
  const sdlErrors = validateSDL(parse(sdl));
  if (sdlErrors.length > 0) return { sdl, messages: sdlErrors.map((e) => e.message) };
  return { sdl, messages: validateSchema(buildSchema(sdl)).map((e) => e.message) };
});
fs.writeFileSync(path.join(__dirname, 'schema-cases.json'), JSON.stringify(out, null, 1) + '\n');
