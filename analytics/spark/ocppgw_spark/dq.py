"""ocppgw_spark.dq: the data clock and the per-batch data-quality row (dq_batches), with the
conservation law raw = silver + duplicates + quarantine. Rules: docs/analytics_rules.md
("Data quality")."""
from pyspark.sql import functions as F

from . import tables as t


def data_clock(spark, root, batch_id, valid):
    """max(previous batches' clock, max over this batch's valid records of
    min(event_ts, ingest_ts + skew tolerance)): the clock timeouts and liveness use; wall time
    never enters Gold. Idempotent for a retried batch (previous = batch ids below this one)."""
    prev = (t.read(spark, root, t.DQ_BATCHES).filter(F.col("batch_id") < batch_id)
            .agg(F.max("data_clock_ms")).first()[0])
    cur = valid.agg(F.max("clock_ms")).first()[0]
    return max(v for v in (prev, cur, 0) if v is not None)


def record(spark, root, batch_id, counts, valid, clock):
    """Writes the batch's dq_batches row (MERGE by batch_id) and returns it. The totals are
    counted in the tables after the batch's writes, so a lost or doubled row shows up as
    conservation_ok = false."""
    prev_raw = (t.read(spark, root, t.DQ_BATCHES).filter(F.col("batch_id") < batch_id)
                .agg(F.sum("raw")).first()[0]) or 0
    lags = valid.select((F.col("ingest_ts") - F.col("event_ts")).alias("lag")).agg(
        F.percentile_approx("lag", [0.5, 0.95, 0.99], 10000)).first()[0] or [None] * 3
    totals = {name: t.read(spark, root, table).count()
              for name, table in (("silver_total", t.SILVER), ("duplicate_total", t.AUDIT),
                                  ("quarantine_total", t.QUARANTINE))}
    raw_total = prev_raw + counts["raw"]
    row = {
        "batch_id": batch_id, "raw": counts["raw"],
        "silver_candidates": counts.get("silver_candidates"),
        "technical_duplicates": counts["technical_duplicates"],
        "business_duplicates": counts["business_duplicates"],
        "quarantined": sum(counts["quarantined_by_reason"].values()) + counts["conflicts"],
        "quarantined_by_reason": dict(counts["quarantined_by_reason"],
                                      **({"CONFLICT": counts["conflicts"]}
                                         if counts["conflicts"] else {})),
        "conflicts": counts["conflicts"], "lag_p50_ms": lags[0], "lag_p95_ms": lags[1],
        "lag_p99_ms": lags[2], "data_clock_ms": clock, "raw_total": raw_total, **totals,
        "conservation_ok": raw_total == sum(totals.values()),
    }
    df = spark.createDataFrame([row], t.DQ_SCHEMA) \
        .withColumn("finished_at", F.current_timestamp())
    t.replace_keys(spark, root, t.DQ_BATCHES, df, df.select("batch_id"), ["batch_id"],
                   ["batch_id"])
    return row
