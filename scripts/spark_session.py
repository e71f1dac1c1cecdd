"""scripts/spark_session.py: one local SparkSession with Delta Lake, the same for tests and
the Spark pipelines. Installed and pre-fetched by scripts/spark.sh (pyspark + delta-spark in
.venv, the Delta jars in an Ivy cache outside the checkout), so a session starts offline.

    sys.path.insert(0, "<repo>/scripts")
    from spark_session import local_spark
    spark = local_spark("my-app")          # local[2], Delta SQL extensions + catalog, UTC
    ...
    spark.stop()

Env: OCPPGW_SPARK_IVY (Ivy cache, default ~/.cache/ocppgw/ivy), OCPPGW_SPARK_MEMORY (driver
memory, default 1g), OCPPGW_SPARK_MASTER (default local[2]).
"""
import glob
import os
import sys

IVY = os.environ.get("OCPPGW_SPARK_IVY", os.path.join(os.path.expanduser("~"), ".cache/ocppgw/ivy"))


def delta_version():
    from importlib.metadata import version
    return version("delta-spark")


def delta_packages():
    """The Maven coordinates of the Delta jars matching the installed delta-spark."""
    import pyspark
    scala = "2.13" if pyspark.__version__.startswith("4.") else "2.12"
    v = delta_version()
    return [f"io.delta:delta-spark_{scala}:{v}", f"io.delta:delta-storage:{v}"]


def kafka_packages():
    """Spark's Kafka source (Structured Streaming) for the installed pyspark, and the jars it
    needs beyond Spark's own (the Spark pipeline, analytics/spark/)."""
    import pyspark
    scala = "2.13" if pyspark.__version__.startswith("4.") else "2.12"
    v = pyspark.__version__
    return [f"org.apache.spark:spark-sql-kafka-0-10_{scala}:{v}"]


# The Kafka source's own dependencies that pyspark's jars/ lacks (Ivy resolves them with it).
KAFKA_DEPENDENCY_JARS = ("org.apache.spark_spark-token-provider-kafka-0-10_*.jar",
                         "org.apache.kafka_kafka-clients-*.jar",
                         "org.apache.commons_commons-pool2-*.jar")


def packages(kafka=False):
    return delta_packages() + (kafka_packages() if kafka else [])


def cached_jars(kafka=False):
    """The Delta (and with kafka=True the Kafka source's) jars already in the Ivy cache
    (spark.sh fetched them), or None."""
    jars = []
    for coordinate in packages(kafka):
        group, artifact, v = coordinate.split(":")
        found = glob.glob(os.path.join(IVY, "jars", f"{group}_{artifact}-{v}.jar"))
        if not found:
            return None
        jars += found
    if kafka:
        for pattern in KAFKA_DEPENDENCY_JARS:
            found = sorted(glob.glob(os.path.join(IVY, "jars", pattern)))
            if not found:
                return None
            jars.append(found[-1])
    return jars


def quiet_log4j2():
    """A log4j2 configuration that prints only errors (Spark's default is INFO/WARN chatter)."""
    path = os.path.normpath(os.path.join(IVY, "..", "spark-log4j2.properties"))
    text = ("rootLogger.level = error\nrootLogger.appenderRef.stderr.ref = console\n"
            "appender.console.type = Console\nappender.console.name = console\n"
            "appender.console.target = SYSTEM_ERR\nappender.console.layout.type = PatternLayout\n"
            "appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n%ex\n")
    if not os.path.exists(path) or open(path).read() != text:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    return path


def local_spark(app="ocppgw", master=None, memory=None, extra=None, kafka=False):
    """A local SparkSession with Delta (and Spark's Kafka source with kafka=True): the cached
    jars when present (no resolution, offline), else the packages resolved from Maven Central
    into the Ivy cache."""
    try:
        from pyspark.sql import SparkSession
    except ImportError as e:  # fail loudly: a missing Spark is a set-up error, never a skip
        raise RuntimeError("pyspark is not installed in this Python; run scripts/spark.sh") from e
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # Python workers run this venv's Python
    # C1 only starts fast; its default 48 MB code cache fills within minutes of a long job
    # ("CodeCache is full. Compiler has been disabled": the rest then runs interpreted).
    java_opts = f"-Duser.timezone=UTC -XX:+UseSerialGC -XX:TieredStopAtLevel=1 " \
                f"-XX:ReservedCodeCacheSize=256m " \
                f"-Dlog4j2.configurationFile=file:{quiet_log4j2()}"
    b = (SparkSession.builder.appName(app)
         .master(master or os.environ.get("OCPPGW_SPARK_MASTER", "local[2]"))
         .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
         .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
         .config("spark.jars.ivy", IVY)
         .config("spark.driver.memory", memory or os.environ.get("OCPPGW_SPARK_MEMORY", "1g"))
         .config("spark.sql.shuffle.partitions", "2")
         .config("spark.default.parallelism", "2")
         .config("spark.databricks.delta.snapshotPartitions", "2")
         .config("spark.sql.files.maxPartitionBytes", str(64 << 20))
         .config("spark.sql.session.timeZone", "UTC")
         .config("spark.driver.extraJavaOptions", java_opts)
         .config("spark.ui.enabled", "false")
         .config("spark.ui.showConsoleProgress", "false")
         .config("spark.sql.warehouse.dir", os.path.normpath(os.path.join(IVY, "..", "spark-warehouse")))
         .config("spark.driver.host", "127.0.0.1")
         .config("spark.driver.bindAddress", "127.0.0.1"))
    jars = cached_jars(kafka)
    if jars:
        b = b.config("spark.jars", ",".join(jars))
    else:
        b = b.config("spark.jars.packages", ",".join(packages(kafka)))
    for k, v in (extra or {}).items():
        b = b.config(k, v)
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark
