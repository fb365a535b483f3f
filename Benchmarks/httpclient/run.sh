#!/usr/bin/env bash
# HTTPClient benchmark: requests/s and latency through PayQL's HTTPClient (libcurl multi)
# beside Python's aiohttp, against the same local libmicrohttpd server, in one run.
#
#   Benchmarks/httpclient/run.sh [--duration S] [--warmup S] [--concurrency "1 64"] [--no-pin]
#
# Builds `payql-bench` in release, compiles server.c, makes .venv with aiohttp from PyPI
# (first run only), then for GET and POST 1 KiB at each concurrency runs both clients
# one after the other. Unless --no-pin, the server runs on CPU 1 and each client on CPU 0
# (taskset), so both clients get the same single core. Results: a table on stdout and
# JSON lines in Benchmarks/httpclient/results/latest.jsonl.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
duration=5
warmup=1
concurrencies="1 64"
pin=1
port="${PAYQL_BENCH_PORT:-18911}"
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) duration="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --concurrency) concurrencies="$2"; shift 2 ;;
    --no-pin) pin=0; shift ;;
    *) echo "usage: $0 [--duration S] [--warmup S] [--concurrency \"1 64\"] [--no-pin]" >&2; exit 2 ;;
  esac
done

server_cpu=(); client_cpu=()
if [ "$pin" = 1 ] && command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
  server_cpu=(taskset -c 1); client_cpu=(taskset -c 0)
fi

echo "== building payql-bench (release) and the server"
(cd "$root" && swift build -c release --product payql-bench --scratch-path "${PAYQL_BENCH_SCRATCH:-$root/.build-bench}" >/dev/null)
bench="${PAYQL_BENCH_SCRATCH:-$root/.build-bench}/release/payql-bench"
mkdir -p "$here/bin" "$here/results"
cc -O2 -Wall -o "$here/bin/server" "$here/server.c" $(pkg-config --cflags --libs libmicrohttpd)

if [ ! -x "$here/.venv/bin/python" ] || ! "$here/.venv/bin/python" -c 'import aiohttp' 2>/dev/null; then
  echo "== creating .venv with aiohttp (PyPI)"
  python3 -m venv "$here/.venv"
  "$here/.venv/bin/pip" install -q aiohttp
fi

"${server_cpu[@]}" "$here/bin/server" "$port" > "$here/results/server.out" &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
for _ in $(seq 50); do grep -q ready "$here/results/server.out" 2>/dev/null && break; sleep 0.1; done
url="http://127.0.0.1:$port/v1/orders"

results="$here/results/latest.jsonl"
: > "$results"
echo "== $(date -u +%FT%TZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), pinned: $([ ${#client_cpu[@]} -gt 0 ] && echo yes || echo no)"
for body in 0 1024; do
  method=GET; [ "$body" -gt 0 ] && method=POST
  for c in $concurrencies; do
    args=(--url "$url" --concurrency "$c" --duration "$duration" --warmup "$warmup" --method "$method" --body-bytes "$body")
    "${client_cpu[@]}" "$bench" httpclient "${args[@]}" | tee -a "$results" >/dev/null
    "${client_cpu[@]}" "$here/.venv/bin/python" "$here/aiohttp_client.py" "${args[@]}" | tee -a "$results" >/dev/null
  done
done

python3 - "$results" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
print(f"{'client':<22}{'method':<8}{'conc':>5}{'req/s':>11}{'p50 ms':>9}{'p99 ms':>9}{'CPU µs/req':>12}{'errors':>8}{'conns':>7}")
for r in rows:
    print(f"{r['client']:<22}{r['method']:<8}{r['concurrency']:>5}{r['rps']:>11.0f}{r['p50_ms']:>9.2f}{r['p99_ms']:>9.2f}{r['cpu_us_per_request']:>12.1f}{r['errors']:>8}{str(r.get('connections', '-')):>7}")
PY
