// Differential check: PayQL's `payql graphql format|validate` against
// graphql-js (Debian's node-graphql) on every document of the corpus.
// One node process does all graphql-js work; payql runs once per document.
//
// usage: node compare.js PAYQL_BINARY CORPUS_DIR EXCEPTIONS_FILE
'use strict';
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');

let graphql;
try { graphql = require('graphql'); } catch (e) { graphql = require('/usr/share/nodejs/graphql'); }
const { parse, print, validate, buildSchema } = graphql;

const [payql, corpus, exceptionsFile] = process.argv.slice(2);
if (!payql || !corpus) {
  console.error('usage: node compare.js PAYQL_BINARY CORPUS_DIR [EXCEPTIONS_FILE]');
  process.exit(2);
}

// "kind/name  reason" per line; # comments.
const exceptions = new Map();
if (exceptionsFile && fs.existsSync(exceptionsFile)) {
  for (const line of fs.readFileSync(exceptionsFile, 'utf8').split('\n')) {
    const trimmed = line.trim();
    if (!trimmed || trimmed.startsWith('#')) continue;
    const [key, ...reason] = trimmed.split(/\s+/);
    exceptions.set(key, reason.join(' '));
  }
}

// A lone surrogate in a graphql-js message (it slices UTF-16) becomes U+FFFD
// when written as UTF-8, which is what a user of either tool sees.
function wellFormed(text) {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

function errorLine(error, prefix) {
  const loc = error.locations && error.locations[0];
  return prefix + (loc ? `${loc.line}:${loc.column} ` : '') + wellFormed(error.message);
}

function referenceFormat(text) {
  try {
    return print(parse(text));
  } catch (error) {
    return errorLine(error, 'ERROR ');
  }
}

const schemaCache = new Map();
function schemaFor(file) {
  if (!schemaCache.has(file)) schemaCache.set(file, buildSchema(fs.readFileSync(file, 'utf8')));
  return schemaCache.get(file);
}

function referenceValidate(text, schemaFile) {
  let document;
  try {
    document = parse(text);
  } catch (error) {
    return [errorLine(error, 'ERROR ')];
  }
  return validate(schemaFor(schemaFile), document).map((error) => errorLine(error, ''));
}

function run(args) {
  const result = spawnSync(payql, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function chomp(text) { return text.endsWith('\n') ? text.slice(0, -1) : text; }
function lines(text) { return text.split('\n').filter((line) => line.length > 0); }

let passed = 0;
let failed = 0;
let excepted = 0;
const report = (key, ok, expected, actual) => {
  if (ok) {
    passed += 1;
    if (exceptions.has(key)) console.log(`note: ${key} agrees now; its exception can go`);
    return;
  }
  if (exceptions.has(key)) {
    excepted += 1;
    console.log(`excepted: ${key} (${exceptions.get(key)})`);
    return;
  }
  failed += 1;
  console.log(`FAIL ${key}\n--- graphql-js\n${expected}\n--- payql\n${actual}\n---`);
};

// format/*.graphql: print(parse(doc)) or the syntax error, byte for byte.
const formatDir = path.join(corpus, 'format');
for (const name of fs.readdirSync(formatDir).filter((n) => n.endsWith('.graphql')).sort()) {
  const file = path.join(formatDir, name);
  const expected = referenceFormat(fs.readFileSync(file, 'utf8'));
  const result = run(['graphql', 'format', file]);
  const actual = result.status === 0 ? chomp(result.stdout) : chomp(result.stderr);
  const statusOk = (result.status === 0) === !expected.startsWith('ERROR ');
  report(`format/${name}`, statusOk && actual === expected, expected, `(exit ${result.status})\n${actual}`);
}

// validate/*.graphql: the errors of validate(schema, doc), as a sorted list of
// `line:col message` (rule order is not part of the contract). The schema is
// validate/schema.graphql unless the first line says `# schema: other.graphql`.
const validateDir = path.join(corpus, 'validate');
if (fs.existsSync(validateDir)) {
  for (const name of fs.readdirSync(validateDir).filter((n) => n.endsWith('.graphql') && !n.startsWith('schema')).sort()) {
    const file = path.join(validateDir, name);
    const text = fs.readFileSync(file, 'utf8');
    const match = /^# schema: (\S+)/.exec(text);
    const schemaFile = path.join(validateDir, match ? match[1] : 'schema.graphql');
    const expected = referenceValidate(text, schemaFile).sort();
    const result = run(['graphql', 'validate', '--schema', schemaFile, file]);
    const actual = lines(result.stdout + result.stderr).sort();
    const statusOk = result.status === (expected.length === 0 ? 0 : 1);
    report(`validate/${name}`, statusOk && actual.join('\n') === expected.join('\n'),
      expected.join('\n'), `(exit ${result.status})\n${actual.join('\n')}`);
  }
}

if (excepted > 0) console.log(`${excepted} disagreements listed in exceptions`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
