// Regenerates the *.printed.graphql files: graphql-js 16's printSchema(buildSchema(sdl))
// for each SDL below. graphql-js 16.6 needs @oneOf declared; the declaration is then
// dropped from the output, as a graphql-js that knows @oneOf (16.9+) prints it: not at all.
const fs = require('fs');
const path = require('path');
const { buildSchema, printSchema } = require('/usr/share/nodejs/graphql');
const sources = {
  'rich': 'rich.graphql',
  'workload': '../execution/schema.graphql',
  'semantics': '../execution/semantics.graphql',
};
for (const [name, file] of Object.entries(sources)) {
  const sdl = fs.readFileSync(path.join(__dirname, file), 'utf8');
  const printed = printSchema(buildSchema(sdl + '\ndirective @oneOf on INPUT_OBJECT\n'));
  fs.writeFileSync(path.join(__dirname, name + '.printed.graphql'), printed.replace('directive @oneOf on INPUT_OBJECT\n\n', '') + '\n');
}
