#!/usr/bin/env bash
# Benchmarks/gateway/webhooks.sh: webhook ingestion alone (run.sh's part 3), with the CPU both
# sides spend per delivery: PayQL's and PostgreSQL's (every process of the private cluster), from
# /proc/<pid>/stat (utime + stime) around the wrk run, and the transactions committed meanwhile.
#
#   PAYQL=/path/to/release/payql Benchmarks/gateway/webhooks.sh
#   ORDERS=200 EVENTS=40000 DURATION=5 CONNECTIONS=32 PORT=18460
#   WORKLOAD=open (default): each delivery is the first capture of an open order of its own, as in
#                 production; the EVENTS orders are inserted in SQL as createOrder leaves them (CREATED,
#                 with a Razorpay order id: seeding that many through the API would take minutes), then
#                 ANALYZEd as autovacuum would have. WORKLOAD=seeded: the deliveries spread over the ORDERS
#                 orders seeded through the API, half of them paid already (the figures before 2026-12-02
#                 06:00): each order collects hundreds of captures, every one after the first an overpayment
#                 whose amount received sums a growing list of payments.
#   PERF=1        records perf profiles of PayQL ($OUT/payql.perf) and of PostgreSQL ($OUT/postgres.perf)
#   STATEMENTS=1  restarts the cluster with pg_stat_statements first and prints the statements that
#                 cost the most in total (adds its own overhead: not for the rate figures)
#   SETUP_SQL=... runs on the cluster after seeding, before the measurement (experiments: what a
#                 trigger or a constraint costs, e.g. SETUP_SQL='ALTER TABLE … DROP CONSTRAINT …')
#   MALLOCS=1     PayQL's malloc calls per delivery (uprobe made once: perf probe -x <libc.so.6> --add malloc;
#                 each hit traps: that run's CPU and rate figures are not comparable)
#   FUNCTIONS=1   calls per delivery of each plpgsql function (the live-update triggers), from
#                 pg_stat_user_functions with track_functions = 'pl'
#
# On a shared machine the CPU figures move with whatever else runs (up to 2x between runs of one build);
# the counts (mallocs, function calls, statements, deliveries per commit) do not.
#
# Prints deliveries/s and p50/p99 (wall clock: meaningful only under flock /tmp/payql-bench.lock on
# a quiet machine), µs of CPU per delivery on each side, deliveries per commit, and the three counts
# that must be equal: stored = applied = payments (each delivery applied exactly once).
set -euo pipefail
cd "$(dirname "$0")/../.."
ORDERS="${ORDERS:-200}"; EVENTS="${EVENTS:-40000}"; DURATION="${DURATION:-5}"; CONNECTIONS="${CONNECTIONS:-32}"
PORT="${PORT:-18460}"
HERE=Benchmarks/gateway
: "${PAYQL:?set PAYQL to a release payql}"
OUT="${OUT:-$(mktemp -d /tmp/payql-webhooks.XXXXXX)}"; mkdir -p "$OUT"; chmod 755 "$OUT"
SERVER=""
stop_server() {
  if [ -n "$SERVER" ]; then kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; SERVER=""; fi
}
trap stop_server EXIT
start_server() {
  rm -f "$OUT/dev-keys"
  "$PAYQL" serve --port "$PORT" --sandbox-port "$((PORT + 1))" --data-dir "$OUT/pg" --dev-keys-dir "$OUT" --log-level off \
    --reconciler false >"$OUT/serve.log" 2>&1 &
  SERVER=$!
  for _ in $(seq 1 300); do [ -s "$OUT/dev-keys" ] && break; sleep 0.2; done
  KEY="$(grep PAYQL_SECRET_KEY "$OUT/dev-keys" | cut -d= -f2)"
  [ -n "$KEY" ] || { cat "$OUT/serve.log"; echo "payql did not start" >&2; exit 1; }
}

start_server
if [ "${STATEMENTS:-0}" = 1 ]; then
  # pg_stat_statements needs to be loaded at server start: stop, configure the cluster, start again.
  stop_server
  echo "shared_preload_libraries = 'pg_stat_statements'" >>"$OUT/pg/postgresql.conf"
  echo "pg_stat_statements.track = all" >>"$OUT/pg/postgresql.conf"
  start_server
fi
PGPORT="$(sed -n 4p "$OUT/pg/postmaster.pid")"
PGSOCK="$(sed -n 5p "$OUT/pg/postmaster.pid")"
POSTMASTER="$(sed -n 1p "$OUT/pg/postmaster.pid")"
psql_() { psql "host=$PGSOCK port=$PGPORT user=payql dbname=payql" -Atc "$1"; }
[ "${STATEMENTS:-0}" = 1 ] && psql_ "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" >/dev/null

python3 "$HERE/load.py" seed "http://127.0.0.1:$PORT" "$KEY" "http://127.0.0.1:$((PORT + 1))" "$ORDERS" "$OUT"
if [ "${WORKLOAD:-open}" = open ]; then
  psql_ "INSERT INTO orders (provider, provider_order_id, provider_status, amount_minor, currency, receipt)
         SELECT 'razorpay', 'order_whk' || lpad(g::text, 9, '0'), 'created', 50000, 'INR', 'whk_' || g FROM generate_series(1, $EVENTS) g" >/dev/null
  psql_ "SELECT provider_order_id FROM orders WHERE receipt LIKE 'whk\\_%'" >"$OUT/provider-orders"
  psql_ "ANALYZE" >/dev/null
