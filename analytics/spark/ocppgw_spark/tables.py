"""ocppgw_spark.tables: table locations, schemas and the two Delta write patterns every layer
uses (insert-only MERGE by a row key; replace the rows of affected keys in one MERGE).

Tables live under one root (a local folder, abfss://, dbfs:/ or s3://), one Delta table per
folder, named as the in-process analytics' SQLite tables (analytics/migrations/), so the two
engines' tables compare column by column. Timestamps are milliseconds since the Unix epoch
(UTC) as in SQLite; Silver adds event_time (TIMESTAMP) for event-time queries.
"""
import os

from delta.tables import DeltaTable
from pyspark.sql import functions as F
from pyspark.sql import types as T

BRONZE = "bronze_raw_events"
SILVER = "silver_events"
AUDIT = "duplicate_events_audit"
QUARANTINE = "quarantine_events"
SESSIONS = "charging_sessions"
HISTORY = "connector_status_history"
CURRENT = "connector_current_status"
HEALTH = "charge_point_health"
DAILY = "charging_stats_daily"
DQ_BATCHES = "dq_batches"


def path(root, table):
    return root.rstrip("/") + "/" + table


S, L, D, I, B = T.StringType(), T.LongType(), T.DoubleType(), T.IntegerType(), T.BooleanType()


def fields(*cols):
    return [T.StructField(n, t, True) for n, t in cols]


# Where a record came from: its Bronze (= Kafka) coordinates, unique per record.
COORDS = fields(("kafka_topic", S), ("kafka_partition", I), ("kafka_offset", L))
COORD_COLS = [f.name for f in COORDS]

# A canonical event after Silver parsing (rules.parse_raw_event), plus its business key and
# data-clock contribution.
EVENT = fields(
    ("event_id", S), ("business_key", S), ("charge_point_id", S), ("connector_id", L),
    ("evse_id", L), ("event_type", S), ("ocpp_action", S), ("message_id", S), ("event_ts", L),
    ("ingest_ts", L), ("transaction_id", S), ("seq_no", L), ("trigger_reason", S),
    ("meter_wh", D), ("power_w", D), ("current_a", D), ("voltage_v", D), ("soc_pct", D),
    ("connector_status", S), ("error_code", S), ("stop_reason", S), ("id_token_hash", S),
    ("ocpp_version", S), ("schema_version", L), ("gateway_node", S),
    ("flags", T.ArrayType(S)), ("extra", S), ("clock_ms", L))
EVENT_COLS = [f.name for f in EVENT]

# What the parse UDF returns per Bronze record.
PARSED = T.StructType(fields(("ok", B), ("reason", S), ("violations", T.ArrayType(S)),
                             ("detail", S), ("read_event_id", S), ("read_charge_point_id", S))
                      + EVENT)

BRONZE_SCHEMA = T.StructType(fields(
    ("key", S), ("value", S), ("topic", S), ("partition", I), ("offset", L),
    ("timestamp", T.TimestampType()), ("ingest_time", T.TimestampType()),
    ("ingest_date", T.DateType())))

SILVER_SCHEMA = T.StructType(EVENT + fields(("event_time", T.TimestampType()),
                                            ("event_date", T.DateType())) + COORDS
                             + fields(("batch_id", L)))
AUDIT_SCHEMA = T.StructType(EVENT + COORDS + fields(
    ("duplicate_type", S), ("winner_event_id", S), ("payload", S), ("batch_id", L)))
QUARANTINE_SCHEMA = T.StructType(
    fields(("quarantine_id", S)) + EVENT + COORDS
    + fields(("reason", S), ("violations", T.ArrayType(S)), ("detail", S), ("raw_payload", S),
             ("kafka_key", S), ("status", S), ("quarantined_at", T.TimestampType()),
             ("batch_id", L)))

SESSIONS_SCHEMA = T.StructType(fields(
    ("session_id", S), ("charge_point_id", S), ("connector_id", L), ("transaction_id", S),
    ("start_ts", L), ("stop_ts", L), ("first_event_ts", L), ("last_event_ts", L),
    ("duration_seconds", L), ("meter_start_wh", D), ("meter_stop_wh", D), ("last_meter_wh", D),
    ("energy_kwh", D), ("energy_is_final", B), ("session_status", S), ("stop_reason", S),
    ("event_count", L), ("quality_flags", T.ArrayType(S)), ("stats_day", S), ("is_open", B)))
HISTORY_SCHEMA = T.StructType(fields(
    ("charge_point_id", S), ("evse_id", L), ("connector_id", L), ("valid_from", L),
    ("event_id", S), ("valid_to", L), ("status", S), ("error_code", S), ("seq_no", L)))
CURRENT_SCHEMA = T.StructType(fields(
    ("charge_point_id", S), ("evse_id", L), ("connector_id", L), ("status", S),
    ("error_code", S), ("status_since", L), ("event_id", S), ("seq_no", L)))
