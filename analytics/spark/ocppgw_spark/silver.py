"""ocppgw_spark.silver: Bronze -> Silver (silver_events, duplicate_events_audit,
quarantine_events). Rules: docs/analytics_rules.md ("Silver"), applied by rules.py.

One micro-batch of Bronze records (process_batch):
  1. parse and validate each record (rules.parse_raw_event); failures -> quarantine with the
     first failing rule's reason code;
  2. technical dedup: a record whose event_id has a copy at an earlier Bronze position (in this
     batch or already stored) is a TECHNICAL duplicate (first copy wins: one charge point's
     records share a Kafka partition, so offset order is arrival order);
  3. business dedup per business key, order-independent: the key's distinct events (this
     batch's new ones + the ones stored in Silver, the audit and CONFLICT quarantine) resolve
     to one winner (earliest event_ts, ingest_ts, event_id) and BUSINESS duplicates, or, when
     their meter values differ, all to quarantine as CONFLICT (rules.resolve_business_key);
  4. writes: every output row is keyed by its Bronze coordinates (topic, partition, offset)
     and written with MERGE, so a batch retried after a crash (same Bronze range, from the
     checkpoint) converges to the same tables: nothing lost, nothing doubled.
Each Bronze record ends in exactly one of the three tables: the conservation law.
"""
import json

from pyspark.sql import Window
from pyspark.sql import functions as F

from . import rules
from .faults import crash_point
from . import tables as t


def _parse(value, key):
    e, v, event_id, cp = rules.parse_raw_event(value, key)
    out = {"ok": v.ok, "reason": v.reason, "violations": v.violations, "detail": v.detail,
           "read_event_id": event_id, "read_charge_point_id": cp}
    if e is not None:
        out.update({c: e.get(c) for c in t.EVENT_COLS})
        out["extra"] = json.dumps(e["extra"], sort_keys=True, separators=(",", ":"))
        out["business_key"] = rules.business_key(e)
        out["clock_ms"] = rules.validated_clock(e)
    return out


parse_udf = F.udf(_parse, t.PARSED)


def parse(bronze_df):
    """Bronze rows -> one row per record: its coordinates, raw value and key, and the parse."""
    p = bronze_df.select(
        F.col("topic").alias("kafka_topic"), F.col("partition").alias("kafka_partition"),
        F.col("offset").alias("kafka_offset"), F.col("key").alias("kafka_key"),
        F.col("value").alias("raw_payload"), parse_udf("value", "key").alias("p"))
    return p.select("kafka_topic", "kafka_partition", "kafka_offset", "kafka_key",
                    "raw_payload", "p.*")


def _stored_candidates(spark, root, keys):
    """The stored events of the given business keys that take part in business dedup."""
    cols = t.EVENT_COLS + t.COORD_COLS + ["raw", "batch_id"]
    silver = t.read(spark, root, t.SILVER).withColumn("raw", F.lit(None).cast("string"))
    audit = (t.read(spark, root, t.AUDIT).filter("duplicate_type = 'BUSINESS'")
             .withColumn("raw", F.col("payload")))
    quarantine = (t.read(spark, root, t.QUARANTINE)
                  .filter("reason = 'CONFLICT' AND status IN ('NEW', 'REPAIRED')")
                  .withColumn("raw", F.col("raw_payload")))
    stored = silver.select(*cols).unionByName(audit.select(*cols)).unionByName(
        quarantine.select(*cols))
    return stored.join(F.broadcast(keys), "business_key", "left_semi")


def _seen_event_ids(spark, root):
    """Every stored event_id with its Bronze position (silver, audit, CONFLICT quarantine)."""
    cols = ["event_id"] + t.COORD_COLS
    return (t.read(spark, root, t.SILVER).select(*cols)
            .unionByName(t.read(spark, root, t.AUDIT).select(*cols))
            .unionByName(t.read(spark, root, t.QUARANTINE).filter("reason = 'CONFLICT'")
                         .select(*cols)))


def resolve(candidates):
    """Per business key: place S (winner), D (BUSINESS duplicate of winner_event_id) or
    Q (CONFLICT). Same outcome as rules.resolve_business_key, in Spark SQL."""
    by_key = Window.partitionBy("business_key")
    order = Window.partitionBy("business_key").orderBy("event_ts", "ingest_ts", "event_id")
    meters = (F.count(F.lit(1)).over(by_key) != F.count("meter_wh").over(by_key)) & \
        (F.count("meter_wh").over(by_key) > 0)
    spread = (F.max("meter_wh").over(by_key) - F.min("meter_wh").over(by_key)) > 1e-9
    c = (candidates.withColumn("conflict", meters | F.coalesce(spread, F.lit(False)))
         .withColumn("rank", F.row_number().over(order))
         .withColumn("winner_event_id", F.first("event_id").over(
             order.rowsBetween(Window.unboundedPreceding, Window.unboundedFollowing))))
    return c.withColumn("place", F.when(F.col("conflict"), "Q")
                        .when(F.col("rank") == 1, "S").otherwise("D"))


def process_batch(spark, root, bronze_batch, batch_id):
    """Silver for one Bronze micro-batch. Returns (candidates, valid, counts): the resolved
    business-dedup candidates (Gold's affected keys come from them), every valid record
    (duplicates included: the data clock and lag use them) and the batch's counts."""
    # Materialised without lineage (localCheckpoint, not persist): a Delta write refreshes the
    # cached plans that read its table, which would re-run dedup against the tables just written.
    parsed = parse(bronze_batch).localCheckpoint()
    raw = parsed.count()
    now = F.current_timestamp()

    invalid = parsed.filter("NOT ok")
    valid = parsed.filter("ok")

    # 2. technical dedup: a copy is TECHNICAL when another copy of its event_id sits at an
    # earlier Bronze position, in this batch or stored. "Earlier", not "other": a retried batch
    # finds its own rows stored, and those must not demote the first copy.
    first = Window.partitionBy("event_id").orderBy(*t.COORD_COLS)
    position = F.struct(*t.COORD_COLS)
    earlier_stored = (valid.select("event_id", *t.COORD_COLS, position.alias("pos"))
                      .join(_seen_event_ids(spark, root)
                            .select("event_id", F.struct(*t.COORD_COLS).alias("stored_pos")),
                            "event_id")
                      .filter("stored_pos < pos")
                      .select(*t.COORD_COLS).distinct().withColumn("stored_copy", F.lit(True)))
    valid = (valid.withColumn("copy", F.row_number().over(first))
             .join(earlier_stored, t.COORD_COLS, "left")
             .withColumn("technical", (F.col("copy") > 1) | F.col("stored_copy").isNotNull())
             .localCheckpoint())
    technical = valid.filter("technical")
    fresh = valid.filter("NOT technical")

    # 3. business dedup over the keys this batch touches
    keys = fresh.select("business_key").distinct()
    new_cands = fresh.select(*t.EVENT_COLS, *t.COORD_COLS, F.col("raw_payload").alias("raw"),
                             F.lit(batch_id).cast("long").alias("batch_id"))
    # A retried batch finds its own rows stored already: keep the stored copy (first batch_id).
    candidates = (_stored_candidates(spark, root, keys).unionByName(new_cands)
                  .withColumn("_n", F.row_number().over(
                      Window.partitionBy(*t.COORD_COLS).orderBy("batch_id")))
                  .filter("_n = 1").drop("_n")
                  .withColumn("raw", F.coalesce("raw", F.to_json(F.struct(*t.EVENT_COLS)))))
    candidates = resolve(candidates).localCheckpoint()  # fixed before the writes below

    # 4. writes. Every row is keyed by its Bronze position (Silver: by business key, one row
    # each) and the order only ever adds a row before deleting its other copy: quarantine,
    # then the audit, then Silver. A crash between two writes leaves a record in two tables;
    # the retried batch sees both copies as one candidate (dropDuplicates above) and finishes.
    qid = F.sha2(F.concat_ws("|", "kafka_topic", "kafka_partition", "kafka_offset"), 256)
    bad_rows = invalid.select(
        qid.alias("quarantine_id"),
        *[F.lit(None).cast(f.dataType).alias(f.name) for f in t.EVENT
          if f.name not in ("event_id", "charge_point_id")],
        F.col("read_event_id").alias("event_id"),
        F.col("read_charge_point_id").alias("charge_point_id"),
        *t.COORD_COLS, "reason", "violations", "detail", "raw_payload", "kafka_key",
        F.lit("NEW").alias("status"), now.alias("quarantined_at"),
        F.lit(batch_id).cast("long").alias("batch_id"))
    conflict_rows = candidates.filter("place = 'Q'").select(
        qid.alias("quarantine_id"), *t.EVENT_COLS, *t.COORD_COLS,
        F.lit(rules.CONFLICT).alias("reason"), F.array(F.lit(rules.CONFLICT)).alias("violations"),
        F.concat(F.lit("business key "), "business_key",
                 F.lit(" has different meter values")).alias("detail"),
        F.col("raw").alias("raw_payload"), F.col("charge_point_id").alias("kafka_key"),
        F.lit("NEW").alias("status"), now.alias("quarantined_at"), "batch_id")
    t.insert_new(spark, root, t.QUARANTINE,
                 bad_rows.unionByName(conflict_rows), ["quarantine_id"])
    crash_point(batch_id, "quarantine")

    dup_rows = candidates.filter("place = 'D'").select(
        *t.EVENT_COLS, *t.COORD_COLS, F.lit("BUSINESS").alias("duplicate_type"),
        "winner_event_id", F.col("raw").alias("payload"), "batch_id")
    tech_rows = technical.select(
        *t.EVENT_COLS, *t.COORD_COLS, F.lit("TECHNICAL").alias("duplicate_type"),
        F.col("event_id").alias("winner_event_id"), F.col("raw_payload").alias("payload"),
        F.lit(batch_id).cast("long").alias("batch_id"))
    # BUSINESS rows of the touched keys become exactly dup_rows (a key that turned CONFLICT
    # hands its audited duplicates to the quarantine); TECHNICAL rows are only ever added (no
    # key of theirs is "affected", so none is ever deleted).
    t.replace_keys(spark, root, t.AUDIT, dup_rows.unionByName(tech_rows),
                   keys.withColumn("duplicate_type", F.lit("BUSINESS")),
                   ["business_key", "duplicate_type"], t.COORD_COLS)
    crash_point(batch_id, "audit")

    event_time = (F.col("event_ts") / 1000).cast("timestamp")
    winners = candidates.filter("place = 'S'").select(
        *t.EVENT_COLS, event_time.alias("event_time"), F.to_date(event_time).alias("event_date"),
        *t.COORD_COLS, "batch_id")
    # One row per business key: the winner replaces a demoted one; a CONFLICT key has none.
    t.replace_keys(spark, root, t.SILVER, winners, keys, ["business_key"], ["business_key"])
    crash_point(batch_id, "silver")

    counts = {
        "raw": raw,
        "technical_duplicates": technical.count(),
        "business_duplicates": candidates.filter("place = 'D'").count(),
        "conflicts": candidates.filter("place = 'Q'").count(),
        "quarantined_by_reason": {r["reason"]: r["n"] for r in
                                  invalid.groupBy("reason").agg(F.count("*").alias("n"))
                                  .collect()},
    }
    return candidates, valid, counts
