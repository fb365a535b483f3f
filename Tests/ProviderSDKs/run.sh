#!/usr/bin/env bash
# The providers' official Python SDKs (PyPI: razorpay, cashfree-pg) used as
# independent clients against `payql sandbox`. Prints `N passed, N failed`;
# exits non-zero on any failure.
#
#   Tests/ProviderSDKs/run.sh            # builds payql (debug) if needed
#   PAYQL_BIN=/path/to/payql Tests/ProviderSDKs/run.sh
#
# The venv lives in Tests/ProviderSDKs/.venv (created once, python3 -m venv);
# the base-URL knobs used for each SDK are described in sdk_check.py.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$here/.venv"

if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c 'import razorpay, cashfree_pg' 2>/dev/null; then
  "$venv/bin/pip" install --quiet --disable-pip-version-check razorpay==2.0.1 cashfree-pg==6.0.1
fi

if [ -z "${PAYQL_BIN:-}" ]; then
  (cd "$root" && swift build --product payql >&2)
  PAYQL_BIN="$(cd "$root" && swift build --product payql --show-bin-path)/payql"
fi

exec timeout 120 "$venv/bin/python" "$here/sdk_check.py" "$PAYQL_BIN"
