#!/usr/bin/env bash
# bench/baselines/install.sh: installs the baselines' packages into this folder (node_modules/
# and .venv/, both git-ignored), with download caches under ~/.cache/ocppgw. Idempotent.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${HOME}/.cache/ocppgw"
mkdir -p "$cache/npm" "$cache/pip"
if [ ! -d "$here/node_modules/ocpp-rpc" ]; then
  npm install --prefix "$here" --cache "$cache/npm" --no-audit --no-fund --loglevel=error >&2
fi
if [ ! -x "$here/.venv/bin/python" ] || ! "$here/.venv/bin/python" -c 'import ocpp, websockets' 2>/dev/null; then
  python3 -m venv "$here/.venv"
  "$here/.venv/bin/pip" install --quiet --cache-dir "$cache/pip" -r "$here/requirements.txt" >&2
fi
