// Introspection round trip against graphql-js 16 (Debian node-graphql):
//   printSchema(buildClientSchema(<PayQL's answer to getIntrospectionQuery(all options)>))
//   must equal printSchema(buildSchema(<the SDL>)).
// Usage: node compare.js SDL_FILE OUR_RESPONSE_JSON   (prints the verdict; exit 1 on a difference)
//        node compare.js --query                      (prints the introspection query we must answer)
'use strict';
const fs = require('fs');
const { buildSchema, buildClientSchema, printSchema, getIntrospectionQuery } = require('/usr/share/nodejs/graphql');

const options = { descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true };
if (process.argv[2] === '--query') {
  process.stdout.write(getIntrospectionQuery(options));
  process.exit(0);
}
const sdl = fs.readFileSync(process.argv[2], 'utf8');
const response = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'));
if (response.errors) {
  console.error('PayQL answered with errors: ' + JSON.stringify(response.errors));
  process.exit(1);
}
// graphql-js 16.6 predates @oneOf (16.9 made it a specified directive). PayQL
// reports it among its built-in directives, so the reference declares it with the
// same description; graphql-js 16.6's printSchema omits the applied `@oneOf` on
// input types as PayQL's printer does.
const oneOf = '\n"""Indicates exactly one field must be supplied and this field must not be `null`."""\ndirective @oneOf on INPUT_OBJECT\n';
const expected = printSchema(buildSchema(sdl + oneOf));
const actual = printSchema(buildClientSchema(response.data));
if (expected === actual) {
  console.log(`introspection round trip: identical (${expected.split('\n').length} lines of SDL)`);
  process.exit(0);
}
const a = expected.split('\n'), b = actual.split('\n');
for (let i = 0; i < Math.max(a.length, b.length); i++) {
  if (a[i] !== b[i]) {
    console.error(`first difference at line ${i + 1}:\n  graphql-js: ${a[i]}\n  PayQL:      ${b[i]}`);
    break;
  }
}
process.exit(1);
