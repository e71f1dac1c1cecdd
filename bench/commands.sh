#!/usr/bin/env bash
# bench/commands.sh: CSMS commands through the REST API to a fleet of simulated charge points
# while the fleet keeps sending its normal load, against the real gateway on loopback. One run,
# two phases of DUR seconds each against the same gateway, side by side:
#   fleet only       ocppsim: N charge points (1.6) sending the MeterValues-heavy load mix,
#                    paced at RATE CALLs/s in all (0: as fast as the window allows)
#   fleet + commands the same, while bench/commands_driver.cjs sends
#                    POST /api/v1/charge-points/{id}/calls/ACTION from CONCURRENCY workers,
#                    round robin over the N charge points (bearer token of the first admin);
#                    ocppsim answers each CALL after DELAY_MS with a schema-valid CALLRESULT
# plus, first, the commands alone to the same N charge points connected but idle (the API's own
# capacity). Prints commands per second and the p50/p99 of the API round trip, and the fleet's own
# acknowledged CALLs/s and ack latency in both phases; appends them to
# bench/results/commands-<UTC time>.{txt,json}.
# Environment: OCPPGW_BIN, OCPPSIM_BIN (default build/...), PORT (18180), N (1000), RATE (2000),
# INFLIGHT (1), DUR (20 s), CONCURRENCY (64), DELAY_MS (0), ACTION (ChangeConfiguration),
# PAYLOAD ('{"key":"HeartbeatInterval","value":"300"}').
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
OCPPGW_BIN="${OCPPGW_BIN:-$root/build/gateway/ocppgw}"
OCPPSIM_BIN="${OCPPSIM_BIN:-$root/build/sim/ocppsim}"
PORT="${PORT:-18180}"
N="${N:-1000}"
RATE="${RATE:-2000}"
INFLIGHT="${INFLIGHT:-1}"
DUR="${DUR:-20}"
CONCURRENCY="${CONCURRENCY:-64}"
DELAY_MS="${DELAY_MS:-0}"
ACTION="${ACTION:-ChangeConfiguration}"
PAYLOAD="${PAYLOAD:-}"
[ -n "$PAYLOAD" ] || PAYLOAD='{"key":"HeartbeatInterval","value":"300"}'
WARMUP=6  # the fleet connects and boots; excluded from its sustained figures
results="$root/bench/results"
mkdir -p "$results"
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
txt="$results/commands-$stamp.txt"
json="$results/commands-$stamp.json"
work="$(mktemp -d /tmp/ocppgw-bench-commands.XXXXXX)"
echo '{}' >"$json"
ulimit -n "$(ulimit -Hn)"
GW_PID=""
SIM_PID=""
cleanup() {
  [ -n "$SIM_PID" ] && kill -TERM "$SIM_PID" 2>/dev/null && wait "$SIM_PID" 2>/dev/null
  [ -n "$GW_PID" ] && kill -TERM "$GW_PID" 2>/dev/null && wait "$GW_PID" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

say() { echo "$*" | tee -a "$txt"; }
put() { jq --argjson v "$2" ".$1 = \$v" "$json" >"$json.tmp" && mv "$json.tmp" "$json"; }
fig() { jq -r "$2" "$1"; }
wait_health() {
  for _ in $(seq 1 200); do
    curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && return 0
    sleep 0.1
  done
  echo "the gateway did not come up on port $PORT" >&2
  return 1
}

# idle_phase: the N charge points connected and idle while the driver runs for DUR s.
idle_phase() {
  local report="$work/fleet-idle.json"
  "$OCPPSIM_BIN" --url "ws://127.0.0.1:$PORT/ocpp" -n "$N" --connectors 2 --sessions-per-hour 0 --heartbeat 0 \
    --duration $((WARMUP + DUR + 2)) --drain 5 --connect-rate 2000 --csms-answer result \
    --csms-answer-delay "$DELAY_MS" --first-index 1 --id-pattern 'SIM-{05d}' --source 127.0.0.2 127.0.0.3 \
    --report "$report" >"$report.out" 2>"$report.err" &
  SIM_PID=$!
  sleep "$WARMUP"
  node "$root/bench/commands_driver.cjs" --port "$PORT" --token "$TOKEN" --count "$N" \
    --concurrency "$CONCURRENCY" --duration "$DUR" --action "$ACTION" --payload "$PAYLOAD" \
    >"$work/driver-idle.json" 2>"$work/driver-idle.err"
  wait "$SIM_PID" || true
  SIM_PID=""
}

# fleet_phase NAME: the fleet's load for WARMUP + DUR s; with NAME=commands the driver runs
# during the window after the warm-up, which is what both phases measure.
fleet_phase() {
  local name="$1" report="$work/fleet-$1.json"
  "$OCPPSIM_BIN" --url "ws://127.0.0.1:$PORT/ocpp" --mode load -n "$N" --connectors 2 \
    --max-inflight "$INFLIGHT" --rate "$RATE" --duration $((WARMUP + DUR)) --warmup "$WARMUP" --drain 20 \
    --connect-rate 2000 --heartbeat 0 --csms-answer result --csms-answer-delay "$DELAY_MS" \
    --source 127.0.0.2 127.0.0.3 --report "$report" >"$report.out" 2>"$report.err" &
  SIM_PID=$!
  if [ "$name" = commands ]; then
    # Ends a second before the fleet does, so no command meets a charge point going away.
    sleep "$WARMUP"
    node "$root/bench/commands_driver.cjs" --port "$PORT" --token "$TOKEN" --count "$N" \
      --concurrency "$CONCURRENCY" --duration $((DUR - 1)) --action "$ACTION" --payload "$PAYLOAD" \
      >"$work/driver.json" 2>"$work/driver.err"
  fi
  wait "$SIM_PID" || true
  SIM_PID=""
}

say "# bench/commands.sh at $stamp"
say "machine: $(nproc) cores, $(awk '/model name/{$1=$2=$3="";print;exit}' /proc/cpuinfo | xargs), $(free -g | awk '/Mem:/{print $2}') GiB RAM"
say "== $N charge points (1.6, 2 connectors, $INFLIGHT in flight), fleet paced at $RATE CALLs/s (0: unpaced), ${DUR}s per phase; commands: $ACTION from $CONCURRENCY concurrent API clients, answered after ${DELAY_MS} ms"
data="$work/gw-data"
mkdir -p "$data"
OCPPGW_ADMIN_PASSWORD="bench admin password" "$OCPPGW_BIN" --listen "127.0.0.1:$PORT" --data-dir "$data" \
  --log-level warn --max-messages-per-second 1000000 --max-connections-per-address 0 \
  --unknown-tokens Accepted --heartbeat-interval 300 >"$data/gateway.log" 2>&1 &
GW_PID=$!
wait_health
TOKEN="$(curl -sf -H 'Content-Type: application/json' -d '{"name":"admin","password":"bench admin password"}' \
  "http://127.0.0.1:$PORT/api/v1/session" | jq -r .token)"

idle_phase
fleet_phase alone
fleet_phase commands

a="$work/fleet-alone.json" c="$work/fleet-commands.json" d="$work/driver.json" i="$work/driver-idle.json"
say "commands, idle fleet:  $(fig "$i" '.ok_per_s | floor')/s answered CallResult ($(fig "$i" '.calls') calls: $(fig "$i" '.by_outcome | to_entries | map("\(.key) \(.value)") | join(", ")')), API round trip p50 $(fig "$i" '.p50_us')us p99 $(fig "$i" '.p99_us')us p999 $(fig "$i" '.p999_us')us"
say "commands, fleet load:  $(fig "$d" '.ok_per_s | floor')/s answered CallResult ($(fig "$d" '.calls') calls: $(fig "$d" '.by_outcome | to_entries | map("\(.key) \(.value)") | join(", ")')), API round trip p50 $(fig "$d" '.p50_us')us p99 $(fig "$d" '.p99_us')us p999 $(fig "$d" '.p999_us')us"
say "fleet CALLs acknowledged, alone:         $(fig "$a" '.run.sustained_calls_per_s | floor')/s, ack p50 $(fig "$a" '.run.steady_latency.p50_us')us p99 $(fig "$a" '.run.steady_latency.p99_us')us (errors $(fig "$a" '.run.call_errors'), timeouts $(fig "$a" '.run.timeouts'))"
say "fleet CALLs acknowledged, with commands: $(fig "$c" '.run.sustained_calls_per_s | floor')/s, ack p50 $(fig "$c" '.run.steady_latency.p50_us')us p99 $(fig "$c" '.run.steady_latency.p99_us')us (errors $(fig "$c" '.run.call_errors'), timeouts $(fig "$c" '.run.timeouts'); CALLs from the gateway answered $(fig "$c" '.run.csms_calls'))"
say "fleet throughput with commands / alone: $(jq -n "$(fig "$c" '.run.sustained_calls_per_s') / $(fig "$a" '.run.sustained_calls_per_s') * 1000 | floor / 1000")"
put config "{\"charge_points\": $N, \"fleet_rate\": $RATE, \"inflight\": $INFLIGHT, \"duration_s\": $DUR, \"concurrency\": $CONCURRENCY, \"delay_ms\": $DELAY_MS, \"action\": \"$ACTION\"}"
put commands "$(cat "$d")"
put commands_idle_fleet "$(cat "$i")"
put fleet_alone "$(jq .run "$a")"
put fleet_with_commands "$(jq .run "$c")"
say "results: $txt $json"
