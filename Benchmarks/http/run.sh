#!/usr/bin/env bash
# Benchmarks/http: wrk against POST /graphql on three servers, one after the other,
# in the same run: PayQL (`payql serve --workload`), node `http` + graphql-js on the
# same schema and resolvers, and bare libmicrohttpd (the ceiling, `{ __typename }` only).
#
# Usage: Benchmarks/http/run.sh [SECONDS_PER_ROUND=5] [CONNECTIONS=64] [WRK_THREADS=2]   (ROUNDS=3)
#   PAYQL=/path/to/release/payql skips the build; WORKLOAD=DIR (default ../shared/bench/graphql).
# Needs: wrk, node, libmicrohttpd-dev, cc; builds payql in release mode.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
SECONDS_PER_RUN=${1:-5}
CONNECTIONS=${2:-64}
WRK_THREADS=${3:-2}
ROUNDS=${ROUNDS:-3}
WORKLOAD=${WORKLOAD:-$ROOT/../shared/bench/graphql}
SCRATCH=${SCRATCH:-$ROOT/.build-http-release}
WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]:-}"; do [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

echo "== building payql (release) and the bare libmicrohttpd server"
if [ -z "${PAYQL:-}" ]; then
  swift build -c release --scratch-path "$SCRATCH" --product payql >/dev/null
  PAYQL="$SCRATCH/release/payql"
fi
cc -O2 -I Sources/CPayQLShims/include -o "$WORK/bare-mhd" Benchmarks/http/bare-mhd.c Sources/CPayQLShims/cpayql_sched.c -lmicrohttpd

# Request bodies.
python3 - "$WORKLOAD" "$WORK" <<'PY'
import json, sys
workload, work = sys.argv[1], sys.argv[2]
json.dump({"query": "{ __typename }"}, open(f"{work}/typename.json", "w"))
query = open(f"{workload}/query.graphql").read()
variables = json.load(open(f"{workload}/variables.json"))
json.dump({"query": query, "variables": variables, "operationName": "OrderDetails"}, open(f"{work}/workload.json", "w"))
PY

wait_port() {
  for _ in $(seq 1 100); do
    if (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "server on port $1 did not start" >&2
  return 1
}

# Checks that a server's workload answer equals expected_result.json (keys in order).
check_workload() {
  python3 - "$1" "$WORK/workload.json" "$WORKLOAD/expected_result.json" <<'PY'
import json, sys, urllib.request
port, body, expected = sys.argv[1], open(sys.argv[2], "rb").read(), open(sys.argv[3]).read()
request = urllib.request.Request(f"http://127.0.0.1:{port}/graphql", data=body, headers={"content-type": "application/json"})
got = json.loads(urllib.request.urlopen(request).read(), object_pairs_hook=list)
if got != json.loads(expected, object_pairs_hook=list):
    sys.exit(f"server on {port}: workload response differs from expected_result.json")
PY
}

RESULTS="$WORK/results.txt"
declare -A SERVER_PID
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
bench() { # name port body
  local line before after cpu_us
  before=$(cpu_ticks "${SERVER_PID[$2]}")
  line=$(WRK_BODY_FILE="$WORK/$3.json" wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"${SECONDS_PER_RUN}s" --latency \
    -s Benchmarks/http/post.lua "http://127.0.0.1:$2/graphql" | grep '^RESULT')
  after=$(cpu_ticks "${SERVER_PID[$2]}")
  # The server's own CPU time (user + system) per request served: steadier than req/s on a shared machine.
  cpu_us=$(python3 -c "import sys; t, r = int(sys.argv[1]), int(sys.argv[2]); print('%.1f' % (t / $(getconf CLK_TCK) * 1e6 / max(r, 1)))" \
    "$((after - before))" "$(echo "$line" | sed 's/.*requests=\([0-9]*\).*/\1/')")
  echo "$1 $3 $line cpu_us=$cpu_us" | tee -a "$RESULTS"
}

run_server() { # name port command...
  local name=$1 port=$2
  shift 2
  "$@" >"$WORK/$name.log" 2>&1 &
  PIDS+=($!)
  SERVER_PID[$port]=$!
  wait_port "$port"
}

echo "== wrk -t$WRK_THREADS -c$CONNECTIONS -d${SECONDS_PER_RUN}s per round, $ROUNDS rounds, POST /graphql, keep-alive"
# All three servers run at once (idle ones cost nothing); the rounds interleave them so
# that the machine's load drifts over all of them alike. Figures are medians over rounds.
run_server payql 18080 "$PAYQL" serve --port 18080 --workload "$WORKLOAD" --log-level off
run_server node 18081 node Benchmarks/http/node-graphql-server.js "$WORKLOAD" 18081
run_server bare 18082 "$WORK/bare-mhd" 18082 "$(nproc)" "${BARE_SLICE_US:-0}"
check_workload 18080
check_workload 18081
for round in $(seq 1 "$ROUNDS"); do
  bench bare-libmicrohttpd 18082 typename
  bench payql 18080 typename
  bench node-graphql-js 18081 typename
  bench payql 18080 workload
  bench node-graphql-js 18081 workload
done

echo
echo "== summary: medians over $ROUNDS rounds (req/s, p50, p99)"
python3 - "$RESULTS" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, body, _, *fields = line.split()
    values = dict(field.split("=") for field in fields)
    rows.setdefault((name, body), []).append(values)
def median(name, body, key):
    return statistics.median(float(v[key]) for v in rows[(name, body)])
print(f"{'server':<22}{'request':<12}{'req/s':>10}{'p50 ms':>10}{'p99 ms':>10}{'CPU µs/req':>12}{'errors':>8}")
for (name, body), runs in rows.items():
    errors = sum(int(v["errors"]) for v in runs)
    print(f"{name:<22}{body:<12}{median(name, body, 'rps'):>10.0f}{median(name, body, 'p50_ms'):>10.2f}"
          f"{median(name, body, 'p99_ms'):>10.2f}{median(name, body, 'cpu_us'):>12.1f}{errors:>8}")
p, n, b = median("payql", "typename", "rps"), median("node-graphql-js", "typename", "rps"), median("bare-libmicrohttpd", "typename", "rps")
pw, nw = median("payql", "workload", "rps"), median("node-graphql-js", "workload", "rps")
print(f"payql / node, {{ __typename }}: {p / n:.2f}x (goal >= 2x)")
print(f"payql / node, workload:        {pw / nw:.2f}x (goal >= 5x)")
print(f"payql / bare ceiling:          {100 * p / b:.0f}% (goal >= 60%)")
PY
