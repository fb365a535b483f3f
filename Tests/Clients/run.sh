#!/usr/bin/env bash
# Real clients against a real `payql serve` with the in-process sandbox (issue 12, "Real clients work
# unchanged"): the Python `gql` client's Cashfree and Razorpay flows, graphql-js buildClientSchema vs
# /schema.graphql and an Apollo-style APQ round trip (Debian's node-graphql), and a bounded schemathesis
# run in GraphQL mode with a SECRET key (0 HTTP 5xx, 0 INTERNAL, 0 hangs).
#
#   Tests/Clients/run.sh                         # builds payql (debug) if PAYQL_BIN is not set
#   PAYQL_BIN=/path/to/payql Tests/Clients/run.sh
#   SCHEMATHESIS_EXAMPLES=200 SCHEMATHESIS_SEED=7 Tests/Clients/run.sh   # a longer or another run
#
# The Python packages (requirements.txt, every version pinned) go into .build/clients-venv, created
# once. Prints each part's `N passed, N failed` and exits non-zero when any part fails.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$root/.build/clients-venv"

if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
if ! cmp -s "$here/requirements.txt" "$venv/requirements.installed" 2>/dev/null; then
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
  cp "$here/requirements.txt" "$venv/requirements.installed"
fi

if [ -z "${PAYQL_BIN:-}" ]; then
  (cd "$root" && swift build --product payql >&2)
  PAYQL_BIN="$(cd "$root" && swift build --show-bin-path)/payql"
fi

work="$(mktemp -d)"
server=""
cleanup() {
  if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then
    kill -TERM "$server" 2>/dev/null || true
    for _ in $(seq 1 300); do kill -0 "$server" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$server" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# A free port for PayQL (the sandbox posts its webhooks to it, so it cannot be 0).
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"$PAYQL_BIN" serve --port "$port" --data-dir "$work/postgres" --dev-keys-dir "$work/keys" --log-level warning >"$work/serve.log" 2>&1 &
server=$!
for _ in $(seq 1 1200); do
  [ -s "$work/keys/dev-keys" ] && grep -q "^PayQL is serving" "$work/serve.log" && break
  kill -0 "$server" 2>/dev/null || { cat "$work/serve.log" >&2; echo "payql serve exited before serving" >&2; exit 1; }
  sleep 0.1
done
url="http://127.0.0.1:$port"
sandbox="$(sed -n 's/^PayQL is serving .*(providers: the sandbox at \(http[^)]*\)).*/\1/p' "$work/serve.log" | head -1)"
secret="$(sed -n 's/^PAYQL_SECRET_KEY=//p' "$work/keys/dev-keys")"
if [ -z "$sandbox" ] || [ -z "$secret" ]; then
  cat "$work/serve.log" >&2
  echo "payql serve did not print its sandbox URL and keys" >&2
  exit 1
fi

status=0
echo "gql (Python) flows against $url"
timeout 300 "$venv/bin/python" "$here/gql_flows.py" "$url" "$sandbox" "$secret" || status=1
echo "graphql-js client schema and APQ"
timeout 120 node "$here/graphql_js.js" "$url" "$secret" || status=1

# Bounded: ~50 operations × SCHEMATHESIS_EXAMPLES cases; a request that takes 30 s counts as a hang
# (an error, non-zero exit). `payql_server_error` (schemathesis_hooks.py) is HTTP 5xx or INTERNAL.
examples="${SCHEMATHESIS_EXAMPLES:-15}"
seed="${SCHEMATHESIS_SEED:-20261201}"
echo "schemathesis (GraphQL, SECRET key, --max-examples $examples --seed $seed)"
if (cd "$work" && SCHEMATHESIS_HOOKS=schemathesis_hooks PYTHONPATH="$here" timeout 600 \
      "$venv/bin/schemathesis" run "$url/graphql" -H "Authorization: Bearer $secret" \
      --checks payql_server_error --max-examples "$examples" --seed "$seed" \
      --request-timeout 30 --workers 2 --no-color --warnings off >"$work/schemathesis.txt" 2>&1); then
  sed -n '/^Test cases:/,$p' "$work/schemathesis.txt" | grep -v '^$'
  echo "1 passed, 0 failed"
else
  cat "$work/schemathesis.txt"
  echo "0 passed, 1 failed (schemathesis)"
  status=1
fi

if ! kill -0 "$server" 2>/dev/null; then
  echo "payql serve is no longer running" >&2
  status=1
fi
exit "$status"
