#!/usr/bin/env bash
# Benchmarks/gateway/cpu.sh: PayQL's CPU per request for one query shape, measured the way the
# README's figures are (process CPU time from /proc/<pid>/stat, utime+stime, around a wrk run),
# so that a change can be judged on a shared, busy machine where wall-clock rates are noise.
#
#   PAYQL=/path/to/release/payql Benchmarks/gateway/cpu.sh [QUERY]   QUERY: order (default), order-id,
#                                                                  order-customer, create
#   CONNECTIONS=16 DURATION=5 ORDERS=100 PERF=1 (record a profile of the server: $OUT/perf.data)
#   PERF_EVENTS='-e syscalls:sys_enter_write' (with PERF=1: record those events, with their call stacks,
#   instead of CPU samples: where each system call comes from)
#   SERVE_ARGS='--threads 1' (more flags for payql serve)
#   SYSCALLS=1 (count the server's system calls per request, by call: perf stat of kernel tracepoints)
#   MALLOCS=1 (malloc calls per request, through the uprobe `perf probe -x <libc.so.6> --add malloc` makes;
#   the probe slows the server: that run's CPU and rate figures are not comparable)
#
# Prints req/s, p50/p99 (wall clock: meaningful only under flock /tmp/payql-bench.lock on a quiet
# machine), µs of PayQL CPU per request (the steady figure) and µs of the embedded PostgreSQL's
# CPU per request (every process of its cluster), and context switches of PayQL's threads per request.
set -euo pipefail
cd "$(dirname "$0")/../.."
QUERY="${1:-order}"; CONNECTIONS="${CONNECTIONS:-16}"; DURATION="${DURATION:-5}"; ORDERS="${ORDERS:-100}"
HERE=Benchmarks/gateway
: "${PAYQL:?set PAYQL to a release payql}"
OUT="${OUT:-$(mktemp -d /tmp/payql-cpu.XXXXXX)}"; mkdir -p "$OUT"
# mktemp makes it 0700; the embedded cluster's data directory is created inside it by the
# cluster's own user when PayQL runs as root, and postgres.pid is read from there below.
chmod 755 "$OUT"
PORT="${PORT:-18410}"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT

"$PAYQL" serve --port "$PORT" --sandbox-port "$((PORT + 1))" --data-dir "$OUT/pg" --dev-keys-dir "$OUT" --log-level off \
  --reconciler false ${SERVE_ARGS:-} >"$OUT/serve.log" 2>&1 &
SERVER=$!
PIDS+=("$SERVER")
for _ in $(seq 1 300); do [ -s "$OUT/dev-keys" ] && break; sleep 0.2; done
KEY="$(grep PAYQL_SECRET_KEY "$OUT/dev-keys" | cut -d= -f2)"
[ -n "$KEY" ] || { cat "$OUT/serve.log"; echo "payql did not start" >&2; exit 1; }
python3 "$HERE/load.py" seed "http://127.0.0.1:$PORT" "$KEY" "http://127.0.0.1:$((PORT + 1))" "$ORDERS" "$OUT"

case "$QUERY" in
  order) Q='query Order($id: ID!) { order(id: $id) { id receipt status provider amount { amount currency decimal } amountPaid { amount } createdAt customer { id name email phone } payments { id providerPaymentId status amount { amount } verified } } }' ;;
  order-id) Q='query Order($id: ID!) { order(id: $id) { id } }' ;;
  order-customer) Q='query Order($id: ID!) { order(id: $id) { id customer { id } } }' ;;
  create) Q='' ;;
  *) echo "unknown query $QUERY" >&2; exit 2 ;;
esac

