"""ocppgw_spark.gold: Silver -> Gold (charging_sessions, charging_stats_daily,
connector_status_history, connector_current_status, charge_point_health).
Rules: docs/analytics_rules.md ("Gold"), applied by rules.py.

Gold is a pure function of Silver and the data clock: for each micro-batch the affected keys
(session = charge point + transaction, connector, charge point) are found from the batch's
Silver candidates plus the sweeper's expired keys, every affected key is recomputed from all
its Silver rows, and the result replaces that key's rows with one MERGE per table
(tables.replace_keys). Replaying the same events, in any order or batching, gives the same Gold.
"""
import json

from pyspark.sql import Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

from . import rules
from . import tables as t
from .faults import crash_point

CP, TX = "charge_point_id", "transaction_id"
CONNECTOR_KEY = [CP, "evse_id", "connector_id"]


def _session(cp, tx, events, conflict, clock):
    evs = [e.asDict() for e in events]
    return rules.compute_session(cp, tx, evs, conflict, clock)


def _daily(sessions):
    return rules.compute_daily([s.asDict() for s in sessions])


def _health(last_hb, last_seen, conn_state, conn_ts, boot_ts, boot_extra, clock):
    extra = json.loads(boot_extra) if boot_extra else {}
    return rules.compute_health(last_hb, last_seen, conn_state, conn_ts, boot_ts, extra, clock)


session_udf = F.udf(_session, t.SESSIONS_SCHEMA)
daily_udf = F.udf(_daily, T.StructType(t.DAILY_SCHEMA.fields[2:]))
health_udf = F.udf(_health, T.StructType(t.HEALTH_SCHEMA.fields[1:]))


def affected_keys(spark, root, candidates, clock):
    """(sessions, connectors, charge points) to recompute: every key a candidate of this batch
    belongs to (winners, duplicates and conflicts alike), plus the sweeper's: open sessions
    idle past the timeout and ONLINE charge points past their deadline on the data clock."""
    sessions = (candidates.filter(F.col("event_type").isin(*rules.SESSION_TYPES)
                                  & F.col(TX).isNotNull()).select(CP, TX)
                .unionByName(t.read(spark, root, t.SESSIONS)
                             .filter(F.col("is_open")
                                     & (F.col("last_event_ts") < clock - rules.SESSION_TIMEOUT_MS))
                             .select(CP, TX))
                .distinct())
    connectors = (candidates.filter("event_type = 'StatusNotification'")
                  .select(CP, F.coalesce("evse_id", F.lit(0)).alias("evse_id"),
                          F.coalesce("connector_id", F.lit(0)).alias("connector_id"))
                  .distinct())
    cps = (candidates.select(CP)
           .unionByName(t.read(spark, root, t.HEALTH)
                        .filter((F.col("liveness") == "ONLINE")
                                & (F.col("offline_deadline_ts") < clock)).select(CP))
           .distinct())
    # fixed (no lineage) before the MERGEs below change the tables they read
    return sessions.localCheckpoint(), connectors.localCheckpoint(), cps.localCheckpoint()


def recompute_sessions(spark, root, keys, clock):
    silver = t.read(spark, root, t.SILVER)
    events = (silver.filter(F.col("event_type").isin(*rules.SESSION_TYPES))
              .join(F.broadcast(keys), [CP, TX], "left_semi"))
    conflicts = (t.read(spark, root, t.QUARANTINE)
                 .filter("reason = 'CONFLICT' AND status IN ('NEW', 'REPAIRED')")
                 .select(CP, TX).distinct().withColumn("conflict", F.lit(True)))
    per_key = (events.groupBy(CP, TX).agg(F.collect_list(F.struct(
        "event_id", "event_type", "event_ts", "ingest_ts", "seq_no", "meter_wh", "connector_id",
        "stop_reason", F.array_contains("flags", rules.CLOCK_SKEW).alias("clock_skew")))
        .alias("events"))
        .join(conflicts, [CP, TX], "left"))
    rows = per_key.select(session_udf(CP, TX, "events", F.coalesce("conflict", F.lit(False)),
                                      F.lit(clock)).alias("s")).select("s.*")
    t.replace_keys(spark, root, t.SESSIONS, rows, keys, [CP, TX], [CP, TX])


