#!/usr/bin/env bash
# Benchmarks/gateway: the payments API under load, side by side in one run (README.md here).
#  1. order(id) with its customer and payments over HTTP + PostgreSQL, wrk -c64: PayQL against
#     node + graphql-js + node-pg on the same tables (node-order-server.js), rounds interleaved;
#  2. createOrder against the in-process sandbox at zero latency, one at a time and 32 at a time:
#     the gateway's own overhead (extensions.timing totalMs - providerMs) p50/p99;
#  3. webhook ingestion: signed Razorpay payment.captured deliveries per second, each applied once —
#     spread over the seeded orders ("webhooks"), then each paying an open order of its own
#     ("webhooks-open-orders", the production case).
#
#   Benchmarks/gateway/run.sh            ROUNDS=3 DURATION=5 ORDERS=400 CREATES=3000 EVENTS=60000
#   SERVE_ARGS='--http-on-io-threads true'   more flags for payql serve
#   PAYQL=/path/to/release/payql skips the build; LOG_LEVEL=info logs the server, KEEP=1 keeps its
#   directory (serve.log, the cluster) afterwards.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS="${ROUNDS:-3}"; DURATION="${DURATION:-5}"; ORDERS="${ORDERS:-400}"; CREATES="${CREATES:-3000}"; EVENTS="${EVENTS:-60000}"
HERE=Benchmarks/gateway

scripts/install-deps.sh
if [ -z "${PAYQL:-}" ]; then
  SCRATCH="${SCRATCH_PATH:-.build}"
  echo "== building payql (release)"
  swift build -c release --scratch-path "$SCRATCH" --product payql >/dev/null
  PAYQL="$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path)/payql"
fi