fi
python3 "$HERE/load.py" events sandbox_razorpay_webhook_secret "$EVENTS" "$OUT"
[ -n "${SETUP_SQL:-}" ] && psql_ "$SETUP_SQL" >/dev/null
if [ "${FUNCTIONS:-0}" = 1 ]; then
  psql_ "ALTER SYSTEM SET track_functions = 'pl'" >/dev/null; psql_ "SELECT pg_reload_conf()" >/dev/null; sleep 0.5
  psql_ "SELECT pg_stat_reset()" >/dev/null
fi
sleep 1

# utime + stime, in clock ticks: PayQL, and the postmaster with every process it started.
payql_ticks() { awk '{ print $14 + $15 }' "/proc/$SERVER/stat"; }
postgres_ticks() {
  local total=0 pid
  for pid in "$POSTMASTER" $(pgrep -P "$POSTMASTER"); do
    [ -r "/proc/$pid/stat" ] && total=$(( total + $(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null || echo 0) ))
  done
  echo "$total"
}
HZ="$(getconf CLK_TCK)"
stored_before="$(psql_ "SELECT count(*) FROM webhook_events")"
commits_before="$(psql_ "SELECT xact_commit FROM pg_stat_database WHERE datname = 'payql'")"
[ "${STATEMENTS:-0}" = 1 ] && psql_ "SELECT pg_stat_statements_reset()" >/dev/null
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
p_before="$(payql_ticks)"; g_before="$(postgres_ticks)"
if [ "${PERF:-0}" = 1 ]; then
  perf record -F 999 -g -p "$SERVER" -o "$OUT/payql.perf" -- sleep "$DURATION" >/dev/null 2>&1 & PERF_PAYQL=$!
  perf record -F 999 -g -p "$(echo "$POSTMASTER" $(pgrep -P "$POSTMASTER") | tr ' ' ',')" -o "$OUT/postgres.perf" \
    -- sleep "$DURATION" >/dev/null 2>&1 & PERF_POSTGRES=$!
fi
if [ "${MALLOCS:-0}" = 1 ]; then
  perf stat -x, -e probe_libc:malloc -p "$SERVER" -o "$OUT/mallocs.csv" -- sleep "$DURATION" >/dev/null 2>&1 & MALLOCPID=$!
fi
result="$(WRK_EVENTS_FILE="$OUT/events" WRK_THREADS=2 wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" -s "$HERE/webhooks.lua" \
  "http://127.0.0.1:$PORT" | grep RESULT)"
p_after="$(payql_ticks)"; g_after="$(postgres_ticks)"
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"
if [ "${PERF:-0}" = 1 ]; then wait "$PERF_PAYQL" "$PERF_POSTGRES" 2>/dev/null || true; fi
sleep 1
stored=$(( $(psql_ "SELECT count(*) FROM webhook_events") - stored_before ))
commits=$(( $(psql_ "SELECT xact_commit FROM pg_stat_database WHERE datname = 'payql'") - commits_before ))
applied="$(psql_ "SELECT count(*) FROM webhook_events WHERE event_id LIKE 'evt_bench%' AND outcome = 'APPLIED'")"
payments="$(psql_ "SELECT count(*) FROM payments WHERE provider_payment_id LIKE 'pay_bench%'")"
per() { awk -v t="$1" -v hz="$HZ" -v n="$stored" 'BEGIN { printf "%.0f", (n > 0 ? t / hz * 1e6 / n : 0) }'; }
echo "$result"
echo "stored=$stored applied=$applied payments=$payments commits=$commits" \
  "deliveries_per_commit=$(awk -v s="$stored" -v c="$commits" 'BEGIN { printf "%.1f", (c > 0 ? s / c : 0) }')" \
  "payql_cpu_us_per_delivery=$(per $((p_after - p_before))) postgres_cpu_us_per_delivery=$(per $((g_after - g_before)))" \
  "load_before=\"$load_before\" load_after=\"$load_after\""
if [ -n "${MALLOCPID:-}" ]; then
  wait "$MALLOCPID" 2>/dev/null || true
  echo "payql_mallocs_per_delivery=$(awk -F, -v n="$stored" '$3 ~ /malloc/ { printf "%.1f", $1 / n }' "$OUT/mallocs.csv")"
fi
if [ "${FUNCTIONS:-0}" = 1 ]; then
  sleep 11   # a busy backend flushes its statistics at most once a second, an idle one within 10 s
  psql_ "SELECT funcname || '=' || round(calls::numeric / $stored, 3) || ' calls (' || round(self_time::numeric * 1000 / $stored, 1) || ' us)'
         FROM pg_stat_user_functions ORDER BY funcname" | tr '\n' ' ' | sed 's/^/plpgsql_per_delivery: /'; echo
fi
[ "$stored" = "$applied" ] && [ "$applied" = "$payments" ] || echo "NOT EXACTLY ONCE: stored=$stored applied=$applied payments=$payments" >&2
if [ "${STATEMENTS:-0}" = 1 ]; then
  psql_ "SELECT calls, round(total_exec_time::numeric * 1000 / greatest(calls, 1)) AS us_per_call, round(total_exec_time::numeric / 1000, 2) AS total_s,
           rows, left(regexp_replace(query, '\s+', ' ', 'g'), 140)
         FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = 'payql')
         ORDER BY total_exec_time DESC LIMIT 15" | tee "$OUT/statements.txt"
fi
[ "${PERF:-0}" = 1 ] && echo "profiles: perf report --no-children -i $OUT/payql.perf; perf report --no-children -i $OUT/postgres.perf"
echo "out: $OUT"
