#!/usr/bin/env bash
# tests/integration/sim/run.sh: the fault-injection run. A few hundred simulated charge points
# (1.6 and 2.0.1) with every fault on drive the real gateway for ~30 s; ocppsim then compares
# its ground truth with the gateway's event log and analytics tables (energy of every final
# session, conservation law, duplicate and quarantine counts) and that comparison is the
# assertion. Env: OCPPGW_BIN, OCPPSIM_BIN; SIM_COUNT (300), SIM_DURATION (25).
# Prints "N passed, M failed" and exits non-zero on any failure.
set -uo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
OCPPGW_BIN="${OCPPGW_BIN:-$root/build/gateway/ocppgw}"
OCPPSIM_BIN="${OCPPSIM_BIN:-$root/build/sim/ocppsim}"
for b in "$OCPPGW_BIN" "$OCPPSIM_BIN"; do
  [ -x "$b" ] || { echo "missing binary $b"; echo "0 passed, 1 failed"; exit 1; }
done
work="$(mktemp -d /tmp/ocppgw-simtest.XXXXXX)"
port=$((20000 + RANDOM % 20000))
gw_pid=""
cleanup() {
  [ -n "$gw_pid" ] && kill -TERM "$gw_pid" 2>/dev/null && wait "$gw_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

"$OCPPGW_BIN" --listen "127.0.0.1:$port" --data-dir "$work/data" --log-level warn \
  --heartbeat-interval 10 --max-messages-per-second 1000 >"$work/gateway.log" 2>&1 &
gw_pid=$!
for _ in $(seq 1 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.1
done

"$OCPPSIM_BIN" --url "ws://127.0.0.1:$port/ocpp" -n "${SIM_COUNT:-300}" --fraction-201 0.3 \
  --connectors 2 --heartbeat 5 --meter-interval 1 --sessions-per-hour 400 --session-duration 6 \
  --duration "${SIM_DURATION:-25}" --drain 25 --connect-rate 200 --all-faults --offline-duration 3 \
  --seed "${SIM_SEED:-7}" --progress 5 \
  --gateway-db "$work/data/ocppgw.db" --analytics-db "$work/data/analytics.db" \
  --report "$work/report.json" | tee "$work/sim.out"
sim_rc=${PIPESTATUS[0]}

line="$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$work/sim.out" | tail -1)"
passed="$(sed -E 's/^([0-9]+) passed.*/\1/' <<<"${line:-0 passed}")"
failed="$(sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"${line:-0 passed, 1 failed}")"
# The gateway must have survived every injected fault.
if kill -0 "$gw_pid" 2>/dev/null; then
  passed=$((passed + 1)); echo "[PASS] gateway alive after the run"
else
  failed=$((failed + 1)); echo "[FAIL] gateway exited during the run"; tail -20 "$work/gateway.log"
fi
# Errors the gateway logged (one line per error) are shown for diagnosis, not counted.
grep -ciE '"level":"error"|\[error\]' "$work/gateway.log" | sed 's/^/gateway error lines: /'
if [ "$sim_rc" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
