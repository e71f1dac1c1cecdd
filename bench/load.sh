#!/usr/bin/env bash
# bench/load.sh [throughput|paced|connections|connections-tls|storm|baselines|delta|nodes|targets|all]: load benchmarks of the real
# gateway driven by ocppsim, on loopback, each with a fresh temporary data dir and a bounded
# run time. Prints figures and appends them to bench/results/load-<UTC time>.{txt,json}.
#   throughput   sustained acknowledged CALLs/s (ack-after-durable) for a MeterValues-heavy mix
#                with N connections and W in-flight CALLs each, then p50/p99 latency when paced
#                at 25/50/75% of that rate; PROFILE=1 adds a perf profile of the gateway,
#                SYSCALLS=1 its sendmsg/recvfrom/epoll calls per CALL at saturation,
#                THREAD_CPU=1 the CPU time per CALL of each gateway and simulator thread
#   paced        one CALL in flight per charge point at PACED_RATE: p50/p99/p999, and per
#                acknowledged CALL each thread's CPU time and bytes sent to storage, with the
#                event sink's frames per commit (what a steady, unsaturated fleet costs)
#   connections  idle charge points with heartbeats; gateway VmRSS per connection
#   connections-tls  the same over plain ws and then over wss (TLS 1.3, server certificate from
#                certs/make-dev-certs.sh, no client certificates) in one run: RSS per
#                connection of each and the TLS overhead
#   storm        every charge point drops and reconnects at once (boot + status + backlog);
#                time until all are booted and their backlog is acknowledged
#   baselines    the throughput workload against minimal CSMSs on npm ocpp-rpc and PyPI ocpp
#                (bench/baselines/) and against ocppgw, in one run; ratios
#   delta        the throughput workload with the Delta mirror off and then running every 10 s
#                (DELTA_INTERVAL), in one run, alternating twice: sustained CALLs/s of each, the
#                ratio, and the mirror's cycles during the runs
#   targets      every row of the performance table (BENCHMARKS.md, "Performance, second step") in
#                one run, each beside its target: dispatch_bench, analytics_bench
#                (ANALYTICS_EVENTS), sustained CALLs/s with Kafka off and on, the same workload on
#                npm ocpp-rpc, p99 with one CALL in flight per charge point paced at PACED_RATE
#                on ocpp-rpc and on ocppgw, RSS per idle ws and wss connection (TARGET_CONNS);
#                then the unpaced and the paced gateway run again with the data dir on tmpfs
#                (RAM_DIR), printed apart from the table: how much of each the disk costs
#   nodes        where one process cannot hold enough sockets (open-file limit): NODES_CONNS idle
#                charge points over NODES gateway processes on this machine (each its own data
#                dir, port and --node-index, as a multi-node deployment), RSS per connection
#                summed over the nodes; then a reconnect storm of NODES_STORM charge points over
#                as many nodes as it needs, time until the last node has drained
# Environment: OCPPGW_BIN, OCPPSIM_BIN (default build/...), PORT (18180), N (200), KAFKA=1
# (throughput with a local KRaft broker started by scripts/kafka.sh),
# INFLIGHT (8), DUR (20 s), CONN_COUNTS ("10000 19000"), STORM_N (19000), STORM_BACKLOG (2),
# CONNECT_RATE (2000/s: how fast `connections` opens its charge points; a 2-core machine
# completes ~500 TLS handshakes/s beside the simulator, so wss runs there need ~400),
# NODES_CONNS (100000), NODES_CONNECT_RATE (2000/s in all), NODES_STORM (50000; 0: skip),
# PER_NODE (19000), ANALYTICS_EVENTS (10000000), PACED_RATE (5000), TARGET_CONNS (19500),
# TARGET_CONNECT_RATE (400/s: the connect rate of the memory rows of `targets`),
# BENCH_DIR (build/bench), RAM_DIR (/dev/shm: where `targets` puts the data dir of its two
# attribution runs; skipped when not writable).
# The per-process open-file limit caps connection counts (hard limit here: see `ulimit -Hn`).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
OCPPGW_BIN="${OCPPGW_BIN:-$root/build/gateway/ocppgw}"
OCPPSIM_BIN="${OCPPSIM_BIN:-$root/build/sim/ocppsim}"
PORT="${PORT:-18180}"
N="${N:-200}"
INFLIGHT="${INFLIGHT:-8}"
DUR="${DUR:-20}"
CONN_COUNTS="${CONN_COUNTS:-10000 19000}"
STORM_N="${STORM_N:-19000}"
STORM_BACKLOG="${STORM_BACKLOG:-2}"
CONNECT_RATE="${CONNECT_RATE:-2000}"
# SYSCALLS=1: the throughput run also counts the gateway's system calls (perf tracepoints).
SYSCALL_EVENTS="syscalls:sys_enter_sendmsg,syscalls:sys_enter_recvfrom,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_epoll_ctl"
results="$root/bench/results"
mkdir -p "$results"
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
txt="$results/load-$stamp.txt"
json="$results/load-$stamp.json"
work="$(mktemp -d /tmp/ocppgw-bench.XXXXXX)"
echo '{}' >"$json"
ulimit -n "$(ulimit -Hn)"
GW_PID=""
BASE_PID=""

