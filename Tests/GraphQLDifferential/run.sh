#!/bin/sh
# Differential check of `payql graphql format|validate` against graphql-js.
# Uses $PAYQL if set, else builds the payql product (debug) and uses it.
# Last line: "N passed, N failed"; exit status non-zero on an unexplained disagreement.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
if [ -z "${PAYQL:-}" ]; then
    if ! output=$(cd "$root" && swift build --product payql 2>&1); then
        printf '%s\n' "$output" >&2
        echo "0 passed, 1 failed (payql does not build)"
        exit 1
    fi
    PAYQL="$(cd "$root" && swift build --show-bin-path)/payql"
fi
exec node "$here/compare.js" "$PAYQL" "$here/corpus" "$here/exceptions.txt"
