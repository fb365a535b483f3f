#!/usr/bin/env bash
# SELECT by primary key through PayQL's PostgresPool at 1, 8 and 32 concurrent tasks,
# side by side with `pgbench -S` (simple and -M prepared) at the same client counts,
# on the same database, in the same run. See README.md in this directory.
#
#   Benchmarks/postgres/run.sh                       # embedded cluster in $DATA_DIR
#   Benchmarks/postgres/run.sh --duration 20 --scale 10
#   Benchmarks/postgres/run.sh --database-url postgresql://user@host/db
#
# Extra flags go to `payql-bench postgres` (--tasks, --duration, --scale, --rounds,
# --modes pipelined,pipelined-io,exclusive (a mode may name its pipelined connections:
# pipelined-io:1), --pipelined-connections, --no-pgbench, --database-url, --data-dir).
# Besides queries/s it prints CPU microseconds per statement, client + server.
set -euo pipefail
cd "$(dirname "$0")/../.."

scratch="${SCRATCH_PATH:-.build}"
swift build -c release --product payql-bench --scratch-path "$scratch" >&2
bin="$(swift build -c release --scratch-path "$scratch" --show-bin-path)/payql-bench"

args=("$@")
if [[ " ${args[*]-} " != *" --database-url "* && " ${args[*]-} " != *" --data-dir "* ]]; then
  args+=(--data-dir "${DATA_DIR:-${TMPDIR:-/tmp}/payql-bench-postgres}")
fi

echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
exec "$bin" postgres "${args[@]}"
