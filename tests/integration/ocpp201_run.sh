#!/usr/bin/env bash
# tests/integration/ocpp201_run.sh: OCPP 2.0.1 against the real binary with two independent
# client libraries, then a mixed 1.6 + 2.0.1 fleet. Starts one gateway on a random loopback port
# with a temp data dir, registers one id token, and runs in order:
#   ocpp201_ocpp_rpc_test.cjs   npm ocpp-rpc, strictMode, ocpp2.0.1: every action + a session
#   ocpp201_python_test.py      PyPI ocpp v201 ChargePoint: every action, transactions, seqNo
#                               cases, offline replay, bad input; then the event log (also for
#                               the ocpp-rpc client's charge point)
#   ocpp201_mixed_fleet_test.py 1.6 and 2.0.1 charge points at once; ocpp_version in the log
# Client libraries are installed on first use under ~/.cache/ocppgw/ocpp201 (venv, node).
# Env: OCPPGW_BIN (default build/gateway/ocppgw). Prints "N passed, M failed"; exit 1 on failure.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
here="$root/tests/integration"
OCPPGW_BIN="${OCPPGW_BIN:-$root/build/gateway/ocppgw}"
[ -x "$OCPPGW_BIN" ] || { echo "missing binary $OCPPGW_BIN"; echo "0 passed, 1 failed"; exit 1; }

cache="$HOME/.cache/ocppgw/ocpp201"
mkdir -p "$cache"
if [ ! -x "$cache/venv/bin/python" ] || ! "$cache/venv/bin/python" -c 'import ocpp, websockets' 2>/dev/null; then
  python3 -m venv "$cache/venv" &&
    "$cache/venv/bin/pip" install -q --cache-dir "$HOME/.cache/ocppgw/pip" 'ocpp==2.1.0' websockets ||
    { echo "could not install PyPI ocpp"; echo "0 passed, 1 failed"; exit 1; }
fi
if [ ! -d "$cache/node/node_modules/ocpp-rpc" ]; then
  mkdir -p "$cache/node" &&
    (cd "$cache/node" && npm install --cache "$HOME/.cache/ocppgw/npm" --no-audit --no-fund --silent ocpp-rpc@2) ||
    { echo "could not install npm ocpp-rpc"; echo "0 passed, 1 failed"; exit 1; }
fi

work="$(mktemp -d /tmp/ocppgw-201test.XXXXXX)"
port=$((20000 + RANDOM % 20000))
gw_pid=""
cleanup() {
  [ -n "$gw_pid" ] && kill -TERM "$gw_pid" 2>/dev/null && wait "$gw_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/data"
# The token the samples use; the tests only insist on "Accepted" if this worked.
token_accepted=0
"$OCPPGW_BIN" --data-dir "$work/data" tokens add 04A2B3C4D5E680 --status Accepted \
  >"$work/tokens.log" 2>&1 && token_accepted=1

"$OCPPGW_BIN" --listen "127.0.0.1:$port" --data-dir "$work/data" --log-level warn \
  --unknown-charge-points Accepted >"$work/gateway.log" 2>&1 &
gw_pid=$!
for _ in $(seq 1 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.1
done

export OCPPGW_URL="ws://127.0.0.1:$port/ocpp" OCPPGW_DB="$work/data/ocppgw.db"
export OCPP201_TOKEN_ACCEPTED="$token_accepted" OCPP201_NODE_CP="node201-1"
export OCPP201_ALSO_CHECK="node201-1"
passed=0
failed=0
run() {
  local log="$work/$1.out"
  echo "== $1"
  "${@:2}" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]} line p=0 f=0
  line="$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)"
  if [ -n "$line" ]; then
    p="$(sed -E 's/^([0-9]+) passed.*/\1/' <<<"$line")"
    f="$(sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"$line")"
  fi
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  passed=$((passed + p))
  failed=$((failed + f))
}
run ocpp-rpc env NODE_PATH="$cache/node/node_modules" node "$here/ocpp201_ocpp_rpc_test.cjs"
run python-ocpp "$cache/venv/bin/python" "$here/ocpp201_python_test.py"
run mixed-fleet "$cache/venv/bin/python" "$here/ocpp201_mixed_fleet_test.py"

if kill -0 "$gw_pid" 2>/dev/null; then
  passed=$((passed + 1)); echo "[PASS] gateway alive after the run"
else
  failed=$((failed + 1)); echo "[FAIL] gateway exited during the run"; tail -20 "$work/gateway.log"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
