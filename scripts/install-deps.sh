#!/usr/bin/env bash
# Installs what PayQL needs from Debian's packages, only what is missing.
# Runs apt-get as root, or through sudo when not root.
set -euo pipefail

packages=(
  pkg-config
  libpq-dev libcurl4-openssl-dev libssl-dev libmicrohttpd-dev   # C libraries PayQL links
  postgresql                                                  # embedded cluster for run and tests
  node-graphql nodejs                                         # graphql-js: differential checks, benchmarks
  wrk                                                         # HTTP benchmarks
  python3-venv                                                # provider SDK and client checks (PyPI)
  docker-compose                                              # `docker-compose config` checks docker/docker-compose.yml
  chromium chromium-driver python3-selenium                   # the ops page's browser test
)

missing=()
for package in "${packages[@]}"; do
  [[ "$package" == \#* ]] && continue
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "install-deps: missing packages (${missing[*]}) and no root or sudo to install them" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
