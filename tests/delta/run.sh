#!/usr/bin/env bash
# tests/delta/run.sh: the Delta Lake mirror read by independent readers (pyarrow, delta-rs,
# Apache Spark with Delta Lake)
# against files written by the real binary: a gateway run with ocppsim traffic while the
# mirror runs, then `ocppgw delta sync` cycles. Installs tests/delta/requirements.txt into the
# project venv. Env: OCPPGW_BIN, OCPPSIM_BIN. Prints "N passed, M failed".
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
source "$root/tests/integration/common.sh"
ensure_venv "$root" tests/delta/requirements.txt || { echo "0 passed, 1 failed"; exit 1; }
# Spark + Delta Lake for test_spark_reads_mirror.py (jars cached under ~/.cache/ocppgw/ivy).
bash "$root/scripts/spark.sh" || { echo "0 passed, 1 failed"; exit 1; }
run_pytest delta "$root/tests/delta" 600