KAFKA_DIR=""
NODE_PIDS=()
SIM_PIDS=()
cleanup() {
  [ -n "$GW_PID" ] && kill -TERM "$GW_PID" 2>/dev/null && wait "$GW_PID" 2>/dev/null
  [ -n "${GW_DATA:-}" ] && rm -rf "$GW_DATA"  # may lie outside $work (GW_DATA_ROOT)
  for p in "${SIM_PIDS[@]}" "${NODE_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
  for p in "${SIM_PIDS[@]}" "${NODE_PIDS[@]}"; do wait "$p" 2>/dev/null; done
  [ -n "$KAFKA_DIR" ] && bash "$root/scripts/kafka.sh" stop "$KAFKA_DIR" >/dev/null 2>&1
  [ -n "$BASE_PID" ] && kill -TERM "$BASE_PID" 2>/dev/null && wait "$BASE_PID" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

say() { echo "$*" | tee -a "$txt"; }
# put KEY JSON: records a value in the results JSON.
put() { jq --argjson v "$2" ".$1 = \$v" "$json" >"$json.tmp" && mv "$json.tmp" "$json"; }
rss_kb() { awk '/^VmRSS/{print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
wait_port() {
  for _ in $(seq 1 200); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "nothing listens on port $1" >&2
  return 1
}

# start_gateway [gateway args]: a gateway on a fresh data dir under GW_DATA_ROOT (default: the
# run's work dir, on the disk /tmp is on).
start_gateway() {
  local data="${GW_DATA_ROOT:-$work}/gw-data-$RANDOM"
  mkdir -p "$data"
  "$OCPPGW_BIN" --listen "127.0.0.1:$PORT" --data-dir "$data" --log-level warn \
    --max-messages-per-second 1000000 --max-connections-per-address 0 --unknown-tokens Accepted \
    --heartbeat-interval 300 "$@" >"$data/gateway.log" 2>&1 &
  GW_PID=$!
  GW_DATA="$data"
  wait_port "$PORT"
}
stop_gateway() {
  kill -TERM "$GW_PID" 2>/dev/null || true
  wait "$GW_PID" 2>/dev/null || true
  GW_PID=""
  rm -rf "$GW_DATA"
}

sim() { "$OCPPSIM_BIN" --progress 5 "$@"; }

# Where the gateway's pipelines stand (from /health): analytics lag and Kafka outbox.
health_summary() {
  local h t0=$SECONDS
  # Analytics and Kafka trail the acks; wait (up to 120 s) until both have caught up.
  while :; do
    h="$(curl -s "http://127.0.0.1:$PORT/health")" || return 0
    [ "$(jq -r '.analytics.lag_events' <<<"$h")" = 0 ] &&
      { [ "${KAFKA:-0}" != 1 ] || [ "$(jq -r '.kafka.outbox_depth // 0' <<<"$h")" = 0 ]; } && break
    [ $((SECONDS - t0)) -ge 120 ] && break
    sleep 1
  done
  say "caught up $((SECONDS - t0)) s after the last run"
  say "after the runs: events committed $(jq -r '.sink.events_committed' <<<"$h"), analytics at seq $(jq -r '.analytics.event_log_seq' <<<"$h") (lag $(jq -r '.analytics.lag_events' <<<"$h") events, $(jq -r '.analytics.log_events' <<<"$h") read back from the log), kafka $(jq -c '.kafka | {delivered, outbox_depth}' <<<"$h" 2>/dev/null)"
  put health "$h"
}

# load_run PORT REPORT [extra sim flags]: the MeterValues-heavy 1.6 workload.
load_run() {
  local port="$1" report="$2"
  shift 2
  sim --url "ws://127.0.0.1:$port/ocpp" --mode load -n "$N" --connectors 2 --max-inflight "$INFLIGHT" \
    --duration "$DUR" --warmup 4 --drain 20 --connect-rate 2000 --heartbeat 0 --report "$report" "$@" \
    >"$report.out" 2>"$report.err" || true
}
fig() { jq -r "$2" "$1"; }
# metric NAME FILE: a sample of a /metrics text (0 when it is not there)
metric() { awk -v k="$1" '$1 == k {v = $2} END {print v + 0}' "$2" 2>/dev/null || echo 0; }
# thread_ticks PID...: "<tid> <process>:<thread name> <user+system ticks> <bytes sent to
# storage>" per thread, sorted by tid for join.
thread_ticks() {
  local p t
  for p in "$@"; do
    for t in /proc/"$p"/task/*; do
      echo "${t##*/} $(cat /proc/"$p"/comm):$(cat "$t/comm") $(awk '{print $14 + $15}' "$t/stat")" \
        "$(awk '/^write_bytes/{print $2}' "$t/io")"
    done 2>/dev/null
  done | sort
}
# sample_threads: thread_ticks of the gateway and the simulator (started meanwhile) at 8 s and
# 16 s of a run into $work/ticks{0,1}, in the background (THREADS_PID, which the caller waits
# for before thread_costs); the window lies in the steady state of a run of DUR >= 17 s.
sample_threads() {
  (
    sleep 8
    local pids=("$GW_PID" "$(pgrep -n -x ocppsim)")
    thread_ticks "${pids[@]}" >"$work/ticks0" && sleep 8 && thread_ticks "${pids[@]}" >"$work/ticks1"
  ) &
  THREADS_PID=$!
}
# thread_costs RATE: per acknowledged CALL over the sampled 8 s, by thread name (the I/O threads
# summed): CPU time, and the bytes sent to storage where a thread wrote any.
thread_costs() {
  join "$work/ticks0" "$work/ticks1" | awk -v c=$(($1 * 8)) -v hz="$(getconf CLK_TCK)" '{
      d[$2] += ($6 - $3); w[$2] += ($7 - $4) } END {
      for (k in d) if (d[k] > 0 || w[k] > 0) {
        printf "%s %.1f us", k, d[k] * 1e6 / hz / c
        if (w[k] > 0) printf " %.1f KB", w[k] / 1024 / c
        printf "  "; t += d[k] }
      printf "all %.1f us", t * 1e6 / hz / c }'
}

