#!/usr/bin/env bash
# CPU time a server process spends per request under wrk load — steadier than req/s on a
# shared machine, because other tenants' load changes how much CPU the server gets, not
# how much each request costs. Reads utime+stime from /proc/PID/stat around a wrk run.
#
# Usage: PORT=18096 Benchmarks/http/cpu-per-request.sh BODY.json COMMAND ARGS...
#   e.g. PORT=18096 Benchmarks/http/cpu-per-request.sh /tmp/typename.json \
#          .build-http-release/release/payql serve --port 18096 --workload ../shared/bench/graphql --log-level off
set -euo pipefail
cd "$(dirname "$0")/../.."
BODY=$1
shift
"$@" >/dev/null 2>&1 &
PID=$!
trap 'kill -TERM $PID 2>/dev/null || true' EXIT
sleep 0.7
before=$(awk '{print $14 + $15}' "/proc/$PID/stat")
result=$(WRK_BODY_FILE=$BODY wrk -t2 -c64 -d5s -s Benchmarks/http/post.lua "http://127.0.0.1:$PORT/graphql" | grep '^RESULT')
after=$(awk '{print $14 + $15}' "/proc/$PID/stat")
requests=$(echo "$result" | sed 's/.*requests=\([0-9]*\).*/\1/')
python3 -c "print('%d requests, %.1f us CPU per request' % ($requests, ($after - $before) / $(getconf CLK_TCK) * 1e6 / $requests))"
