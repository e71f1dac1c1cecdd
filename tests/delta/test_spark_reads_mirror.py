# tests/delta/test_spark_reads_mirror.py: the Delta tables our binary wrote, read end to end by
# Apache Spark with Delta Lake (delta-spark), the reader the mirror exists for: every table
# equals its SQLite source, aggregates agree, Spark's data skipping on our file stats gives the
# right answers, DESCRIBE HISTORY and time travel, a checkpoint of ours, and Spark writing to a
# mirrored table between our cycles (we continue Spark's log, Spark continues ours).
# Set-up: scripts/spark.sh (pyspark + delta-spark in .venv, Delta jars in ~/.cache/ocppgw/ivy);
# one SparkSession for the module (scripts/spark_session.py). A missing pyspark FAILS the tests.
import datetime as dt
import json
import os
import sqlite3
import sys

import pytest
from deltalake import DeltaTable

import test_delta_mirror as mirror  # the table list and the SQLite -> Delta type mapping
from conftest import ROOT, delta_sync

sys.path.insert(0, os.path.join(ROOT, "scripts"))

APP_ID = "ocppgw-delta-mirror"
# Partition columns the mirror derives from a millisecond timestamp (UTC day).
DERIVED_DAYS = {"valid_from_date": "valid_from", "event_date": "event_ts",
                "quarantined_date": "quarantined_at", "finished_date": "finished_at"}


@pytest.fixture(scope="module")
def spark():
    missing = None
    try:
        import pyspark  # noqa: F401
        import delta  # noqa: F401
    except ImportError as e:
        missing = str(e)
    if missing:  # never a skip: CI must run these tests
        pytest.fail(f"Spark is not installed in {sys.executable} ({missing}): run scripts/spark.sh "
                    "(pyspark + delta-spark pinned in scripts/spark-requirements.txt)", pytrace=False)
    from spark_session import local_spark
    session = local_spark("ocppgw-delta-spark-test")
    yield session
    session.stop()


def sqlite_all(path, sql, *args):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return db.execute(sql, args).fetchall()
    finally:
        db.close()


def count(path, table):
    return sqlite_all(path, f"SELECT COUNT(*) FROM {table}")[0][0]


def load(spark, path, **options):
    reader = spark.read.format("delta")
    for k, v in options.items():
        reader = reader.option(k, v)
    return reader.load(path)


def history(spark, path):
    rows = spark.sql(f"DESCRIBE HISTORY delta.`{path}`").collect()
    return sorted((r.asDict() for r in rows), key=lambda h: h["version"])


def commits(path):
    log = os.path.join(path, "_delta_log")
    return sorted(int(f[:20]) for f in os.listdir(log) if f.endswith(".json") and f[:20].isdigit())


def actions(path, version):
    with open(os.path.join(path, "_delta_log", f"{version:020d}.json")) as f:
        return [json.loads(line) for line in f if line.strip()]


def change_batch(analytics, sql, *args):
    """Changes the SQLite source as a pipeline batch would: rows, then a new batch sequence."""
    db = sqlite3.connect(analytics)
    try:
        db.execute(sql, args)
        db.execute("UPDATE pipeline_state SET value = value + 1 WHERE key = 'batch_seq'")
        db.commit()
    finally:
        db.close()


def bump_oldest_session(analytics):
    change_batch(analytics, "UPDATE charging_sessions SET event_count = event_count + 1 WHERE session_id = "
                            "(SELECT session_id FROM charging_sessions ORDER BY stats_day, session_id LIMIT 1)")


# --- every table, as Spark reads it -------------------------------------------------------------

