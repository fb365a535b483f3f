// Writes N mutated copies of the format corpus, and N of the validate corpus, (random deletions, insertions
// of GraphQL fragments and awkward characters, duplications) into
// OUT_DIR/format/ and OUT_DIR/validate/, deterministically from SEED, so that compare.js can check
// PayQL against graphql-js on documents nobody wrote by hand:
//
//   node mutate.js SEED N OUT_DIR && node compare.js PAYQL OUT_DIR
//
// Used to find the cases now in corpus/format (see README.md).
'use strict';
const fs = require('fs');
const path = require('path');

const [seedArg, countArg, outDir] = process.argv.slice(2);
if (!outDir) {
  console.error('usage: node mutate.js SEED N OUT_DIR');
  process.exit(2);
}
const corpus = path.join(__dirname, 'corpus', 'format');
const seeds = fs.readdirSync(corpus).filter((n) => n.endsWith('.graphql')).sort()
  .map((n) => fs.readFileSync(path.join(corpus, n), 'utf8'));

let state = BigInt(seedArg) & ((1n << 64n) - 1n);
function random(n) {
  state = (state * 6364136223846793005n + 1442695040888963407n) & ((1n << 64n) - 1n);
  return Number((state >> 33n) % BigInt(n));
}

const pieces = ['{', '}', '(', ')', '[', ']', ':', '$', '@', '!', '=', '|', '&', '...', '.', '"', '"""',
  '\\', '\\u', '\\u{', 'D83D', 'DE00', ' ', '\n', '\r', '\r\n', '\t', ',', '#', 'a', 'on', 'query',
  'fragment', 'type', 'extend', '-', '0', '1', '9', 'e', 'E', '+', 'é', '😀', '\u0000', '\u0007',
  '\ufeff', "'", 'true', 'null', 'directive', 'repeatable', 'implements', 'schema', 'input', 'enum',
  'union', 'scalar', 'interface'];

function mutate(text) {
  const steps = 1 + random(6);
  for (let i = 0; i < steps; i++) {
    const chars = Array.from(text);
    const at = random(chars.length + 1);
    switch (random(4)) {
      case 0: chars.splice(at, 1 + random(4)); break;
      case 1: chars.splice(at, 0, pieces[random(pieces.length)]); break;
      case 2: { const from = random(chars.length + 1); chars.splice(at, 0, ...chars.slice(from, from + 1 + random(8))); break; }
      default: chars.splice(at, 1, pieces[random(pieces.length)]);
    }
    text = chars.join('');
  }
  return text;
}

const count = Number(countArg);
const target = path.join(outDir, 'format');
fs.mkdirSync(target, { recursive: true });
for (let i = 0; i < count; i++) {
  fs.writeFileSync(path.join(target, `mutant-${String(i).padStart(5, '0')}.graphql`), mutate(seeds[random(seeds.length)]));
}
// The same for validation: mutants of corpus/validate, against its schema.
const validateCorpus = path.join(__dirname, 'corpus', 'validate');
const validateSeeds = fs.readdirSync(validateCorpus).filter((n) => n.endsWith('.graphql') && !n.startsWith('schema')).sort()
  .map((n) => fs.readFileSync(path.join(validateCorpus, n), 'utf8'));
const validateTarget = path.join(outDir, 'validate');
fs.mkdirSync(validateTarget, { recursive: true });
fs.copyFileSync(path.join(validateCorpus, 'schema.graphql'), path.join(validateTarget, 'schema.graphql'));
for (let i = 0; i < count; i++) {
  fs.writeFileSync(path.join(validateTarget, `mutant-${String(i).padStart(5, '0')}.graphql`),
    mutate(validateSeeds[random(validateSeeds.length)]));
}
console.log(`${count} documents each in ${target} and ${validateTarget}`);