def recompute_daily(spark, root, cps):
    """Every day of the affected charge points, from their sessions (a late start can move a
    session to another day, so the charge point is the unit, not the day)."""
    sessions = t.read(spark, root, t.SESSIONS).join(F.broadcast(cps), CP, "left_semi")
    rows = (sessions.groupBy(CP, F.col("stats_day").alias("day"))
            .agg(F.collect_list(F.struct("transaction_id", "start_ts", "session_status",
                                         "duration_seconds", "energy_kwh", "energy_is_final"))
                 .alias("sessions"))
            .select(CP, "day", daily_udf("sessions").alias("d"))
            .select(CP, "day", *[F.col("d." + f.name).alias(f.name)
                                 for f in t.DAILY_SCHEMA.fields[2:]]))
    t.replace_keys(spark, root, t.DAILY, rows, cps, [CP], [CP, "day"])


def recompute_connectors(spark, root, keys):
    """History: one interval per status event in (event_ts, seq_no, event_id) order, closed by
    the next; current: the last interval."""
    events = (t.read(spark, root, t.SILVER).filter("event_type = 'StatusNotification'")
              .withColumn("evse_id", F.coalesce("evse_id", F.lit(0)))
              .withColumn("connector_id", F.coalesce("connector_id", F.lit(0)))
              .join(F.broadcast(keys), CONNECTOR_KEY, "left_semi"))
    order = Window.partitionBy(*CONNECTOR_KEY).orderBy(
        "event_ts", F.coalesce("seq_no", F.lit(-1)), "event_id")
    history = events.select(
        *CONNECTOR_KEY, F.col("event_ts").alias("valid_from"), "event_id",
        F.lead("event_ts").over(order).alias("valid_to"),
        F.col("connector_status").alias("status"), "error_code", "seq_no",
        F.row_number().over(order.orderBy(F.desc("event_ts"), F.desc(F.coalesce(
            "seq_no", F.lit(-1))), F.desc("event_id"))).alias("from_last")).localCheckpoint()
    t.replace_keys(spark, root, t.HISTORY, history.drop("from_last"), keys, CONNECTOR_KEY,
                   CONNECTOR_KEY + ["valid_from", "event_id"])
    current = history.filter("from_last = 1").select(
        *CONNECTOR_KEY, "status", "error_code", F.col("valid_from").alias("status_since"),
        "event_id", "seq_no")
    t.replace_keys(spark, root, t.CURRENT, current, keys, CONNECTOR_KEY, CONNECTOR_KEY)


def recompute_health(spark, root, cps, clock):
    events = t.read(spark, root, t.SILVER).join(F.broadcast(cps), CP, "left_semi")

    def latest(event_type, value):
        return F.max_by(value, F.when(F.col("event_type") == event_type,
                                      F.struct("event_ts", "event_id")))

    agg = events.groupBy(CP).agg(
        F.max("event_ts").alias("last_seen"),
        F.max(F.when(F.col("event_type") == "Heartbeat", F.col("event_ts"))).alias("last_hb"),
        latest("Connection", F.get_json_object("extra", "$.state")).alias("conn_state"),
        latest("Connection", F.col("event_ts")).alias("conn_ts"),
        latest("BootNotification", F.col("event_ts")).alias("boot_ts"),
        latest("BootNotification", F.col("extra")).alias("boot_extra"))
    rows = agg.select(CP, health_udf("last_hb", "last_seen", "conn_state", "conn_ts", "boot_ts",
                                     "boot_extra", F.lit(clock)).alias("h")) \
        .select(CP, *[F.col("h." + f.name).alias(f.name) for f in t.HEALTH_SCHEMA.fields[1:]])
    t.replace_keys(spark, root, t.HEALTH, rows, cps, [CP], [CP])


def process_batch(spark, root, candidates, clock, batch_id):
    sessions, connectors, cps = affected_keys(spark, root, candidates, clock)
    recompute_sessions(spark, root, sessions, clock)
    crash_point(batch_id, "sessions")
    recompute_daily(spark, root, sessions.select(CP).distinct())
    recompute_connectors(spark, root, connectors)
    recompute_health(spark, root, cps, clock)
    n = {"sessions": sessions.count(), "connectors": connectors.count(),
         "charge_points": cps.count()}
    return n