def spark_rows(df):
    """The rows with timestamps as UTC epoch microseconds and dates as ISO text (no time zone
    conversion on the Python side)."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T
    cols = []
    for f in df.schema.fields:
        if isinstance(f.dataType, T.TimestampType):
            cols.append(F.unix_micros(F.col(f.name)).alias(f.name))
        elif isinstance(f.dataType, T.DateType):
            cols.append(F.date_format(F.col(f.name), "yyyy-MM-dd").alias(f.name))
        else:
            cols.append(F.col(f.name))
    return [r.asDict() for r in df.select(cols).collect()]


def expected_value(column, value):
    """A SQLite value as spark_rows() gives it."""
    if value is None:
        return None
    if column in mirror.TIMESTAMPS:
        return value * 1000
    if column in mirror.BOOLEANS:
        return bool(value)
    return value


@pytest.mark.parametrize("table", sorted(mirror.TABLES))
def test_spark_reads_each_table_equal_to_sqlite(spark, fleet_data, table):
    from pyspark.sql import types as T
    path = os.path.join(fleet_data["root"], table)
    df = load(spark, path)
    # The schema Spark sees is the documented type mapping.
    types = {f.name: type(f.dataType) for f in df.schema.fields}
    for name, t in types.items():
        if name in mirror.TIMESTAMPS:
            assert t is T.TimestampType, (name, t)
        elif name in mirror.BOOLEANS:
            assert t is T.BooleanType, (name, t)
        elif name in DERIVED_DAYS or name in ("stats_day", "day"):
            assert t is T.DateType, (name, t)
        else:
            assert t in (T.LongType, T.DoubleType, T.StringType), (name, t)
    db = sqlite3.connect(f"file:{fleet_data['analytics']}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    try:
        source = [dict(r) for r in db.execute(mirror.TABLES[table][0])]
    finally:
        db.close()
    rows = spark_rows(df)
    assert df.count() == len(rows) == len(source), (table, df.count(), len(rows), len(source))
    keys = mirror.TABLES[table][1]

    def key(r):
        return tuple(str(r[k]) for k in keys)
    got = {key(r): r for r in rows}
    assert len(got) == len(rows), "primary key unique as Spark reads it"
    for s in source:
        want = {c: expected_value(c, v) for c, v in s.items()}
        row = got.pop(key(want), None)
        assert row is not None, (table, key(want), "missing in Spark")
        for c, v in row.items():
            if c in DERIVED_DAYS:
                day = dt.datetime.fromtimestamp(s[DERIVED_DAYS[c]] / 1000, tz=dt.timezone.utc).date()
                assert v == day.isoformat(), (table, c, v, day)
            else:
                assert c in want, (table, c, "not in SQLite")
                assert v == want[c], (table, key(want), c, v, want[c])
    assert not got, ("rows Spark read that SQLite does not have", list(got)[:3])


def test_the_fleet_run_gave_spark_something_to_read(fleet_data):
    # Guards the comparisons against passing on empty or one-version tables.
    assert count(fleet_data["analytics"], "silver_events") > 500
    assert count(fleet_data["analytics"], "charging_sessions") > 5
    assert count(fleet_data["analytics"], "quarantine_events") > 0
    assert len(commits(os.path.join(fleet_data["root"], "charging_sessions"))) >= 3


def test_spark_aggregates_equal_sqlite(spark, fleet_data):
    from pyspark.sql import functions as F
    root, db = fleet_data["root"], fleet_data["analytics"]
    sessions = load(spark, os.path.join(root, "charging_sessions"))
    energy = {r["stats_day"].isoformat(): r["e"]
              for r in sessions.groupBy("stats_day").agg(F.sum("energy_kwh").alias("e")).collect()}
    want = dict(sqlite_all(db, "SELECT stats_day, SUM(energy_kwh) FROM charging_sessions GROUP BY 1"))
    assert energy.keys() == want.keys()
    for day, e in want.items():
        assert energy[day] == pytest.approx(e, abs=1e-9) if e is not None else energy[day] is None, day
    assert sum(e for e in energy.values() if e) > 0, "some energy was charged"
    per_status = {r["session_status"]: r["n"]
                  for r in sessions.groupBy("session_status").agg(F.count("*").alias("n")).collect()}
    assert per_status == dict(sqlite_all(db, "SELECT session_status, COUNT(*) FROM charging_sessions GROUP BY 1"))
    # charging_stats_daily: the day totals of every measure.
    measures = ["sessions_total", "sessions_started", "sessions_completed", "sessions_timed_out",
                "sessions_in_progress", "sessions_start_missing", "energy_kwh_final",
                "energy_kwh_provisional"]
    daily = load(spark, os.path.join(root, "charging_stats_daily"))
    got = {r["day"].isoformat(): [r[m] for m in measures]
           for r in daily.groupBy("day").agg(*[F.sum(m).alias(m) for m in measures]).collect()}
    src = {r[0]: list(r[1:]) for r in sqlite_all(
        db, "SELECT day, " + ", ".join(f"SUM({m})" for m in measures) + " FROM charging_stats_daily GROUP BY day")}
    assert got.keys() == src.keys() and got
    for day in src:
        assert got[day] == pytest.approx(src[day]), (day, got[day], src[day])
    # Totals over all days, through Spark SQL on the path.
    total = spark.sql(f"SELECT SUM(sessions_total) AS s, SUM(energy_kwh_final) AS e "
                      f"FROM delta.`{os.path.join(root, 'charging_stats_daily')}`").collect()[0]
    s, e = sqlite_all(db, "SELECT SUM(sessions_total), SUM(energy_kwh_final) FROM charging_stats_daily")[0]
    assert total["s"] == s and total["e"] == pytest.approx(e)


@pytest.mark.parametrize("table,ts,text", [("silver_events", "event_ts", "charge_point_id"),
                                           ("charging_sessions", "first_event_ts", "session_id"),
                                           ("quarantine_events", "quarantined_at", "reason")])
def test_spark_data_skipping_on_our_stats_finds_the_rows(spark, fleet_data, table, ts, text):
    """Spark skips files by the minValues/maxValues of our add stats: wrong or mis-cut bounds
    would make it drop rows that match. Filters at the bounds themselves must find them."""
    path = os.path.join(fleet_data["root"], table)
    db = fleet_data["analytics"]
    (lo, hi, tlo, thi), = sqlite_all(db, f"SELECT MIN({ts}), MAX({ts}), MIN({text}), MAX({text}) FROM {table}")
    checks = [(f"{ts} = timestamp_micros({lo * 1000})", f"{ts} = {lo}"),
              (f"{ts} = timestamp_micros({hi * 1000})", f"{ts} = {hi}"),
              (f"{ts} >= timestamp_micros({hi * 1000})", f"{ts} >= {hi}"),
              (f"{ts} <= timestamp_micros({lo * 1000})", f"{ts} <= {lo}"),
              (f"{text} = '{tlo}'", f"{text} = '{tlo}'"),
              (f"{text} = '{thi}'", f"{text} = '{thi}'"),
              (f"{text} >= '{thi}'", f"{text} >= '{thi}'")]
    df = load(spark, path)
    for spark_filter, sqlite_filter in checks:
        want = sqlite_all(db, f"SELECT COUNT(*) FROM {table} WHERE {sqlite_filter}")[0][0]
        assert want >= 1
        assert df.where(spark_filter).count() == want, (table, spark_filter)


# --- the log: history, time travel, checkpoints -------------------------------------------------

@pytest.mark.parametrize("table", ["charging_sessions", "silver_events"])
def test_describe_history_and_time_travel(spark, fleet_data, table):
    path = os.path.join(fleet_data["root"], table)
    versions = commits(path)
    h = history(spark, path)
    assert [e["version"] for e in h] == versions == list(range(len(versions))), "versions 0..N"
    assert len(versions) >= 2, "the mirror committed during the run and after it"
    assert h[0]["operation"] == "CREATE TABLE AS SELECT"
    assert {e["operation"] for e in h[1:]} == {"WRITE"}
    for e in h:
        assert e["engineInfo"] == APP_ID, e
        assert e["readVersion"] == (e["version"] - 1 if e["version"] else None), e
        assert e["operationParameters"]["mode"] == "Overwrite"
        # Each version names the analytics batch it mirrors. A mirror cycle that comes before
        # the first batch (the batch lingers up to analytics_linger_ms) creates the table empty.
        if int(e["operationParameters"]["analyticsBatchSeq"]) == 0:
            assert e["version"] == 0, e
            assert DeltaTable(path, version=0).to_pyarrow_table().num_rows == 0, e
    seqs = [int(e["operationParameters"]["analyticsBatchSeq"]) for e in h]
    assert seqs == sorted(seqs) and seqs[-1] >= 1, seqs
    # Every version, read by Spark, has the row count delta-rs gives that version; the SQL
    # form of time travel for the first one.
    counts = []
    for v in versions:
        n = load(spark, path, versionAsOf=v).count()
        want = DeltaTable(path, version=v).to_pyarrow_table().num_rows
        assert n == want, (table, v, n, want)
        counts.append(n)
    sql_n = spark.sql(f"SELECT COUNT(*) AS n FROM delta.`{path}` VERSION AS OF 0").collect()[0]["n"]
    assert sql_n == counts[0]
    assert counts[-1] == count(fleet_data["analytics"], table)
    assert len(set(counts)) > 1, ("old versions must differ from the latest to prove time travel", counts)


def test_spark_reads_our_checkpoint(spark, copy_of):
    path = os.path.join(copy_of["root"], "charging_sessions")
    log = os.path.join(path, "_delta_log")
    while max(commits(path)) < 12:
        bump_oldest_session(copy_of["analytics"])
        _, report = delta_sync(copy_of["data"])
        assert report["tables"]["charging_sessions"]["outcome"] == "committed", report
    assert os.path.exists(os.path.join(log, f"{10:020d}.checkpoint.parquet"))
    assert json.load(open(os.path.join(log, "_last_checkpoint")))["version"] == 10
    want_latest = count(copy_of["analytics"], "charging_sessions")
    want_at = {v: DeltaTable(path, version=v).to_pyarrow_table().num_rows for v in (10, 11)}
    event_counts = dict(sqlite_all(copy_of["analytics"], "SELECT session_id, event_count FROM charging_sessions"))
    # Spark starts from the checkpoint: hide the JSON commits before it (0..9) before Spark
    # ever reads this table, so only the checkpoint can give it the files of versions 0..9.
    # (10.json stays: Spark's time travel to a version wants that version's commit file.)
    for v in range(0, 10):
        os.rename(os.path.join(log, f"{v:020d}.json"), os.path.join(log, f".hidden-{v}.json"))
    try:
        df = load(spark, path)
        assert df.count() == want_latest
        got = {r["session_id"]: r["event_count"] for r in df.select("session_id", "event_count").collect()}
        assert got == event_counts, "the bumped event counts came through checkpoint + later commits"
        assert load(spark, path, versionAsOf=10).count() == want_at[10]
        assert load(spark, path, versionAsOf=11).count() == want_at[11]
        detail = spark.sql(f"DESCRIBE DETAIL delta.`{path}`").collect()[0]
        assert detail["partitionColumns"] == ["stats_day"]
        assert detail["minReaderVersion"] == 1 and detail["minWriterVersion"] == 2
        assert detail["numFiles"] == len(DeltaTable(path).file_uris())
    finally:
        for v in range(0, 10):
            os.rename(os.path.join(log, f".hidden-{v}.json"), os.path.join(log, f"{v:020d}.json"))


# --- two writers: Spark and our mirror ----------------------------------------------------------

def test_spark_and_the_mirror_continue_each_others_log(spark, copy_of):
    from pyspark.sql import functions as F
    path = os.path.join(copy_of["root"], "charging_sessions")
    analytics = copy_of["analytics"]
    # Our commits until the next commit of ours lands on a version ending in 9, so that Spark's
    # append is version ...0 and Spark writes its own checkpoint there (we continue after it).
    while max(commits(path)) % 10 != 8:
        bump_oldest_session(analytics)
        delta_sync(copy_of["data"])
    # A copy of one session on a day of its own (2026-01-01), a partition of ours besides the main day.
    (day_main,), = sqlite_all(analytics, "SELECT MAX(stats_day) FROM charging_sessions")
    db = sqlite3.connect(analytics)
    try:
        cols = [r[1] for r in db.execute("PRAGMA table_info(charging_sessions)")]
        fixed = {"session_id": "'extra-old-day'", "transaction_id": "'extra-old-day'",
                 "stats_day": "'2026-01-01'"}
        sel = ", ".join(fixed.get(c, c) for c in cols)
        db.execute(f"INSERT INTO charging_sessions ({', '.join(cols)}) SELECT {sel} FROM charging_sessions "
                   "WHERE stats_day = ? ORDER BY session_id LIMIT 1", (day_main,))
        db.execute("UPDATE pipeline_state SET value = value + 1 WHERE key = 'batch_seq'")
        db.commit()
    finally:
        db.close()
    _, report = delta_sync(copy_of["data"])
    entry = report["tables"]["charging_sessions"]
    assert entry["outcome"] == "committed" and entry["partitions_replaced"] == 1, entry
    ours = max(commits(path))
    assert ours % 10 == 9
    main_files = {u for u in DeltaTable(path).file_uris() if f"stats_day={day_main}" in u}
    assert len(main_files) == 1

    # 1. Spark appends to our table: three rows in a day the source does not have.
    sessions = load(spark, path)
    n_source = count(analytics, "charging_sessions")
    assert sessions.count() == n_source
    extra = (sessions.where(F.col("stats_day") == F.lit(day_main)).orderBy("session_id").limit(3)
             .withColumn("session_id", F.concat(F.lit("spark-"), F.col("session_id")))
             .withColumn("stats_day", F.to_date(F.lit("2020-01-01"))))
    extra.write.format("delta").mode("append").save(path)
    spark_version = ours + 1
    assert max(commits(path)) == spark_version
    assert os.path.exists(os.path.join(path, "_delta_log", f"{spark_version:020d}.checkpoint.parquet")), \
        "Spark checkpointed at its version ...0"
    spark_adds = [a["add"] for a in actions(path, spark_version) if "add" in a]
    assert len(spark_adds) == 1 and spark_adds[0]["partitionValues"] == {"stats_day": "2020-01-01"}
    assert load(spark, path).count() == n_source + 3
    assert DeltaTable(path).to_pyarrow_table().num_rows == n_source + 3, "delta-rs reads Spark's commit too"

    # 2. A cycle with no new batch leaves Spark's commit alone.
    _, report = delta_sync(copy_of["data"])
    assert report["tables"]["charging_sessions"]["outcome"] in ("already_applied", "unchanged"), report
    assert max(commits(path)) == spark_version
    assert load(spark, path).count() == n_source + 3

    # 3. A new batch changes the old day: our cycle commits on top of Spark's version.
    change_batch(analytics, "UPDATE charging_sessions SET event_count = event_count + 5 "
                            "WHERE session_id = 'extra-old-day'")
    code, report = delta_sync(copy_of["data"])
    entry = report["tables"]["charging_sessions"]
    assert code == 0 and entry["outcome"] == "committed", report
    assert max(commits(path)) == spark_version + 1 == entry["version"]
    mine = actions(path, spark_version + 1)
    removed = {r["remove"]["path"] for r in mine if "remove" in r}
    replaced = {r["remove"]["partitionValues"]["stats_day"] for r in mine if "remove" in r}
    # The mirror owns every partition: the changed day, and the day holding Spark's file (files
    # without our fingerprint tag make a partition's content unknown; a day the source does not
    # have is replaced by nothing). Our main day was not replaced: its file stays.
    assert spark_adds[0]["path"] in removed
    assert replaced == {"2026-01-01", "2020-01-01"}, replaced
    assert {u for u in DeltaTable(path).file_uris() if f"stats_day={day_main}" in u} == main_files

    h = history(spark, path)
    assert [e["version"] for e in h] == list(range(spark_version + 2))
    assert h[spark_version]["engineInfo"].startswith("Apache-Spark/") and \
        "Delta-Lake/" in h[spark_version]["engineInfo"]
    assert h[spark_version]["operationParameters"]["mode"] == "Append"
    assert h[spark_version]["readVersion"] == ours
    assert h[spark_version + 1]["engineInfo"] == APP_ID and h[spark_version + 1]["readVersion"] == spark_version
    assert h[ours]["engineInfo"] == APP_ID

    after = load(spark, path)
    assert after.count() == n_source
    assert after.where(F.col("session_id").startswith("spark-")).count() == 0
    (ec,), = sqlite_all(analytics, "SELECT event_count FROM charging_sessions WHERE session_id = 'extra-old-day'")
    assert after.where("session_id = 'extra-old-day'").select("event_count").collect()[0][0] == ec
    assert load(spark, path, versionAsOf=spark_version).count() == n_source + 3, "Spark's version stays readable"

    # 4. Spark appends again, on top of our commit.
    extra.withColumn("session_id", F.concat(F.lit("again-"), F.col("session_id"))) \
        .write.format("delta").mode("append").save(path)
    assert max(commits(path)) == spark_version + 2
    assert history(spark, path)[-1]["readVersion"] == spark_version + 1
    assert load(spark, path).count() == n_source + 3
    assert DeltaTable(path).to_pyarrow_table().num_rows == n_source + 3