machine() {
  say "machine: $(nproc) cores, $(awk '/model name/{$1=$2=$3="";print;exit}' /proc/cpuinfo | xargs), $(free -g | awk '/Mem:/{print $2}') GiB RAM, $(uname -r)"
  say "open-file limit: $(ulimit -n) (hard $(ulimit -Hn))"
}

bench_throughput() {
  local gw_args=() label="Kafka off (events wait in the outbox)"
  if [ "${KAFKA:-0}" = 1 ]; then
    # A real local KRaft broker (scripts/kafka.sh caches the jars); the gateway publishes while
    # it serves, and the run reports how many events reached the topic.
    KAFKA_DIR="$work/kafka"
    bash "$root/scripts/kafka.sh" start "$KAFKA_DIR" >"$work/kafka.log" 2>&1 ||
      { say "kafka broker did not start (see $work/kafka.log)"; return 1; }
    gw_args=(--kafka-brokers "127.0.0.1:$(cat "$KAFKA_DIR/port")")
    label="Kafka on (local KRaft broker)"
  fi
  say "== throughput: $N charge points x $INFLIGHT in flight, MeterValues-heavy 1.6 mix, ${DUR}s, ack-after-durable, analytics on, $label"
  start_gateway "${gw_args[@]}"
  local r="$work/tp-max.json"
  if [ "${PROFILE:-0}" = 1 ] && command -v perf >/dev/null; then
    (sleep 6 && perf record -F 499 -g -p "$GW_PID" -o "$work/perf.data" -- sleep 8 >"$work/perf.log" 2>&1) &
    PERF_PID=$!
  fi
  if [ "${SYSCALLS:-0}" = 1 ] && command -v perf >/dev/null; then
    (sleep 8 && perf stat -x, -e "$SYSCALL_EVENTS" -p "$GW_PID" -- sleep 8 2>"$work/syscalls.csv" >/dev/null) &
    SYSCALLS_PID=$!
  fi
  [ "${THREAD_CPU:-0}" = 1 ] && sample_threads
  load_run "$PORT" "$r"
  local rate p50 p99
  rate="$(fig "$r" '.run.sustained_calls_per_s | floor')"
  p50="$(fig "$r" '.run.steady_latency.p50_us')"
  p99="$(fig "$r" '.run.steady_latency.p99_us')"
  say "max sustained: $rate CALLs/s acknowledged (p50 ${p50}us p99 ${p99}us at saturation; errors $(fig "$r" '.run.call_errors'), timeouts $(fig "$r" '.run.timeouts'))"
  put throughput "$(jq '{max: .run}' "$r")"
  if [ -n "${SYSCALLS_PID:-}" ]; then
    wait "$SYSCALLS_PID" || true
    # Per acknowledged CALL: the counts over 8 s of the steady state over 8 s at the run's rate.
    say "syscalls per CALL at saturation: $(awk -F, -v c=$((rate * 8)) '$3 ~ /sys_enter_/ {
      sub(/.*sys_enter_/, "", $3); printf "%s %.2f  ", $3, $1 / c }' "$work/syscalls.csv")"
  fi
  # Where the CPU goes when the two cores are full, the simulator's share included.
  if [ -n "${THREADS_PID:-}" ] && [ "$rate" -gt 0 ]; then
    wait "$THREADS_PID" || true
    say "per CALL at saturation: $(thread_costs "$rate")"
  fi
  if [ -n "${PERF_PID:-}" ]; then
    wait "$PERF_PID" || true
    perf report -i "$work/perf.data" --no-children --stdio --sort dso,symbol 2>/dev/null |
      grep -E '^ +[0-9]' | sed -E 's/ {2,}/ /g; s/ - - *$//' | head -30 >"$results/profile-$stamp.txt" || true
    say "profile (top self-time symbols, perf, gateway under max load): bench/results/profile-$stamp.txt"
    head -15 "$results/profile-$stamp.txt" | tee -a "$txt"
  fi
  for pct in 25 50 75; do
    local target=$((rate * pct / 100)) rp="$work/tp-$pct.json"
    [ "$target" -lt 1 ] && continue
    load_run "$PORT" "$rp" --rate "$target"
    say "at ${pct}% (${target}/s target): achieved $(fig "$rp" '.run.sustained_calls_per_s | floor')/s, p50 $(fig "$rp" '.run.steady_latency.p50_us')us, p99 $(fig "$rp" '.run.steady_latency.p99_us')us, p999 $(fig "$rp" '.run.steady_latency.p999_us')us"
    put "throughput.at_$pct" "$(jq '.run' "$rp")"
  done
  say "gateway RSS after the throughput runs: $(rss_kb "$GW_PID") KiB"
  health_summary
  stop_gateway
}

