#!/usr/bin/env bash
# tests/integration/kafka/run.sh: Kafka end to end with a real Apache Kafka broker (KRaft,
# scripts/kafka.sh) and the real gateway binary. Charge points are PyPI `ocpp` clients
# (fleet.py); the topic is read by kcat (verify.py). Three scenarios, each ending with
# "topic == event log after dedup by event_id, per charge point in events.seq order":
#   steady  N charge points x M frames with the broker up
#   outage  the broker is stopped mid-run while charge points keep sending, then restarted
#   crash   broker down, frames acknowledged into the outbox, gateway kill -9, broker up,
#           gateway restarted: the backlog is delivered
# and, with the broker up, the REST API's remote sessions (python/csms_remote_session_test.py:
# RemoteStart/RequestStart -> transaction -> RemoteStop/RequestStop, 1.6 and 2.0.1) whose
# CsmsCall and transaction events must reach the topic as they reach the event log.
# Env: OCPPGW_BIN (default build/gateway/ocppgw), KAFKA_IT_CPS / KAFKA_IT_FRAMES (default 20/25),
# KAFKA_IT_KEEP=1 keeps the work dir (logs, database, broker data).
# Prints "kafka e2e: N passed, M failed"; exits 1 on any failure.
set -uo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
here="$root/tests/integration/kafka"
OCPPGW_BIN="${OCPPGW_BIN:-$root/build/gateway/ocppgw}"
CPS="${KAFKA_IT_CPS:-20}"
FRAMES="${KAFKA_IT_FRAMES:-25}"
passed=0
failed=0

finish() {
  echo "kafka e2e: $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit $?
}
check() {  # check NAME CONDITION-EXIT-CODE
  if [ "$2" -eq 0 ]; then passed=$((passed + 1)); echo "[PASS] $1"; else failed=$((failed + 1)); echo "[FAIL] $1"; fi
}
# Counts the [PASS]/[FAIL] lines a Python step printed.
tally_py() {
  local log="$1"
  cat "$log"
  passed=$((passed + $(grep -c '^\[PASS\]' "$log")))
  failed=$((failed + $(grep -c '^\[FAIL\]' "$log")))
}

[ -x "$OCPPGW_BIN" ] || { echo "missing binary $OCPPGW_BIN"; failed=1; finish; }
command -v kcat >/dev/null || { echo "kcat is missing (scripts/setup.sh installs it)"; failed=1; finish; }

# The integration tests' venv (PyPI ocpp, websockets, pytest; tests/integration/requirements.txt).
source "$root/tests/integration/common.sh"
ensure_venv "$root" || { echo "could not install tests/integration/requirements.txt"; failed=1; finish; }
py="$venv/bin/python"