HEALTH_SCHEMA = T.StructType(fields(
    ("charge_point_id", S), ("last_heartbeat_ts", L), ("last_seen_ts", L),
    ("connection_state", S), ("connection_changed_ts", L), ("last_boot_ts", L), ("vendor", S),
    ("model", S), ("firmware_version", S), ("heartbeat_interval_s", L),
    ("offline_deadline_ts", L), ("liveness", S)))
DAILY_SCHEMA = T.StructType(fields(
    ("charge_point_id", S), ("day", S), ("sessions_total", L), ("sessions_started", L),
    ("sessions_completed", L), ("sessions_timed_out", L), ("sessions_in_progress", L),
    ("sessions_start_missing", L), ("energy_kwh_final", D), ("energy_kwh_provisional", D),
    ("avg_duration_seconds", D)))
DQ_SCHEMA = T.StructType(fields(
    ("batch_id", L), ("finished_at", T.TimestampType()), ("raw", L), ("silver_candidates", L),
    ("technical_duplicates", L), ("business_duplicates", L), ("quarantined", L),
    ("quarantined_by_reason", T.MapType(S, L)), ("conflicts", L), ("lag_p50_ms", L),
    ("lag_p95_ms", L), ("lag_p99_ms", L), ("data_clock_ms", L), ("raw_total", L),
    ("silver_total", L), ("duplicate_total", L), ("quarantine_total", L),
    ("conservation_ok", B)))

SCHEMAS = {SILVER: SILVER_SCHEMA, AUDIT: AUDIT_SCHEMA, QUARANTINE: QUARANTINE_SCHEMA,
           SESSIONS: SESSIONS_SCHEMA, HISTORY: HISTORY_SCHEMA, CURRENT: CURRENT_SCHEMA,
           HEALTH: HEALTH_SCHEMA, DAILY: DAILY_SCHEMA, DQ_BATCHES: DQ_SCHEMA}


def ensure_tables(spark, root, names=None):
    """Creates the (empty) Delta tables that do not exist yet; idempotent."""
    for name in names or SCHEMAS:
        p = path(root, name)
        if not DeltaTable.isDeltaTable(spark, p):
            spark.createDataFrame([], SCHEMAS[name]).write.format("delta").mode("ignore").save(p)


def read(spark, root, name):
    return spark.read.format("delta").load(path(root, name))


def insert_new(spark, root, name, df, key_cols):
    """Insert-only MERGE keyed by key_cols: a retried batch inserts nothing twice."""
    cond = " AND ".join(f"t.{c} <=> s.{c}" for c in key_cols)
    (DeltaTable.forPath(spark, path(root, name)).alias("t")
     .merge(df.alias("s"), cond).whenNotMatchedInsertAll().execute())


def replace_keys(spark, root, name, new_rows, affected, key_cols, row_cols):
    """Makes the rows of the affected keys (affected: DataFrame of key_cols) equal new_rows, in
    one MERGE (one atomic commit): rows matched by row_cols are updated, new ones inserted, and
    the target's rows of an affected key that new_rows no longer has are deleted. This is the
    "recompute the affected keys and MERGE" write of every Gold table; running it twice with
    the same input changes nothing the second time."""
    table = DeltaTable.forPath(spark, path(root, name))
    target = table.toDF()
    cols = [f.name for f in SCHEMAS[name].fields]
    stale = (target.join(F.broadcast(affected.select(*key_cols).distinct()), key_cols, "left_semi")
             .join(new_rows.select(*row_cols), row_cols, "left_anti")
             .select(*row_cols).withColumn("_delete", F.lit(True)))
    src = (new_rows.select(*cols).withColumn("_delete", F.lit(False))
           .unionByName(stale, allowMissingColumns=True))
    cond = " AND ".join(f"t.{c} <=> s.{c}" for c in row_cols)
    comparable = [f.name for f in SCHEMAS[name].fields
                  if f.name not in row_cols and not isinstance(f.dataType, T.MapType)]
    changed = " OR ".join(f"NOT (t.{c} <=> s.{c})" for c in comparable) or "false"
    (table.alias("t").merge(src.alias("s"), cond)
     .whenMatchedDelete(condition="s._delete")
     .whenMatchedUpdate(condition=f"NOT s._delete AND ({changed})",
                        set={c: f"s.{c}" for c in cols})
     .whenNotMatchedInsert(condition="NOT s._delete", values={c: f"s.{c}" for c in cols})
     .execute())


def package_zip():
    """The ocppgw_spark package as a zip for SparkContext.addPyFile (spark-submit without a
    wheel): the Python workers import the rules from it. None when it is not a folder."""
    import atexit
    import shutil
    import tempfile
    here = os.path.dirname(os.path.abspath(__file__))
    if not os.path.isdir(here):
        return None
    tmp = tempfile.mkdtemp(prefix="ocppgw_spark-")
    atexit.register(shutil.rmtree, tmp, True)
    return shutil.make_archive(os.path.join(tmp, "ocppgw_spark"), "zip", os.path.dirname(here),
                               "ocppgw_spark")