# One CALL in flight per charge point at PACED_RATE; the sink's commits from /metrics over the
# same 8 s as the thread figures.
bench_paced() {
  local rate="${PACED_RATE:-5000}" r="$work/paced.json"
  say "== paced: $N charge points x 1 in flight at $rate CALLs/s, MeterValues-heavy 1.6 mix, ${DUR}s, ack-after-durable, analytics on, Kafka off"
  start_gateway
  local metrics="http://127.0.0.1:$PORT/metrics"
  (sleep 8 && curl -sf "$metrics" >"$work/metrics0" && sleep 8 && curl -sf "$metrics" >"$work/metrics1") &
  local metrics_pid=$!
  sample_threads
  INFLIGHT=1 load_run "$PORT" "$r" --rate "$rate"
  local achieved
  achieved="$(fig "$r" '.run.sustained_calls_per_s | floor')"
  say "achieved $achieved/s: p50 $(fig "$r" '.run.steady_latency.p50_us')us, p99 $(fig "$r" '.run.steady_latency.p99_us')us, p999 $(fig "$r" '.run.steady_latency.p999_us')us (errors $(fig "$r" '.run.call_errors'), timeouts $(fig "$r" '.run.timeouts'))"
  put paced "$(jq '.run' "$r")"
  wait "$metrics_pid" "$THREADS_PID" || true
  local commits frames
  commits=$(($(metric ocppgw_sink_batch_size_count "$work/metrics1") - $(metric ocppgw_sink_batch_size_count "$work/metrics0")))
  frames=$(($(metric ocppgw_sink_batch_size_sum "$work/metrics1") - $(metric ocppgw_sink_batch_size_sum "$work/metrics0")))
  [ "$commits" -gt 0 ] && say "event sink: $((commits / 8)) commits/s, $(awk -v f="$frames" -v c="$commits" 'BEGIN {printf "%.1f", f / c}') frames per commit"
  [ "$achieved" -gt 0 ] && say "per CALL (CPU, bytes to storage): $(thread_costs "$achieved")"
  stop_gateway
}

# conn_run N ws|wss: N idle charge points over one transport; sets CONN_PER (bytes per
# connection) and records the figures under connections[N] or connections_tls[N].
conn_run() {
  local n="$1" scheme="$2" url="ws://127.0.0.1:$PORT/ocpp" key="connections" tls_args=() sim_tls=()
  if [ "$scheme" = wss ]; then
    [ -f "$work/certs/server.pem" ] || bash "$root/certs/make-dev-certs.sh" "$work/certs" >/dev/null
    tls_args=(--tls-listen "127.0.0.1:$((PORT + 1))" --tls-cert "$work/certs/server.pem" --tls-key "$work/certs/server.key")
    sim_tls=(--ca "$work/certs/ca.pem")
    url="wss://127.0.0.1:$((PORT + 1))/ocpp"
    key="connections_tls"
  fi
  say "== connections: $n idle charge points, heartbeat 30 s, $scheme"
  start_gateway "${tls_args[@]}"
  sleep 1
  local base; base="$(rss_kb "$GW_PID")"
  local r="$work/conn-$scheme-$n.json" peak=0 ramp_s=$(( n / CONNECT_RATE + 4 ))
  sim --url "$url" "${sim_tls[@]}" -n "$n" --connectors 1 --heartbeat 30 --sessions-per-hour 0 \
    --connect-rate "$CONNECT_RATE" --duration $((ramp_s + 20)) --drain 5 --source 127.0.0.2 127.0.0.3 127.0.0.4 127.0.0.5 \
    --report "$r" >"$r.out" 2>"$r.err" &
  local sim_pid=$! t0=$SECONDS steady=0 sqlite_kib=0
  # Peak includes the ramp's transients (boot bursts through the sink and analytics); the
  # steady figure is sampled 15 s after the ramp, when every connection is idle but for its
  # heartbeats: that one is the cost of holding a connection.
  while kill -0 "$sim_pid" 2>/dev/null; do
    local v; v="$(rss_kb "$GW_PID")"
    [ "${v:-0}" -gt "$peak" ] && peak="$v"
    if [ $((SECONDS - t0)) -ge $((ramp_s + 15)) ] && [ "$steady" -eq 0 ]; then
      steady="$v"
      sqlite_kib=$(( $(curl -s "http://127.0.0.1:$PORT/health" | jq -r '.sqlite_memory_bytes // 0') / 1024 ))
    fi
    sleep 0.5
  done
  wait "$sim_pid" || true
  local held; held="$(fig "$r" '.run.max_connected')"
  [ "$steady" -eq 0 ] && steady="$peak"
  CONN_PER=$(( (steady - base) * 1024 / (held > 0 ? held : 1) ))
  local peak_per=$(( (peak - base) * 1024 / (held > 0 ? held : 1) ))
  # SQLite's page caches grow with the data the boots write but are capped (analytics_cache_mb,
  # 16 MiB; ~2 MiB per other SQLite handle): the figure without them is what 100k would cost.
  local no_sqlite=$(( (steady - sqlite_kib - base) * 1024 / (held > 0 ? held : 1) ))
  say "held $held/$n (ramp $(fig "$r" '.run.ramp_s | . * 100 | floor / 100') s); gateway RSS idle ${base} KiB, steady ${steady} KiB, peak ${peak} KiB: $CONN_PER bytes per connection steady ($peak_per at peak; $no_sqlite without SQLite's ${sqlite_kib} KiB of caches); heartbeat p99 $(fig "$r" '.run.latency.p99_us')us"
  put "$key[\"$n\"]" "{\"held\": $held, \"rss_base_kib\": $base, \"rss_steady_kib\": $steady, \"rss_peak_kib\": $peak, \"bytes_per_connection\": $CONN_PER, \"bytes_per_connection_peak\": $peak_per, \"sqlite_kib\": $sqlite_kib, \"bytes_per_connection_without_sqlite\": $no_sqlite}"
  stop_gateway
}

bench_connections() {
  for n in $CONN_COUNTS; do conn_run "$n" ws; done
}

