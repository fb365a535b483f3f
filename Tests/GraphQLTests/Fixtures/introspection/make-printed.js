// Regenerates rich.printed.graphql: graphql-js 16's printSchema(buildSchema(rich.graphql)).
// graphql-js 16.6 needs @oneOf declared; the declaration is then dropped from the output,
// as a graphql-js that knows @oneOf (16.9+) prints it: not at all.
const fs = require('fs');
const path = require('path');
const { buildSchema, printSchema } = require('/usr/share/nodejs/graphql');
const sdl = fs.readFileSync(path.join(__dirname, 'rich.graphql'), 'utf8');
const printed = printSchema(buildSchema(sdl + '\ndirective @oneOf on INPUT_OBJECT\n'));
fs.writeFileSync(path.join(__dirname, 'rich.printed.graphql'), printed.replace('directive @oneOf on INPUT_OBJECT\n\n', '') + '\n');
