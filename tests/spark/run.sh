#!/usr/bin/env bash
# tests/spark/run.sh: the Spark pipeline (analytics/spark/) end to end with real parts: a KRaft
# broker (scripts/kafka.sh), two `ocppgw` nodes publishing to one topic, two `ocppsim` fleets
# with every fault on (one per node), and the pipeline on local[2] (pyspark + delta-spark from
# PyPI, Delta and Kafka-source jars from Maven Central cached under ~/.cache/ocppgw) reading the
# topic. Asserts Spark Gold == the union of the nodes' in-process Gold == the simulator's ground
# truth, the conservation law, and restart safety (kill mid-stream, restart from the
# checkpoint; replay into fresh tables). Installs tests/delta/requirements.txt into .venv.
# Env: OCPPGW_BIN, OCPPSIM_BIN (default: this checkout's build), SPARK_IT_CPS (charge points
# per node, 15), SPARK_IT_CRASH (where the restart test kills the job, 1:audit),
# SPARK_IT_KEEP=1 keeps the work dir. Prints "spark: N passed, M failed".
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
source "$root/tests/integration/common.sh"
export OCPPGW_BIN="${OCPPGW_BIN:-$root/build/gateway/ocppgw}"
export OCPPSIM_BIN="${OCPPSIM_BIN:-$root/build/sim/ocppsim}"
fail_setup() { echo "spark: $*"; echo "spark: 0 passed, 1 failed"; exit 1; }
for b in "$OCPPGW_BIN" "$OCPPSIM_BIN"; do [ -x "$b" ] || fail_setup "missing binary $b"; done
command -v kcat >/dev/null || fail_setup "kcat is missing (scripts/setup.sh installs it)"
# The readers are the Delta suite's (same pins).
ensure_venv "$root" tests/delta/requirements.txt || fail_setup "pip install failed"
# pyspark + delta-spark, and the Delta and Kafka-source jars in the Ivy cache.
bash "$root/scripts/spark.sh" kafka || fail_setup "scripts/spark.sh kafka failed"
bash "$root/scripts/kafka.sh" fetch || fail_setup "scripts/kafka.sh fetch failed"
run_pytest spark "$root/tests/spark" 900
