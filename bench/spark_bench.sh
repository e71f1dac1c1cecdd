#!/usr/bin/env bash
# bench/spark_bench.sh [EVENTS]: events/s through Bronze -> Silver -> Gold on Spark local[2]
# (analytics/spark/) and through the in-process analytics (`ocppgw kafka-replay`: the C++
# Silver/Gold on SQLite), both reading the same EVENTS (default 1,000,000) from one topic of a
# local KRaft broker, in one run. The events are canonical events with duplicates, conflicts,
# late and corrupt records (bench/spark_bench_events.py). Prints one line per engine and stage.
# Env: OCPPGW_BIN (default build/gateway/ocppgw), BENCH_CPS (charge points, 2000),
# BENCH_BATCH_OFFSETS (Kafka records per Bronze micro-batch, 250000), BENCH_FILES (Bronze files
# per Silver micro-batch, 4), OCPPGW_SPARK_MEMORY (driver memory, 6g), BENCH_KEEP=1.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
EVENTS="${1:-1000000}"
OCPPGW_BIN="${OCPPGW_BIN:-$root/build/gateway/ocppgw}"
export OCPPGW_SPARK_MEMORY="${OCPPGW_SPARK_MEMORY:-6g}"
py="$root/.venv/bin/python"
work="$(mktemp -d /tmp/ocppgw-spark-bench.XXXXXX)"
cleanup() {
  bash "$root/scripts/kafka.sh" stop "$work/kafka" >/dev/null 2>&1 || true
  if [ -n "${BENCH_KEEP:-}" ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
bash "$root/scripts/spark.sh" kafka >/dev/null
bash "$root/scripts/kafka.sh" start "$work/kafka" >/dev/null
brokers="127.0.0.1:$(cat "$work/kafka/port")"
topic=ocpp-events-bench
now() { date +%s.%N; }
rate() { "$py" -c "import sys; n, s = int(sys.argv[1]), float(sys.argv[2]); print(f'{n / s:,.0f} events/s ({n:,} in {s:.1f} s)')" "$1" "$2"; }

"$py" "$root/bench/spark_bench_events.py" --events "$EVENTS" --charge-points "${BENCH_CPS:-2000}" \
  >"$work/events.tsv"
kcat -P -b "$brokers" -t "$topic" -K $'\t' -z lz4 -X linger.ms=50 -X batch.num.messages=10000 \
  <"$work/events.tsv"
n="$(kcat -C -b "$brokers" -t "$topic" -o beginning -e -q -f 'x\n' | wc -l)"
echo "topic: $n records, $(wc -c <"$work/events.tsv") bytes, $(nproc) cores"

# In-process analytics: the C++ Silver + Gold, fed from the same topic.
t0="$(now)"
"$OCPPGW_BIN" --data-dir "$work/inproc" kafka-replay -b "$brokers" -t "$topic" --until-end \
  --timeout 60 --batch 5000 >"$work/inproc.json" 2>"$work/inproc.err"
t1="$(now)"
echo "in-process (ocppgw kafka-replay, Silver+Gold on SQLite): $(rate "$n" "$(echo "$t1 - $t0" | bc)")"
echo "  $(cat "$work/inproc.json")"

# Spark: Bronze (Kafka -> Delta), then Silver + Gold (Delta -> Delta), local[2].
run() {
  "$py" "$root/analytics/spark/run_pipeline.py" --local --root "$work/lake" \
    --checkpoints "$work/checkpoints" --bootstrap-servers "$brokers" --topic "$topic" \
    --available-now "$@" 2>>"$work/spark.err"
}
t0="$(now)"
run --layers bronze --max-offsets-per-trigger "${BENCH_BATCH_OFFSETS:-250000}" >"$work/bronze.out"
t1="$(now)"
run --layers silver --max-files-per-trigger "${BENCH_FILES:-4}" | tee "$work/silver.out"
t2="$(now)"
echo "spark bronze (Kafka -> Delta, incl. JVM start): $(rate "$n" "$(echo "$t1 - $t0" | bc)")"
echo "spark silver+gold (Delta -> Delta, incl. JVM start): $(rate "$n" "$(echo "$t2 - $t1" | bc)")"
echo "spark bronze->silver->gold: $(rate "$n" "$(echo "$t2 - $t0" | bc)")"
tail -1 "$work/silver.out" | grep -q '"conservation_ok": true' || { echo "spark: conservation violated"; exit 1; }
