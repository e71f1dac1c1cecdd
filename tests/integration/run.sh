#!/usr/bin/env bash
# tests/integration/run.sh: integration tests against the real `ocppgw` binary (env OCPPGW_BIN,
# default build/gateway/ocppgw). Installs its client libraries into project-local folders when
# missing: npm packages into tests/integration/node_modules (npm ci, cache ~/.cache/ocppgw/npm),
# PyPI packages into .venv (cache ~/.cache/ocppgw/pip). Runs
#   node/*.test.cjs    npm ocpp-rpc (strictMode, ocpp1.6) + ws, with node's test runner
#   python/            PyPI ocpp v16 ChargePoint over websockets, with pytest
#   ocpp201_run.sh     the OCPP 2.0.1 suites, when present
#   security/run.sh    security profiles 1-3 (wss, HTTP Basic, client certificates)
#   robustness/run.sh  attacks (floods, oversize frames, descriptor exhaustion, ...) while
#                      well-behaved charge points run: their latency, /health, memory, disk
# Prints each runner's summary and a final "N passed, M failed"; exits non-zero on any failure.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export OCPPGW_BIN="${OCPPGW_BIN:-$root/build/gateway/ocppgw}"
if [ ! -x "$OCPPGW_BIN" ]; then
  echo "integration: no binary at $OCPPGW_BIN (set OCPPGW_BIN)"
  echo "0 passed, 1 failed"
  exit 1
fi

passed=0
failed=0
add() { passed=$((passed + $1)); failed=$((failed + $2)); }

# ---- dependencies ----
if [ ! -d "$here/node_modules/ocpp-rpc" ] || [ ! -d "$here/node_modules/ws" ]; then
  (cd "$here" && npm ci --cache "$HOME/.cache/ocppgw/npm" --no-audit --no-fund --silent) ||
    { echo "integration: npm ci failed"; echo "0 passed, 1 failed"; exit 1; }
fi
source "$here/common.sh"
ensure_venv "$root" || { echo "integration: pip install failed"; echo "0 passed, 1 failed"; exit 1; }

# ---- node: ocpp-rpc ----
log="$(mktemp)"
(cd "$here" && node --test --test-concurrency=1 --test-reporter=spec node/) 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
p=$(sed -nE 's/^.*ℹ pass ([0-9]+).*$/\1/p' "$log" | tail -1)
f=$(sed -nE 's/^.*ℹ fail ([0-9]+).*$/\1/p' "$log" | tail -1)
p=${p:-0}; f=${f:-0}
[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
echo "node (ocpp-rpc): $p passed, $f failed"
add "$p" "$f"

# ---- python: PyPI ocpp ----
(cd "$root" && "$venv/bin/python" -m pytest -q -p no:cacheprovider "$here/python") 2>&1 | tee "$log"
count_pytest "$log" "${PIPESTATUS[0]}"
echo "python (ocpp): $p passed, $f failed"
add "$p" "$f"

# ---- OCPP 2.0.1 suites (their own runner) ----
if [ -f "$here/ocpp201_run.sh" ]; then
  bash "$here/ocpp201_run.sh" 2>&1 | tee "$log"
  count_runner "$log" "${PIPESTATUS[0]}"
  echo "ocpp201: $p passed, $f failed"
  add "$p" "$f"
fi
# ---- security profiles (their own runner) ----
if [ -f "$here/security/run.sh" ]; then
  bash "$here/security/run.sh" 2>&1 | tee "$log"
  count_runner "$log" "${PIPESTATUS[0]}"
  add "$p" "$f"
fi
# ---- robustness under attack (its own runner) ----
if [ -f "$here/robustness/run.sh" ]; then
  bash "$here/robustness/run.sh" 2>&1 | tee "$log"
  count_runner "$log" "${PIPESTATUS[0]}"
  add "$p" "$f"
fi
rm -f "$log"

echo "integration: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