work="$(mktemp -d /tmp/ocppgw-kafka-it.XXXXXX)"
kdir="$work/kafka"
gw_pid=""
cleanup() {
  [ -n "$gw_pid" ] && kill -TERM "$gw_pid" 2>/dev/null && wait "$gw_pid" 2>/dev/null
  bash "$root/scripts/kafka.sh" stop "$kdir" >/dev/null 2>&1
  if [ "$failed" -ne 0 ]; then
    echo "--- gateway log (last 40 lines)"; tail -n 40 "$work/gateway.log" 2>/dev/null
    echo "--- broker log (last 20 lines)"; tail -n 20 "$kdir/logs/server.log" 2>/dev/null
  fi
  if [ -n "${KAFKA_IT_KEEP:-}" ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

bash "$root/scripts/kafka.sh" start "$kdir" || { echo "broker did not start"; failed=1; finish; }
brokers="127.0.0.1:$(cat "$kdir/port")"
topic="ocpp-events-it"
gw_port="$("$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
db="$work/data/ocppgw.db"
mkdir -p "$work/data"
cat >"$work/gateway.toml" <<EOF
[kafka]
"stats_log_interval_s" = "5"
"reconnect.backoff.max.ms" = "1000"
EOF

start_gateway() {
  "$OCPPGW_BIN" --config "$work/gateway.toml" --listen "127.0.0.1:$gw_port" --data-dir "$work/data" \
    --kafka-brokers "$brokers" --kafka-topic "$topic" --log-level info >>"$work/gateway.log" 2>&1 &
  gw_pid=$!
  for _ in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$gw_port") 2>/dev/null && return 0
    kill -0 "$gw_pid" 2>/dev/null || break
    sleep 0.1
  done
  return 1
}
outbox_depth() { "$py" -c "import sqlite3,sys; print(sqlite3.connect('file:$db?mode=ro', uri=True, timeout=30).execute('SELECT count(*) FROM outbox').fetchone()[0])"; }
fleet() { "$py" "$here/fleet.py" --url "ws://127.0.0.1:$gw_port/ocpp" "$@"; }
verify() {
  "$py" "$here/verify.py" --db "$db" --brokers "$brokers" --topic "$topic" --label "$1" >"$work/verify.log" 2>&1
  tally_py "$work/verify.log"
}

start_gateway; check "gateway starts with brokers configured" $?
[ "$failed" -eq 0 ] || finish

# --- steady: the broker is up the whole time
fleet --cps "$CPS" --frames "$FRAMES" --prefix A >"$work/fleet.log" 2>&1
rc=$?; cat "$work/fleet.log"; check "steady: every frame acknowledged" $rc
verify steady

# --- remote sessions through the REST API, their events read back from the topic
(cd "$root/tests/integration" && OCPPGW_BIN="$OCPPGW_BIN" OCPPGW_IT_KAFKA_BROKERS="$brokers" \
  "$py" -m pytest -q -p no:cacheprovider python/csms_remote_session_test.py) >"$work/remote.log" 2>&1
rc=$?
tail -n 15 "$work/remote.log"; check "remote sessions: CsmsCall and transaction events on the topic (1.6, 2.0.1)" $rc

# --- outage: stop the broker while charge points keep sending, then bring it back
fleet --cps "$CPS" --frames "$FRAMES" --prefix B --interval-ms 400 >"$work/fleet.log" 2>&1 &
fleet_pid=$!
sleep 1
bash "$root/scripts/kafka.sh" stop "$kdir"
sleep 2
d1="$(outbox_depth)"
sleep 1.5
d2="$(outbox_depth)"
echo "outbox depth during the outage: $d1 -> $d2"
[ "$d2" -gt "$d1" ]; check "outage: the outbox grows while the broker is down" $?
bash "$root/scripts/kafka.sh" start "$kdir"; check "outage: broker restarts on the same port" $?
wait "$fleet_pid"
rc=$?; cat "$work/fleet.log"; check "outage: every frame acknowledged during the outage" $rc
verify outage

# --- crash: broker down, events in the outbox, kill -9 the gateway, broker up, restart
bash "$root/scripts/kafka.sh" stop "$kdir"
fleet --cps "$CPS" --frames "$FRAMES" --prefix C >"$work/fleet.log" 2>&1
rc=$?; cat "$work/fleet.log"; check "crash: frames acknowledged with the broker down" $rc
depth="$(outbox_depth)"
echo "outbox depth before kill -9: $depth"
[ "$depth" -ge $((CPS * FRAMES)) ]; check "crash: the acknowledged events wait in the outbox" $?
kill -KILL "$gw_pid"; wait "$gw_pid" 2>/dev/null; gw_pid=""
bash "$root/scripts/kafka.sh" start "$kdir"; check "crash: broker restarts" $?
start_gateway; check "crash: gateway restarts after kill -9" $?
verify crash

grep -q 'event=kafka.stats' "$work/gateway.log"; check "periodic kafka.stats log lines" $?
echo "publisher: $(grep -c 'event=kafka.fatal_error' "$work/gateway.log") fatal error(s), $(grep -c 'event=kafka.delivery_failed' "$work/gateway.log") failed deliveries, $(grep -c 'event=kafka.client_error' "$work/gateway.log") client error lines"

# --- tools against the real broker: kafka-tail reads the whole topic, kafka-replay feeds it into
# a fresh analytics store (its own data dir: the running gateway owns its analytics.db)
messages="$(kcat -C -b "$brokers" -t "$topic" -o beginning -e -q -f 'x\n' | wc -l)"
tailed="$("$OCPPGW_BIN" --data-dir "$work/tools" kafka-tail -b "$brokers" -t "$topic" --until-end \
  --timeout 30 --format value 2>"$work/tail.err" | grep -c '"event_id"')"
echo "kafka-tail: $tailed of $messages messages"
[ "$messages" -gt 0 ] && [ "$tailed" -eq "$messages" ]; check "kafka-tail prints every message of the topic" $?
replay="$("$OCPPGW_BIN" --data-dir "$work/tools" kafka-replay -b "$brokers" -t "$topic" --until-end \
  --timeout 30 2>"$work/replay.err")"
echo "kafka-replay: $replay"; [ -n "$replay" ] || tail -n 5 "$work/replay.err"
"$py" - "$replay" "$messages" <<'PY'
import json, sys
r = json.loads(sys.argv[1]); n = int(sys.argv[2])
ok = r["messages"] == n and r.get("conservation_ok") is True and r["silver"] > 0
sys.exit(0 if ok else 1)
PY
check "kafka-replay feeds every message into the analytics pipeline" $?
finish
