"""ocppgw_spark: the Bronze/Silver/Gold pipeline on Apache Spark + Delta Lake from the gateway's
Kafka topic, with the same rules as the in-process analytics (docs/analytics_rules.md)."""