bench_connections_tls() {
  for n in $CONN_COUNTS; do
    conn_run "$n" ws
    local plain=$CONN_PER
    conn_run "$n" wss
    say "TLS overhead at $n connections: $((CONN_PER - plain)) bytes per connection (wss $CONN_PER vs ws $plain)"
  done
}

bench_storm() {
  say "== reconnect storm: $STORM_N charge points (1 connector) drop and reconnect at once: boot + 2 status + $STORM_BACKLOG queued MeterValues each"
  start_gateway
  local r="$work/storm.json" at=$(( STORM_N / 2000 + 8 ))
  sim --url "ws://127.0.0.1:$PORT/ocpp" -n "$STORM_N" --connectors 1 --heartbeat 60 --sessions-per-hour 0 \
    --connect-rate 2000 --storm-at "$at" --storm-backlog "$STORM_BACKLOG" --duration $((at + 120)) --drain 10 \
    --source 127.0.0.2 127.0.0.3 127.0.0.4 127.0.0.5 --report "$r" >"$r.out" 2>"$r.err" || true
  say "storm drained in $(fig "$r" '.run.storm_drain_s') s (frames acked $(fig "$r" '.run.calls_acked'), connect failures $(fig "$r" '.run.connect_failures'), timeouts $(fig "$r" '.run.timeouts'))"
  put storm "$(jq '.run' "$r")"
  stop_gateway
}

# ---- several gateway processes on this machine (nodes) ----

