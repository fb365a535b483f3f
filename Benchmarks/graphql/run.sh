#!/bin/sh
# PayQL's GraphQL engine vs graphql-js 16 (Debian node-graphql) on the workload
# in ../shared/bench/graphql, both pinned to one core, in the same run.
#
#   Benchmarks/graphql/run.sh [SECONDS_PER_MEASUREMENT]     (default 3)
#
# Ops/s are per second of process CPU time (wall-clock figures are printed too):
# on a shared machine the wall clock measures the neighbours.
# Env: WORKLOAD=dir (default ../shared/bench/graphql), PAYQL=path to a release payql
# (default: built here with `swift build -c release --product payql`), CORE=0.
set -eu
cd "$(dirname "$0")/../.."
SECONDS_EACH="${1:-3}"
WORKLOAD="${WORKLOAD:-../shared/bench/graphql}"
CORE="${CORE:-0}"
if [ -z "${PAYQL:-}" ]; then
    swift build -c release --product payql >/dev/null
    PAYQL="$(swift build -c release --show-bin-path)/payql"
fi
OUT="$(mktemp)"
trap 'rm -f "$OUT"' EXIT
# Both engines check their response against expected_result.json before measuring.
taskset -c "$CORE" "$PAYQL" graphql bench --workload "$WORKLOAD" --seconds "$SECONDS_EACH" --json >>"$OUT"
taskset -c "$CORE" node Benchmarks/graphql/graphql-js-bench.js "$WORKLOAD" "$SECONDS_EACH" >>"$OUT"
node -e '
const lines = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse);
const ops = {}, wall = {};
for (const { engine, phase, ops: n, wallOps: w } of lines) { (ops[phase] ??= {})[engine] = n; (wall[phase] ??= {})[engine] = w; }
const pad = (s, n) => String(s).padStart(n);
console.log("ops per CPU second (process CPU time; pinned to one core)");
console.log("phase".padEnd(12) + pad("PayQL", 10) + pad("graphql-js", 12) + pad("ratio", 8) + "   | wall ops/s: " + "PayQL".padStart(8) + pad("graphql-js", 12));
for (const phase of ["parse", "validate", "execute", "uncached", "cached", "execute+json", "cached+json"]) {
  if (ops[phase] === undefined) continue;
  const ours = ops[phase]?.payql, theirs = ops[phase]?.["graphql-js"];
  console.log(phase.padEnd(12) + pad(ours, 10) + pad(theirs, 12) + pad((ours / theirs).toFixed(1) + "x", 8) +
    "   |             " + pad(wall[phase]?.payql, 8) + pad(wall[phase]?.["graphql-js"], 12));
}
console.log("cached PayQL vs uncached graphql-js (parse+validate+execute): " + (ops.cached.payql / ops.uncached["graphql-js"]).toFixed(1) + "x");
' "$OUT"
