#!/usr/bin/env bash
# tests/browser/run.sh: the operator status page (web/static) in real Chromium against the
# real binary (env OCPPGW_BIN, default build/gateway/ocppgw; OCPPSIM_BIN for the scale test).
# Chromium is Debian's (/usr/bin/chromium, installed by scripts/setup.sh); npm playwright-core
# drives it and ocpp-rpc plays charge points, both installed here with `npm ci` when missing
# (cache ~/.cache/ocppgw/npm). Runs *.test.cjs with node's test runner; screenshots go to
# tests/browser/artifacts/. Ends with the line "N passed, M failed"; exits non-zero on failure.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export OCPPGW_BIN="${OCPPGW_BIN:-$root/build/gateway/ocppgw}"
export OCPPSIM_BIN="${OCPPSIM_BIN:-$root/build/sim/ocppsim}"
fail() { echo "browser: $1"; echo "0 passed, 1 failed"; exit 1; }
[ -x "$OCPPGW_BIN" ] || fail "no binary at $OCPPGW_BIN (set OCPPGW_BIN)"
[ -x "$OCPPSIM_BIN" ] || fail "no simulator at $OCPPSIM_BIN (set OCPPSIM_BIN)"
[ -x "${CHROMIUM_BIN:-/usr/bin/chromium}" ] || fail "no Chromium (scripts/setup.sh installs Debian's chromium)"
if [ ! -d "$here/node_modules/playwright-core" ] || [ ! -d "$here/node_modules/ocpp-rpc" ]; then
  (cd "$here" && npm ci --cache "$HOME/.cache/ocppgw/npm" --no-audit --no-fund --silent) || fail "npm ci failed"
fi
rm -rf "$here/artifacts"
mkdir -p "$here/artifacts"

log="$(mktemp)"
(cd "$here" && timeout 600 node --test --test-concurrency=1 --test-reporter=spec ./*.test.cjs) 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
p=$(sed -nE 's/^.*ℹ pass ([0-9]+).*$/\1/p' "$log" | tail -1)
f=$(sed -nE 's/^.*ℹ fail ([0-9]+).*$/\1/p' "$log" | tail -1)
rm -f "$log"
p=${p:-0}; f=${f:-0}
[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
echo "screenshots: $here/artifacts"
echo "$p passed, $f failed"
[ "$rc" -eq 0 ] && [ "$f" -eq 0 ]