# start_nodes K: K gateways on ports PORT+1.., node index i of stride K, own data dirs.
start_nodes() {
  local k="$1" i
  NODE_PIDS=()
  for ((i = 0; i < k; i++)); do
    local data="$work/node-$i" port=$((PORT + 1 + i))
    mkdir -p "$data"
    "$OCPPGW_BIN" --listen "127.0.0.1:$port" --data-dir "$data" --log-level warn \
      --max-messages-per-second 1000000 --max-connections-per-address 0 --unknown-tokens Accepted \
      --heartbeat-interval 300 --node-index "$i" --node-stride "$k" >"$data/gateway.log" 2>&1 &
    NODE_PIDS+=($!)
  done
  for ((i = 0; i < k; i++)); do wait_port $((PORT + 1 + i)); done
}
stop_nodes() {
  local p
  for p in "${NODE_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${NODE_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  NODE_PIDS=()
  rm -rf "$work"/node-*
}
nodes_rss_kb() {
  local p sum=0
  for p in "${NODE_PIDS[@]}"; do sum=$((sum + $(rss_kb "$p"))); done
  echo "$sum"
}
nodes_sqlite_kb() {
  local i sum=0
  for ((i = 0; i < ${#NODE_PIDS[@]}; i++)); do
    sum=$((sum + $(curl -s "http://127.0.0.1:$((PORT + 1 + i))/health" | jq -r '.sqlite_memory_bytes // 0') / 1024))
  done
  echo "$sum"
}
# node_sims TOTAL K NAME [sim flags...]: one ocppsim per node (a simulator process has the same
# open-file limit), charge points numbered across nodes so no id repeats.
node_sims() {
  local total="$1" k="$2" name="$3" i
  shift 3
  local per=$(( (total + k - 1) / k ))
  SIM_PIDS=()
  for ((i = 0; i < k; i++)); do
    local n=$(( i == k - 1 ? total - per * (k - 1) : per ))
    sim --url "ws://127.0.0.1:$((PORT + 1 + i))/ocpp" -n "$n" --first-index $((i * per)) \
      --source 127.0.0.2 127.0.0.3 127.0.0.4 127.0.0.5 --report "$work/$name-$i.json" "$@" \
      >"$work/$name-$i.out" 2>"$work/$name-$i.err" &
    SIM_PIDS+=($!)
  done
}
sum_fig() {  # sum_fig NAME K JQ
  local i sum=0
  for ((i = 0; i < $2; i++)); do sum=$((sum + $(fig "$work/$1-$i.json" "$3 // 0 | floor"))); done
  echo "$sum"
}
max_fig() {  # max_fig NAME K JQ
  local i
  for ((i = 0; i < $2; i++)); do fig "$work/$1-$i.json" "$3 // 0"; done | sort -g | tail -1
}

bench_nodes() {
  local per_node="${PER_NODE:-19000}" total="${NODES_CONNS:-100000}"
  local k=$(( (total + per_node - 1) / per_node ))
  say "== connections over $k gateway processes: $total idle charge points, heartbeat 30 s, plain ws (open-file limit $(ulimit -n) per process)"
  start_nodes "$k"
  sleep 1
  local base; base="$(nodes_rss_kb)"
  # The whole machine connects at NODES_CONNECT_RATE (default 2,000/s, as the one-process runs):
  # an overloaded ramp leaves transient allocations that glibc keeps, which is not the cost of
  # holding a connection.
  local rate="${NODES_CONNECT_RATE:-2000}"
  local ramp_s=$(( total / rate + 4 )) t0=$SECONDS steady=0 sqlite_kib=0 peak=0
  node_sims "$total" "$k" conn --connectors 1 --heartbeat 30 --sessions-per-hour 0 \
    --connect-rate $((rate / k)) --duration $((ramp_s + 25)) --drain 5
  while :; do
    local alive=0 p
    for p in "${SIM_PIDS[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    local v; v="$(nodes_rss_kb)"
    [ "$v" -gt "$peak" ] && peak="$v"
    if [ $((SECONDS - t0)) -ge $((ramp_s + 20)) ] && [ "$steady" -eq 0 ]; then
      steady="$v"
      sqlite_kib="$(nodes_sqlite_kb)"
    fi
    sleep 1
  done
  for p in "${SIM_PIDS[@]}"; do wait "$p" || true; done
  SIM_PIDS=()
  [ "$steady" -eq 0 ] && steady="$peak"
  local held; held="$(sum_fig conn "$k" '.run.max_connected')"
  local per=$(( (steady - base) * 1024 / (held > 0 ? held : 1) ))
  local no_sqlite=$(( (steady - sqlite_kib - base) * 1024 / (held > 0 ? held : 1) ))
  say "held $held/$total over $k processes (slowest ramp $(max_fig conn "$k" '.run.ramp_s') s); RSS summed: idle ${base} KiB, steady ${steady} KiB, peak ${peak} KiB: $per bytes per connection ($no_sqlite without SQLite's ${sqlite_kib} KiB of caches); heartbeat p99 $(max_fig conn "$k" '.run.latency.p99_us')us (worst node)"
  put nodes_connections "{\"processes\": $k, \"held\": $held, \"rss_base_kib\": $base, \"rss_steady_kib\": $steady, \"rss_peak_kib\": $peak, \"sqlite_kib\": $sqlite_kib, \"bytes_per_connection\": $per, \"bytes_per_connection_without_sqlite\": $no_sqlite}"
  stop_nodes

  local storm="${NODES_STORM:-50000}"
  [ "$storm" -gt 0 ] || return 0
  k=$(( (storm + per_node - 1) / per_node ))
  say "== reconnect storm over $k gateway processes: $storm charge points (1 connector) drop and reconnect at once: boot + 2 status + $STORM_BACKLOG queued MeterValues each"
  start_nodes "$k"
  local at=$(( per_node / 2000 + 10 ))
  node_sims "$storm" "$k" storm --connectors 1 --heartbeat 60 --sessions-per-hour 0 \
    --connect-rate 2000 --storm-at "$at" --storm-backlog "$STORM_BACKLOG" --duration $((at + 120)) --drain 10
  for p in "${SIM_PIDS[@]}"; do wait "$p" || true; done
  SIM_PIDS=()
  say "storm of $storm drained in $(max_fig storm "$k" '.run.storm_drain_s') s (slowest node; frames acked $(sum_fig storm "$k" '.run.calls_acked'), connect failures $(sum_fig storm "$k" '.run.connect_failures'), timeouts $(sum_fig storm "$k" '.run.timeouts'))"
  put nodes_storm "{\"processes\": $k, \"charge_points\": $storm, \"drain_s\": $(max_fig storm "$k" '.run.storm_drain_s'), \"frames_acked\": $(sum_fig storm "$k" '.run.calls_acked')}"
  stop_nodes
}

bench_baselines() {
  say "== baselines: same workload ($N cps x $INFLIGHT in flight, ${DUR}s) against ocpp-rpc, python ocpp and ocppgw"
  bash "$root/bench/baselines/install.sh"
  local bport=$((PORT + 1))
  node "$root/bench/baselines/ocpp_rpc_csms.js" "$bport" 2>"$work/node.err" &
  BASE_PID=$!
  wait_port "$bport"
  load_run "$bport" "$work/b-node.json"
  kill -TERM "$BASE_PID"; wait "$BASE_PID" 2>/dev/null || true; BASE_PID=""
  "$root/bench/baselines/.venv/bin/python" "$root/bench/baselines/ocpp_py_csms.py" "$bport" 2>"$work/py.err" &
  BASE_PID=$!
  wait_port "$bport"
  load_run "$bport" "$work/b-py.json"
  kill -TERM "$BASE_PID"; wait "$BASE_PID" 2>/dev/null || true; BASE_PID=""
  start_gateway
  load_run "$PORT" "$work/b-gw.json"
  stop_gateway
  for b in node py gw; do
    local f="$work/b-$b.json"
    say "$(printf '%-22s' "$b"): $(fig "$f" '.run.sustained_calls_per_s | floor') CALLs/s, p50 $(fig "$f" '.run.steady_latency.p50_us')us, p99 $(fig "$f" '.run.steady_latency.p99_us')us, errors $(fig "$f" '.run.call_errors')"
  done
  local gw node py
  gw="$(fig "$work/b-gw.json" '.run.sustained_calls_per_s')"
  node="$(fig "$work/b-node.json" '.run.sustained_calls_per_s')"
  py="$(fig "$work/b-py.json" '.run.sustained_calls_per_s')"
  say "ratios: ocppgw/ocpp-rpc throughput $(jq -n "$gw / $node * 100 | floor / 100"), ocppgw/python-ocpp $(jq -n "$gw / $py * 100 | floor / 100"); p99 ocppgw/ocpp-rpc $(jq -n "$(fig "$work/b-gw.json" '.run.steady_latency.p99_us') / $(fig "$work/b-node.json" '.run.steady_latency.p99_us') * 100 | floor / 100")"
  put baselines "{\"ocpp_rpc\": $(jq .run "$work/b-node.json"), \"python_ocpp\": $(jq .run "$work/b-py.json"), \"ocppgw\": $(jq .run "$work/b-gw.json")}"
}

# The ingest cost of the Delta mirror: one gateway per run (fresh data), mirror off / every
# DELTA_INTERVAL s, alternating off, on, off, on so that drift of the machine hits both.
bench_delta() {
  local interval="${DELTA_INTERVAL:-10}" off=() on=() i rate
  say "== delta: throughput workload ($N x $INFLIGHT in flight, ${DUR}s), Delta mirror off vs every ${interval}s, alternating"
  for i in 1 2; do
    for mode in off on; do
      local r="$work/delta-$mode-$i.json"
      if [ "$mode" = off ]; then start_gateway --delta-interval 0; else start_gateway --delta-interval "$interval"; fi
      load_run "$PORT" "$r"
      rate="$(fig "$r" '.run.sustained_calls_per_s | floor')"
      local h cycles=""
      h="$(curl -s "http://127.0.0.1:$PORT/health")"
      [ "$mode" = on ] && cycles=", mirror cycles $(jq -r '.delta.cycles' <<<"$h"), last cycle $(jq -r '.delta.last_cycle.duration_ms' <<<"$h") ms writing $(jq -r '.delta.last_cycle.rows_written' <<<"$h") rows"
      say "mirror $mode (run $i): $rate CALLs/s, p99 $(fig "$r" '.run.steady_latency.p99_us')us$cycles"
      if [ "$mode" = off ]; then off+=("$rate"); else on+=("$rate"); fi
      put "delta.${mode}_$i" "$(jq '.run' "$r")"
      stop_gateway
    done
  done
  local off_sum=$((off[0] + off[1])) on_sum=$((on[0] + on[1]))
  say "mirror every ${interval}s / off: $(jq -n "$on_sum / $off_sum * 100 | floor / 100") (means $((on_sum / 2)) vs $((off_sum / 2)) CALLs/s)"
}

# run_gateway_max LABEL REPORT [gateway args]: one gateway, one unpaced load run; says the rate.
run_gateway_max() {
  local label="$1" r="$2"
  shift 2
  start_gateway "$@"
  load_run "$PORT" "$r"
  say "$label: $(fig "$r" '.run.sustained_calls_per_s | floor') CALLs/s (p50 $(fig "$r" '.run.steady_latency.p50_us')us, p99 $(fig "$r" '.run.steady_latency.p99_us')us, errors $(fig "$r" '.run.call_errors'), timeouts $(fig "$r" '.run.timeouts'))"
}

# Every row of the performance table in one run. The paced runs keep one CALL in flight per
# charge point, so latency is the server's answer time, not queueing behind the client's window.
bench_targets() {
  local bench_dir="${BENCH_DIR:-$root/build/bench}" events="${ANALYTICS_EVENTS:-10000000}"
  local paced="${PACED_RATE:-5000}" conns="${TARGET_CONNS:-19500}"
  say "== targets: every row of the performance table, one run (load average at the start: $(cut -d' ' -f1-3 /proc/loadavg))"
  "$bench_dir/dispatch_bench" 20000 >"$work/dispatch.txt"
  local mv te
  mv="$(sed -n 's/^dispatch 1\.6 MeterValues (4 values) *\([0-9.]*\) us\/frame.*/\1/p' "$work/dispatch.txt")"
  te="$(sed -n 's/^dispatch 2\.0\.1 TransactionEvent Updated *\([0-9.]*\) us\/frame.*/\1/p' "$work/dispatch.txt")"
  say "dispatch_bench, one thread: 1.6 MeterValues (4 values) ${mv} us, 2.0.1 TransactionEvent ${te} us"
  "$bench_dir/analytics_bench" --events "$events" --db "$work/analytics_bench.db" >"$work/analytics.txt"
  rm -f "$work"/analytics_bench.db*
  local analytics
  analytics="$(sed -n 's/^replay: .*: \([0-9]*\) events\/s$/\1/p' "$work/analytics.txt")"
  say "analytics_bench: $(grep '^replay:' "$work/analytics.txt"); $(grep '^totals:' "$work/analytics.txt")"

  run_gateway_max "ocppgw, Kafka off" "$work/t-off.json"
  stop_gateway
  KAFKA_DIR="$work/kafka"
  bash "$root/scripts/kafka.sh" start "$KAFKA_DIR" >"$work/kafka.log" 2>&1 ||
    { say "kafka broker did not start (see $work/kafka.log)"; return 1; }
  run_gateway_max "ocppgw, Kafka on (local KRaft broker)" "$work/t-kafka.json" \
    --kafka-brokers "127.0.0.1:$(cat "$KAFKA_DIR/port")"
  KAFKA=1 health_summary
  stop_gateway
  bash "$root/scripts/kafka.sh" stop "$KAFKA_DIR" >/dev/null 2>&1 || true
  KAFKA_DIR=""

  bash "$root/bench/baselines/install.sh" >"$work/baselines-install.log" 2>&1
  local bport=$((PORT + 1))
  node "$root/bench/baselines/ocpp_rpc_csms.js" "$bport" 2>"$work/node.err" &
  BASE_PID=$!
  wait_port "$bport"
  load_run "$bport" "$work/t-rpc.json"
  INFLIGHT=1 load_run "$bport" "$work/p-rpc.json" --rate "$paced"
  kill -TERM "$BASE_PID"; wait "$BASE_PID" 2>/dev/null || true; BASE_PID=""
  start_gateway
  INFLIGHT=1 load_run "$PORT" "$work/p-gw.json" --rate "$paced"
  stop_gateway
  # The same two gateway runs with the data dir in RAM (RAM_DIR, tmpfs): not a deployment, as
  # nothing there survives a power cut and fdatasync returns at once, but side by side with the
  # runs above it shows how much of each row the disk costs and how much the gateway's own work.
  local ram="${RAM_DIR:-/dev/shm}" ram_rows=""
  if [ -d "$ram" ] && [ -w "$ram" ]; then
    GW_DATA_ROOT="$ram" run_gateway_max "ocppgw, Kafka off, data dir on tmpfs ($ram)" "$work/t-ram.json"
    stop_gateway
    GW_DATA_ROOT="$ram" start_gateway
    INFLIGHT=1 load_run "$PORT" "$work/p-gw-ram.json" --rate "$paced"
    stop_gateway
    ram_rows="p-gw-ram"
  fi
  for f in t-rpc p-rpc p-gw $ram_rows; do
    say "$(printf '%-6s' "$f"): $(fig "$work/$f.json" '.run.sustained_calls_per_s | floor') CALLs/s, p50 $(fig "$work/$f.json" '.run.steady_latency.p50_us')us, p99 $(fig "$work/$f.json" '.run.steady_latency.p99_us')us, errors $(fig "$work/$f.json" '.run.call_errors')"
  done

  # The memory rows open their connections at TARGET_CONNECT_RATE (400/s): slow enough for the
  # TLS handshakes of any 2-core machine, and their sample then falls after every connection's
  # first heartbeats and after the Delta mirror's first cycle (60 s in), the state a
  # connection lives in, not the quiet moment right after a fast ramp.
  CONNECT_RATE="${TARGET_CONNECT_RATE:-400}"
  conn_run "$conns" ws
  local ws_per=$CONN_PER ws_held
  ws_held="$(fig "$work/conn-ws-$conns.json" '.run.max_connected')"
  conn_run "$conns" wss
  local wss_per=$CONN_PER

  local off kafka rpc p99_rpc p99_gw
  off="$(fig "$work/t-off.json" '.run.sustained_calls_per_s | floor')"
  kafka="$(fig "$work/t-kafka.json" '.run.sustained_calls_per_s | floor')"
  rpc="$(fig "$work/t-rpc.json" '.run.sustained_calls_per_s | floor')"
  p99_rpc="$(fig "$work/p-rpc.json" '.run.steady_latency.p99_us')"
  p99_gw="$(fig "$work/p-gw.json" '.run.steady_latency.p99_us')"
  met() { if [ "$(jq -n "$1")" = true ]; then echo yes; else echo no; fi; }
  say ""
  say "| what | measured | target | met |"
  say "|---|---|---|---|"
  say "| dispatch_bench 1.6 MeterValues (4 values), one thread | $mv us | <= 5 us | $(met "$mv <= 5") |"
  say "| dispatch_bench 2.0.1 TransactionEvent, one thread | $te us | <= 8 us | $(met "$te <= 8") |"
  say "| sustained CALLs/s, ack-after-durable, analytics on, Kafka off | $off | >= 40,000 | $(met "$off >= 40000") |"
  say "| the same with Kafka on (local broker) | $kafka | >= 35,000 | $(met "$kafka >= 35000") |"
  say "| ratio to ocpp-rpc ($rpc CALLs/s), same workload, same run | $(jq -n "$off / $rpc * 100 | floor / 100")x | >= 1.0x | $(met "$off >= $rpc") |"
  say "| analytics events/s (analytics_bench, $events events) | $analytics | >= 80,000 | $(met "$analytics >= 80000") |"
  say "| p99, one CALL in flight per charge point, paced at $paced/s | ${p99_gw} us (ocpp-rpc ${p99_rpc} us) | <= ocpp-rpc's | $(met "$p99_gw <= $p99_rpc") |"
  say "| RSS per idle ws connection ($ws_held held, one process) | $ws_per bytes | <= 6 KB | $(met "$ws_per <= 6144") |"
  say "| RSS per idle wss connection | $wss_per bytes | <= 20 KB | $(met "$wss_per <= 20480") |"
  if [ -n "$ram_rows" ]; then
    say ""
    say "Not targets (the data dir on tmpfs, $ram: no durability, for attribution only): $(fig "$work/t-ram.json" '.run.sustained_calls_per_s | floor') CALLs/s sustained, p99 $(fig "$work/p-gw-ram.json" '.run.steady_latency.p99_us') us paced at $paced/s"
    put targets_tmpfs "{\"calls_per_s_kafka_off\": $(fig "$work/t-ram.json" '.run.sustained_calls_per_s | floor'), \"p99_us_ocppgw\": $(fig "$work/p-gw-ram.json" '.run.steady_latency.p99_us')}"
  fi
  say "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
  put targets "{\"dispatch_meter_values_us\": $mv, \"dispatch_transaction_event_us\": $te, \"calls_per_s_kafka_off\": $off, \"calls_per_s_kafka_on\": $kafka, \"ocpp_rpc_calls_per_s\": $rpc, \"analytics_events_per_s\": $analytics, \"paced_rate\": $paced, \"p99_us_ocppgw\": $p99_gw, \"p99_us_ocpp_rpc\": $p99_rpc, \"bytes_per_ws_connection\": $ws_per, \"bytes_per_wss_connection\": $wss_per}"
}

what="${1:-all}"
say "# bench/load.sh $what at $stamp"
machine
case "$what" in
  throughput) bench_throughput ;;
  paced) bench_paced ;;
  connections) bench_connections ;;
  connections-tls) bench_connections_tls ;;
  storm) bench_storm ;;
  baselines) bench_baselines ;;
  nodes) bench_nodes ;;
  delta) bench_delta ;;
  targets) bench_targets ;;
  all) bench_throughput; bench_baselines; bench_connections; bench_storm ;;
  *) echo "usage: $0 [throughput|paced|connections|connections-tls|storm|baselines|delta|nodes|targets|all]" >&2; exit 2 ;;
esac
say "results: $txt $json"
