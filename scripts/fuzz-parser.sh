#!/bin/sh
# Fuzzes the GraphQL parser and printer with libFuzzer for a bounded time
# (not part of CI). Usage: scripts/fuzz-parser.sh [SECONDS]   (default 60)
#
# Builds Sources/PayQLFuzz in release with -sanitize=fuzzer into .build-fuzz,
# seeds a working corpus from Tests/GraphQLDifferential/corpus/format, and runs.
# Crashing inputs are written to .build-fuzz/artifacts/; reproduce one with
#   .build-fuzz/release/PayQLFuzz .build-fuzz/artifacts/crash-...
set -eu
seconds=${1:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
swift build --scratch-path .build-fuzz -c release --product PayQLFuzz \
    -Xswiftc -sanitize=fuzzer -Xswiftc -DPAYQL_FUZZING
mkdir -p .build-fuzz/corpus .build-fuzz/artifacts
cp Tests/GraphQLDifferential/corpus/format/*.graphql .build-fuzz/corpus/
exec .build-fuzz/release/PayQLFuzz .build-fuzz/corpus \
    -max_total_time="$seconds" -max_len=4096 -timeout=5 -rss_limit_mb=1024 \
    -artifact_prefix=.build-fuzz/artifacts/ -print_final_stats=1
