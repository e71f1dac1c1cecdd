#!/usr/bin/env bash
# scripts/run.sh [ocppgw options...]: installs what is missing, builds, and runs the gateway
# with embedded defaults (ws://0.0.0.0:8180/ocpp/{chargePointId}, SQLite under ./data, no Kafka).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/setup.sh"
# Only the gateway and what it links: the tests and benchmarks are built by scripts/test.sh.
BUILD_TARGETS=ocppgw bash "$root/scripts/build.sh" "$root/build"
exec "$root/build/gateway/ocppgw" "$@"
