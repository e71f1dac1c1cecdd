"""ocppgw_spark.job: the command line of the Spark pipeline (run_pipeline.py calls main()).

    spark-submit ... analytics/spark/run_pipeline.py \\
        --root /data/lake --checkpoints /data/checkpoints \\
        --bootstrap-servers 127.0.0.1:9092 --topic ocpp-events [--available-now]

Two streaming queries: Bronze (Kafka -> bronze_raw_events) and Silver+Gold (bronze_raw_events
-> Silver tables -> Gold tables, one foreachBatch). --available-now processes what is there and
stops (a scheduled job); otherwise both run with a processing-time trigger until stopped.
Rules: docs/analytics_rules.md.
"""
import argparse
import json
import sys
import time

from . import bronze, dq, gold, silver
from . import tables as t


def parse_args(argv):
    p = argparse.ArgumentParser(prog="run_pipeline.py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--root", required=True, help="folder of the Delta tables")
    p.add_argument("--checkpoints", required=True, help="folder of the streaming checkpoints")
    p.add_argument("--bootstrap-servers", help="Kafka bootstrap servers (Event Hubs: "
                   "<namespace>.servicebus.windows.net:9093)")
    p.add_argument("--topic", default="ocpp-events")
    p.add_argument("--kafka-option", action="append", default=[], metavar="KEY=VALUE",
                   help="a Kafka client property, e.g. security.protocol=SASL_SSL (repeatable); "
                   "a value env:NAME is read from the environment")
    p.add_argument("--starting-offsets", default="earliest")
    p.add_argument("--layers", default="bronze,silver",
                   help="bronze, silver (Silver + Gold) or both (default)")
    p.add_argument("--available-now", action="store_true",
                   help="process everything available, then stop (scheduled jobs, tests)")
    p.add_argument("--interval", default="30 seconds", help="processing-time trigger")
    p.add_argument("--max-offsets-per-trigger", type=int)
    p.add_argument("--max-files-per-trigger", type=int,
                   help="Bronze files per Silver micro-batch (bounds a batch's size)")
    p.add_argument("--local", action="store_true",
                   help="start a local[2] session with scripts/spark_session.py (tests)")
    return p.parse_args(argv)


def kafka_options(pairs):
    import os
    out = {}
    for pair in pairs:
        k, _, v = pair.partition("=")
        out[k] = os.environ[v[4:]] if v.startswith("env:") else v
    return out


def session(args):
    if args.local:
        import os
        here = os.path.dirname(os.path.abspath(__file__))
        sys.path.insert(0, os.path.normpath(os.path.join(here, "../../../scripts")))
        from spark_session import local_spark
        return local_spark("ocppgw-spark-pipeline", kafka=True)
    from pyspark.sql import SparkSession
    return SparkSession.builder.appName("ocppgw-spark-pipeline").getOrCreate()


def silver_gold_batch(root):
    """The foreachBatch function of the Silver+Gold query."""
    def run(batch_df, batch_id):
        spark = batch_df.sparkSession
        t0 = time.monotonic()
        candidates, valid, counts = silver.process_batch(spark, root, batch_df, batch_id)
        t1 = time.monotonic()
        clock = dq.data_clock(spark, root, batch_id, valid)
        recomputed = gold.process_batch(spark, root, candidates, clock, batch_id)
        t2 = time.monotonic()
        row = dq.record(spark, root, batch_id, counts, valid, clock)
        t3 = time.monotonic()
        print("ocppgw_spark batch " + json.dumps(
            {"batch_id": batch_id, "raw": row["raw"], "raw_total": row["raw_total"],
             "silver_total": row["silver_total"], "duplicate_total": row["duplicate_total"],
             "quarantine_total": row["quarantine_total"],
             "conservation_ok": row["conservation_ok"], **recomputed,
             "seconds": {"silver": round(t1 - t0, 1), "gold": round(t2 - t1, 1),
                         "dq": round(t3 - t2, 1)}}), flush=True)
    return run


def start_silver(spark, args, trigger):
    reader = spark.readStream.format("delta")
    if args.max_files_per_trigger:
        reader = reader.option("maxFilesPerTrigger", str(args.max_files_per_trigger))
    return (reader.load(t.path(args.root, t.BRONZE)).writeStream
            .queryName("ocppgw_silver_gold")
            .foreachBatch(silver_gold_batch(args.root))
            .option("checkpointLocation", args.checkpoints.rstrip("/") + "/silver_gold")
            .trigger(**trigger)
            .start())


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    layers = set(args.layers.split(","))
    spark = session(args)
    zipped = t.package_zip()
    if zipped:
        spark.sparkContext.addPyFile(zipped)
    t.ensure_tables(spark, args.root)
    trigger = {"availableNow": True} if args.available_now else {"processingTime": args.interval}
    queries = []
    if "bronze" in layers:
        if not args.bootstrap_servers:
            sys.exit("--bootstrap-servers is required for the bronze layer")
        queries.append(bronze.start(
            spark, args.root, args.checkpoints.rstrip("/") + "/bronze", trigger,
            bootstrap=args.bootstrap_servers, topic=args.topic,
            kafka_options=kafka_options(args.kafka_option),
            starting_offsets=args.starting_offsets,
            max_offsets_per_trigger=args.max_offsets_per_trigger))
        if args.available_now:  # Silver then reads everything Bronze took
            queries.pop().awaitTermination()
    if "silver" in layers:
        from delta.tables import DeltaTable
        if not DeltaTable.isDeltaTable(spark, t.path(args.root, t.BRONZE)):
            spark.createDataFrame([], t.BRONZE_SCHEMA).write.format("delta") \
                .partitionBy("ingest_date").mode("ignore").save(t.path(args.root, t.BRONZE))
        queries.append(start_silver(spark, args, trigger))
    if args.available_now:
        for q in queries:
            q.awaitTermination()
    elif queries:
        spark.streams.awaitAnyTermination()
    spark.stop()
