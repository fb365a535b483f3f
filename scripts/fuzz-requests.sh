#!/bin/sh
# Fuzzes the whole GraphQL request pipeline (JSON body or GET query → variables →
# coercion → execution → response) for longer than `make test` does, with a
# seed of your choice (not part of CI). Usage:
#   scripts/fuzz-requests.sh [ITERATIONS] [SEED]   (default 200000, seed: the time)
#
# Runs Tests/GraphQLHTTPTests/RequestPipelineFuzzTests.swift, which calls the
# handler directly (no sockets). A failure prints the request number and seed;
# re-run with the same ITERATIONS and SEED to reproduce it. A trap ends the
# test process with a signal: the seed is printed first so the run can be repeated.
set -eu
iterations=${1:-200000}
seed=${2:-$(date +%s)}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
echo "fuzz-requests: $iterations requests, seed $seed"
swift build --build-tests
PAYQL_FUZZ_ITERATIONS=$iterations PAYQL_FUZZ_SEED=$seed \
    exec swift test --skip-build --filter 'RequestPipelineFuzzTests'
