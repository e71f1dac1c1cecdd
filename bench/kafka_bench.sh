#!/usr/bin/env bash
# bench/kafka_bench.sh [build-dir] [kafka_bench args...]: starts a real single-node Kafka broker
# (scripts/kafka.sh), runs kafka_bench against it and stops the broker.
#   bench/kafka_bench.sh build --events 1000000 --rate 2000 --seconds 10
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
shift || true
bin="$build/bench/kafka_bench"
[ -x "$bin" ] || { echo "missing $bin (ninja -C $build kafka_bench)" >&2; exit 1; }
dir="$(mktemp -d /tmp/ocppgw-kafka-bench.XXXXXX)"
trap 'bash "$root/scripts/kafka.sh" stop "$dir" >/dev/null 2>&1; rm -rf "$dir"' EXIT
bash "$root/scripts/kafka.sh" start "$dir"
"$bin" --brokers "127.0.0.1:$(cat "$dir/port")" "$@"