WORK="$(mktemp -d /tmp/payql-bench-gateway.XXXXXX)"
chmod 755 "$WORK"
# Debian's node-pg (pure JavaScript) for the reference server. Installed normally where the
# machine's nodejs is Debian's; where nodejs comes from elsewhere its dependencies cannot be
# met, so the package and the two it needs are unpacked next to the run instead.
NODE_PATH=/usr/share/nodejs
if ! NODE_PATH=$NODE_PATH node -e "require('pg')" 2>/dev/null; then
  echo "== unpacking Debian's node-pg for the reference server"
  (cd "$WORK" && apt-get download node-pg node-split2 node-xtend >/dev/null 2>&1 \
     || { apt-get update -qq && apt-get download node-pg node-split2 node-xtend >/dev/null; })
  for deb in "$WORK"/*.deb; do dpkg -x "$deb" "$WORK/node"; done
  NODE_PATH="$WORK/node/usr/share/nodejs:/usr/share/nodejs"
fi
export NODE_PATH
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ "${KEEP:-0}" = 1 ]; then echo "kept: $WORK (serve.log)"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg), payql $(git rev-parse --short HEAD)"
"$PAYQL" serve --port 18400 --sandbox-port 18401 --data-dir "$WORK/pg" --dev-keys-dir "$WORK" --log-level "${LOG_LEVEL:-off}" --reconciler false ${SERVE_ARGS:-} >"$WORK/serve.log" 2>&1 &
PIDS+=($!)
PAYQL_PID=$!
for _ in $(seq 1 300); do [ -s "$WORK/dev-keys" ] && break; sleep 0.2; done
KEY="$(grep PAYQL_SECRET_KEY "$WORK/dev-keys" | cut -d= -f2)"
[ -n "$KEY" ] || { cat "$WORK/serve.log"; echo "payql did not start" >&2; exit 1; }

echo "== seeding $ORDERS orders (every other one paid through the sandbox's webhooks)"
python3 "$HERE/load.py" seed http://127.0.0.1:18400 "$KEY" http://127.0.0.1:18401 "$ORDERS" "$WORK"
PGPORT="$(sed -n 4p "$WORK/pg/postmaster.pid")"
PGSOCK="$(sed -n 5p "$WORK/pg/postmaster.pid")"
psql_() { psql "host=$PGSOCK port=$PGPORT user=payql dbname=payql" -Atc "$1"; }

node "$HERE/node-order-server.js" 18402 "$PGSOCK" "$PGPORT" payql payql &
PIDS+=($!)
sleep 1
# Both servers must give the same answer for the same order (PayQL adds extensions.timing).
FIRST="$(head -1 "$WORK/order-ids")"
Q='query Order($id: ID!) { order(id: $id) { id receipt status provider amount { amount currency decimal } amountPaid { amount } createdAt customer { id name email phone } payments { id providerPaymentId status amount { amount } verified } } }'
BODY="$(python3 -c 'import json,sys; print(json.dumps({"query": sys.argv[1], "variables": {"id": sys.argv[2]}}))' "$Q" "$FIRST")"
for port in 18400 18402; do
  curl -s "http://127.0.0.1:$port/graphql" -H 'content-type: application/json' -H "authorization: Bearer $KEY" -d "$BODY" \
    | python3 -c 'import json,sys; d=json.load(sys.stdin); d.pop("extensions", None); d["data"]["order"]["createdAt"]=d["data"]["order"]["createdAt"][:19]; print(json.dumps(d, sort_keys=True))' >"$WORK/answer-$port"
done
cmp -s "$WORK/answer-18400" "$WORK/answer-18402" || { echo "the two servers answer differently:"; cat "$WORK/answer-18400" "$WORK/answer-18402"; exit 1; }

echo "== 1. order(id) + customer + payments, wrk -t2 -c64 -d${DURATION}s, $ROUNDS interleaved rounds"
for round in $(seq 1 "$ROUNDS"); do
  for server in payql:18400 node:18402; do
    name="${server%%:*}"; port="${server##*:}"
    result="$(WRK_IDS_FILE="$WORK/order-ids" WRK_KEY="$KEY" wrk -t2 -c64 -d"${DURATION}s" -s "$HERE/order-query.lua" "http://127.0.0.1:$port/graphql" | grep RESULT)"
    echo "round $round $name $result"
  done
done

echo "== 2. createOrder at the sandbox (zero latency): one at a time (300 calls), then 32 concurrent ($CREATES calls)"
# One at a time shows the gateway's own overhead without queueing; at 32 concurrent every part
# (PayQL, the in-process sandbox, PostgreSQL, this load generator) waits for the two cores.
echo "sequential $(python3 "$HERE/load.py" create http://127.0.0.1:18400 "$KEY" 1 300)"
echo "concurrent $(python3 "$HERE/load.py" create http://127.0.0.1:18400 "$KEY" 32 "$CREATES")"

# Part 3 twice: deliveries spread over the seeded orders, half of them paid (each order collects
# hundreds of captures, nearly none changing a status: the figures before 2026-12-02 06:00), then
# each delivery the first capture of an open order of its own, as in production (the orders inserted
# in SQL as createOrder leaves them, then ANALYZEd; webhooks.sh WORKLOAD=open measures it alone).
# PayQL's CPU (user + system clock ticks, /proc/<pid>/stat) around each run: µs per delivery.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$PAYQL_PID/stat"; }
webhook_run() {  # LABEL TAG EVENTS_FILE
  local before ticks_before result ticks after applied payments stored
  before="$(psql_ "SELECT count(*) FROM webhook_events")"
  ticks_before="$(cpu_ticks)"
  result="$(WRK_EVENTS_FILE="$WORK/$3" WRK_THREADS=2 wrk -t2 -c32 -d"${DURATION}s" -s "$HERE/webhooks.lua" http://127.0.0.1:18400 | grep RESULT)"
  ticks="$(( $(cpu_ticks) - ticks_before ))"
  sleep 1
  after="$(psql_ "SELECT count(*) FROM webhook_events")"
  applied="$(psql_ "SELECT count(*) FROM webhook_events WHERE event_id LIKE 'evt\\_$2%' AND outcome = 'APPLIED'")"
  payments="$(psql_ "SELECT count(*) FROM payments WHERE provider_payment_id LIKE 'pay\\_$2%'")"
  stored=$((after - before))
  echo "$1 $result stored=$stored applied=$applied payments=$payments (each event applied once: applied == payments == stored)" \
       "payql_cpu_us_per_delivery=$(( ticks * 1000000 / $(getconf CLK_TCK) / (stored > 0 ? stored : 1) ))"
}
echo "== 3. webhook ingestion: signed Razorpay payment.captured, wrk -t2 -c32 -d${DURATION}s"
python3 "$HERE/load.py" events sandbox_razorpay_webhook_secret "$EVENTS" "$WORK" bench provider-orders events
webhook_run "webhooks" bench events
psql_ "INSERT INTO orders (provider, provider_order_id, provider_status, amount_minor, currency, receipt)
       SELECT 'razorpay', 'order_whk' || lpad(g::text, 9, '0'), 'created', 50000, 'INR', 'whk_' || g FROM generate_series(1, $EVENTS) g" >/dev/null
psql_ "SELECT provider_order_id FROM orders WHERE receipt LIKE 'whk\\_%'" >"$WORK/open-orders"
psql_ "ANALYZE" >/dev/null
python3 "$HERE/load.py" events sandbox_razorpay_webhook_secret "$EVENTS" "$WORK" open open-orders open-events
webhook_run "webhooks-open-orders" open open-events
