#!/usr/bin/env bash
# scripts/spark.sh: Apache Spark + Delta Lake for tests and the Spark pipelines, offline after the
# first run. Installs the pins of scripts/spark-requirements.txt (pyspark, delta-spark) into the
# project venv .venv (pip cache ~/.cache/ocppgw/pip; skipped when already importable at those
# versions) and resolves the Delta jars from Maven Central into the Ivy cache
# $OCPPGW_SPARK_IVY (default ~/.cache/ocppgw/ivy; skipped when present), by starting one local
# SparkSession through scripts/spark_session.py, the module every Spark user imports.
# Needs Java 17 (openjdk-17-jre-headless, scripts/setup.sh). Env: OCPPGW_VENV (default .venv).
# `scripts/spark.sh kafka` also fetches Spark's Kafka source (spark-sql-kafka) for the Spark
# pipeline (analytics/spark/) into the same cache.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="${OCPPGW_VENV:-$root/.venv}"
req="$root/scripts/spark-requirements.txt"
die() { echo "spark.sh: $*" >&2; exit 1; }

command -v java >/dev/null || die "java is required (openjdk-17-jre-headless)"
{ [ -x "$venv/bin/python" ] || python3 -m venv "$venv"; } || die "cannot create $venv"

# Installed already at the pinned versions?
pinned() {
  "$venv/bin/python" - "$req" <<'PY'
import sys
from importlib.metadata import version, PackageNotFoundError
for line in open(sys.argv[1]):
    line = line.split("#")[0].strip()
    if not line:
        continue
    name, want = line.split("==")
    try:
        if version(name) != want:
            sys.exit(1)
    except PackageNotFoundError:
        sys.exit(1)
import pyspark, delta  # noqa: F401
PY
}
if ! pinned 2>/dev/null; then
  echo "spark.sh: installing $(grep -v '^#' "$req" | xargs) into $venv" >&2
  "$venv/bin/pip" install -q --cache-dir "$HOME/.cache/ocppgw/pip" -r "$req" || die "pip install failed"
  pinned || die "pyspark/delta-spark not importable after install"
fi

# The Delta jars in the Ivy cache: one session start with spark.jars.packages fetches them.
kafka=False; [ "${1:-}" = kafka ] && kafka=True
PYTHONPATH="$root/scripts${PYTHONPATH:+:$PYTHONPATH}" "$venv/bin/python" - "$kafka" <<'PY' || die "could not fetch the Delta jars"
import sys
import spark_session as s
kafka = sys.argv[1] == "True"
if s.cached_jars(kafka):
    sys.exit(0)
print(f"spark.sh: fetching {', '.join(s.packages(kafka))} into {s.IVY}", file=sys.stderr)
spark = s.local_spark("ocppgw-spark-fetch", kafka=kafka)
n = spark.range(3).count()
spark.stop()
if n != 3 or not s.cached_jars(kafka):
    sys.exit("the jars are not in the Ivy cache after a session start")
PY
echo "spark.sh: ready (pyspark $("$venv/bin/python" -c 'import pyspark; print(pyspark.__version__)'), delta-spark $("$venv/bin/python" -c 'from importlib.metadata import version; print(version("delta-spark"))'))" >&2
