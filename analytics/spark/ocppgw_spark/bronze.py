"""ocppgw_spark.bronze: the Kafka topic (Event Hubs' Kafka endpoint in production) -> the Bronze
Delta table, every record as received: key, value, topic, partition, offset, broker timestamp
and ingest time. Append-only, nothing parsed or dropped; the checkpoint plus Delta's
exactly-once streaming sink make a restarted query neither lose nor repeat a record.
Rules: docs/analytics_rules.md ("Bronze")."""
from pyspark.sql import functions as F

from . import tables as t


def stream(spark, bootstrap, topic, kafka_options=None, starting_offsets="earliest",
           max_offsets_per_trigger=None):
    reader = (spark.readStream.format("kafka")
              .option("kafka.bootstrap.servers", bootstrap)
              .option("subscribe", topic)
              .option("startingOffsets", starting_offsets)
              .option("failOnDataLoss", "true"))
    for k, v in (kafka_options or {}).items():
        reader = reader.option(k if k.startswith("kafka.") else "kafka." + k, v)
    if max_offsets_per_trigger:
        reader = reader.option("maxOffsetsPerTrigger", str(max_offsets_per_trigger))
    now = F.current_timestamp()
    return reader.load().select(
        F.col("key").cast("string").alias("key"), F.col("value").cast("string").alias("value"),
        "topic", "partition", "offset", "timestamp", now.alias("ingest_time"),
        F.to_date(now).alias("ingest_date"))


def start(spark, root, checkpoint, trigger, **kafka):
    """Starts the Bronze query (append to <root>/bronze_raw_events, partitioned by ingest
    date); returns the StreamingQuery."""
    return (stream(spark, **kafka).writeStream.format("delta")
            .queryName("ocppgw_bronze")
            .outputMode("append")
            .partitionBy("ingest_date")
            .option("checkpointLocation", checkpoint)
            .trigger(**trigger)
            .start(t.path(root, t.BRONZE)))