ticks() { awk '{ print $14 + $15 }' "/proc/$SERVER/stat"; }
# Context switches of every PayQL thread (voluntary + involuntary), summed: how often a request's
# work is handed between threads or waits; steadier than CPU time on a busy machine.
switches() { cat /proc/"$SERVER"/task/*/status 2>/dev/null | awk '/ctxt_switches/ { t += $2 } END { print t + 0 }'; }
# PostgreSQL's CPU: the embedded cluster's processes (the postmaster named in postmaster.pid and
# its children), "pid ticks" a line, summed by difference (a process started meanwhile counts from 0).
pg_ticks() {
  local pids
  pids="$(head -1 "$OUT/pg/postmaster.pid")"
  pids="$pids $(pgrep -P "$pids" || true)"
  for pid in $pids; do [ -r "/proc/$pid/stat" ] && awk -v p="$pid" '{ print p, $14 + $15 }' "/proc/$pid/stat"; done 2>/dev/null || true
}
HZ="$(getconf CLK_TCK)"
pg_ticks >"$OUT/pg-before"
switches_before="$(switches)"
before="$(ticks)"
if [ "$QUERY" = create ]; then
  # createOrder through the in-process sandbox: CPU includes the sandbox's share.
  started=$(date +%s.%N)
  if [ "${PERF:-0}" = 1 ]; then perf record -F "${PERF_FREQ:-999}" -g -p "$SERVER" -o "$OUT/perf.data" -- sleep 1000 >/dev/null 2>&1 & PERFPID=$!; fi
  result="$(python3 "$HERE/load.py" create "http://127.0.0.1:$PORT" "$KEY" "$CONNECTIONS" "${CREATES:-1000}")"
  echo "$result"
  requests="${CREATES:-1000}"
else
  if [ "${PERF:-0}" = 1 ]; then perf record ${PERF_EVENTS:--F "${PERF_FREQ:-999}"} -g -p "$SERVER" -o "$OUT/perf.data" -- sleep "$DURATION" >/dev/null 2>&1 & PERFPID=$!; fi
  if [ "${SYSCALLS:-0}" = 1 ]; then
    # The server's system calls (kernel tracepoints: no hardware counters needed), counted per request below.
    events=""
    for call in recvfrom sendmsg sendto write read epoll_wait epoll_ctl poll futex sched_yield writev; do events="$events,syscalls:sys_enter_$call"; done
    perf stat -x, -e "${events#,}" -p "$SERVER" -o "$OUT/syscalls.csv" -- sleep "$DURATION" >/dev/null 2>&1 & STATPID=$!
  fi
  if [ "${MALLOCS:-0}" = 1 ]; then
    # malloc calls per request through a uprobe on libc's malloc (made once: perf probe -x <libc> --add malloc).
    # Each hit traps into the kernel: the CPU and rate figures of such a run are not comparable.
    perf stat -x, -e probe_libc:malloc -p "$SERVER" -o "$OUT/mallocs.csv" -- sleep "$DURATION" >/dev/null 2>&1 & MALLOCPID=$!
  fi
  result="$(WRK_IDS_FILE="$OUT/order-ids" WRK_KEY="$KEY" WRK_QUERY="$Q" wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" \
    -s "$HERE/order-query.lua" "http://127.0.0.1:$PORT/graphql" | grep RESULT)"
  echo "$result"
  requests="$(sed -n 's/.*requests=\([0-9]*\).*/\1/p' <<<"$result")"
fi
after="$(ticks)"
switches_after="$(switches)"
pg_ticks >"$OUT/pg-after"
pg="$(awk 'NR == FNR { b[$1] = $2; next } { t += $2 - ($1 in b ? b[$1] : 0) } END { print t + 0 }' "$OUT/pg-before" "$OUT/pg-after")"
if [ -n "${PERFPID:-}" ]; then kill -INT "$PERFPID" 2>/dev/null || true; wait "$PERFPID" 2>/dev/null || true; fi
if [ -n "${MALLOCPID:-}" ]; then
  kill -INT "$MALLOCPID" 2>/dev/null || true; wait "$MALLOCPID" 2>/dev/null || true
  echo "mallocs per request: $(awk -F, -v n="$requests" '$3 ~ /malloc/ { printf "%.1f", $1 / n }' "$OUT/mallocs.csv")"
fi
if [ -n "${STATPID:-}" ]; then
  kill -INT "$STATPID" 2>/dev/null || true; wait "$STATPID" 2>/dev/null || true
  echo "syscalls per request: $(awk -F, -v n="$requests" '$3 ~ /sys_enter_/ && $1 + 0 > 0 { sub(/.*sys_enter_/, "", $3); printf "%s=%.2f ", $3, $1 / n }' "$OUT/syscalls.csv")"
fi
echo "query=$QUERY connections=$CONNECTIONS requests=$requests cpu_s=$(awk -v t=$((after - before)) -v hz="$HZ" 'BEGIN { printf "%.2f", t / hz }') \
cpu_us_per_request=$(awk -v t=$((after - before)) -v hz="$HZ" -v n="$requests" 'BEGIN { printf "%.0f", t / hz * 1e6 / n }') \
postgres_cpu_us_per_request=$(awk -v t="$pg" -v hz="$HZ" -v n="$requests" 'BEGIN { printf "%.0f", t / hz * 1e6 / n }') \
switches_per_request=$(awk -v t=$((switches_after - switches_before)) -v n="$requests" 'BEGIN { printf "%.2f", t / n }') load=\"$(cut -d' ' -f1-3 /proc/loadavg)\""
[ "${PERF:-0}" = 1 ] && echo "profile: perf report --no-children -i $OUT/perf.data"
true
