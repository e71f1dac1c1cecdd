# tests/delta/test_delta_mirror.py: the Delta tables our binary wrote, read by independent
# readers: pyarrow (the Parquet files) and delta-rs (`deltalake`: the log, time travel,
# checkpoints, history), compared with the SQLite analytics store they mirror.
import datetime as dt
import json
import os
import sqlite3

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from deltalake import DeltaTable

from conftest import delta_sync

TABLES = {
    # table: (SQLite query of the same rows, key columns)
    "charging_sessions": ("SELECT * FROM charging_sessions", ["session_id"]),
    "connector_status_history": ("SELECT * FROM connector_status_history",
                                 ["charge_point_id", "evse_id", "connector_id", "valid_from", "event_id"]),
    "connector_current_status": ("SELECT * FROM connector_current_status",
                                 ["charge_point_id", "evse_id", "connector_id"]),
    "charge_point_health": ("SELECT * FROM charge_point_health", ["charge_point_id"]),
    "charging_stats_daily": ("SELECT * FROM charging_stats_daily", ["charge_point_id", "day"]),
    "silver_events": ("SELECT * FROM silver_events", ["event_id"]),
    "quarantine_events": ("SELECT * FROM quarantine_events", ["quarantine_id"]),
    "dq_batches": ("SELECT * FROM dq_batches", ["batch_id"]),
}
TIMESTAMPS = {"start_ts", "stop_ts", "first_event_ts", "last_event_ts", "updated_at", "valid_from",
              "valid_to", "status_since", "last_heartbeat_ts", "last_seen_ts", "connection_changed_ts",
              "last_boot_ts", "offline_deadline_ts", "event_ts", "ingest_ts", "quarantined_at",
              "finished_at"}
BOOLEANS = {"energy_is_final", "is_open", "conservation_ok"}


def sqlite_rows(path, sql):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in db.execute(sql)]
    finally:
        db.close()


def as_delta_value(column, value):
    """A SQLite value as the mirror stores it (UTC microsecond timestamps, booleans, dates)."""
    if value is None:
        return None
    if column in TIMESTAMPS:
        return dt.datetime.fromtimestamp(value / 1000, tz=dt.timezone.utc)
    if column in BOOLEANS:
        return bool(value)
    if column in ("stats_day", "day"):
        return dt.date.fromisoformat(value)
    return value


def delta_rows(root, table, version=None):
    t = DeltaTable(os.path.join(root, table), version=version)
    return t, t.to_pyarrow_table().to_pylist()


def test_health_showed_the_mirror_running(fleet_data):
    section = fleet_data["health"]["delta"]
    assert section["cycles"] >= 1
    assert "alert" not in section, section
    assert section["last_cycle"]["ok"] is True
    # Per table, across cycles: the last outcome, the version the mirror saw (the sync after
    # the run may have committed more), and when the mirror last committed it.
    for table in TABLES:
        entry = section["tables"][table]
        assert 0 <= entry["version"] <= DeltaTable(os.path.join(fleet_data["root"], table)).version(), (table, entry)
        assert entry["outcome"] in ("committed", "unchanged", "already_applied"), (table, entry)
    assert any(e.get("last_commit", "").endswith("Z") for e in section["tables"].values()), section["tables"]


def assert_table_equals_sqlite(root, analytics, table):
    """The Delta table's current rows are the SQLite table's, value for value, key unique."""
    sql, keys = TABLES[table]
    source = sqlite_rows(analytics, sql)
    _, rows = delta_rows(root, table)
    assert len(rows) == len(source), (table, len(rows), len(source))
    def key(r):
        return tuple(str(r[k]) for k in keys)
    by_key = {key(r): r for r in rows}
    assert len(by_key) == len(rows), f"primary key unique in the Delta table {table}"
    for s in source:
        expected = {c: as_delta_value(c, v) for c, v in s.items()
                    if c not in ("row_hash",)}
        got = by_key[tuple(str(as_delta_value(k, s[k])) for k in keys)]
        for c, v in expected.items():
            if c in got:
                assert got[c] == v, (table, c, got[c], v)


@pytest.mark.parametrize("table", sorted(TABLES))
def test_each_table_equals_its_sqlite_source(fleet_data, table):
    assert_table_equals_sqlite(fleet_data["root"], fleet_data["analytics"], table)


def test_the_fleet_run_produced_data(fleet_data):
    # Guards the comparisons above against passing on empty tables.
    n = sqlite_rows(fleet_data["analytics"], "SELECT COUNT(*) AS n FROM silver_events")[0]["n"]
    s = sqlite_rows(fleet_data["analytics"], "SELECT COUNT(*) AS n FROM charging_sessions")[0]["n"]
    assert n > 500 and s > 5, (n, s)


def test_energy_per_day_and_sessions_per_status_agree(fleet_data):
    src = sqlite_rows(fleet_data["analytics"],
                      "SELECT day, SUM(energy_kwh_final) AS e FROM charging_stats_daily GROUP BY day")
    daily = DeltaTable(os.path.join(fleet_data["root"], "charging_stats_daily")).to_pyarrow_table()
    got = {}
    for r in daily.to_pylist():
        got[r["day"].isoformat()] = got.get(r["day"].isoformat(), 0) + r["energy_kwh_final"]
    assert {d["day"]: pytest.approx(d["e"]) for d in src} == got
    status_src = sqlite_rows(fleet_data["analytics"],
                             "SELECT session_status AS s, COUNT(*) AS n FROM charging_sessions GROUP BY 1")
    sessions = DeltaTable(os.path.join(fleet_data["root"], "charging_sessions")).to_pyarrow_table()
    counts = {}
    for s in sessions.column("session_status").to_pylist():
        counts[s] = counts.get(s, 0) + 1
    assert counts == {r["s"]: r["n"] for r in status_src}


def test_parquet_types_are_delta_types(fleet_data):
    t = DeltaTable(os.path.join(fleet_data["root"], "charging_sessions"))
    files = t.file_uris()
    assert files
    pf = pq.ParquetFile(files[0].replace("file://", ""))
    arrow_schema = pf.schema_arrow
    assert arrow_schema.field("start_ts").type == pa.timestamp("us", tz="UTC")
    assert arrow_schema.field("energy_is_final").type == pa.bool_()
    assert arrow_schema.field("energy_kwh").type == pa.float64()
    assert arrow_schema.field("event_count").type == pa.int64()
    assert "stats_day" not in arrow_schema.names, "partition values live in the log"
    assert pf.metadata.row_group(0).column(0).compression == "ZSTD"


def test_history_lists_our_commits_and_time_travel_works(fleet_data):
    t = DeltaTable(os.path.join(fleet_data["root"], "silver_events"))
    assert t.version() >= 1, "the mirror committed during the run and after it"
    history = t.history()
    assert len(history) == t.version() + 1
    ops = {h["operation"] for h in history}
    assert ops <= {"CREATE TABLE AS SELECT", "WRITE"}
    assert all(h.get("engineInfo") == "ocppgw-delta-mirror" for h in history)
    first = DeltaTable(os.path.join(fleet_data["root"], "silver_events"), version=0)
    assert first.version() == 0
    assert first.to_pyarrow_table().num_rows <= t.to_pyarrow_table().num_rows
    assert t.metadata().partition_columns == ["event_date"]
    assert t.protocol().min_reader_version == 1 and t.protocol().min_writer_version == 2


def test_same_cycle_twice_adds_nothing(copy_of):
    versions = {n: DeltaTable(os.path.join(copy_of["root"], n)).version() for n in TABLES}
    _, report = delta_sync(copy_of["data"])
    assert report["rows_written"] == 0
    assert {t["outcome"] for t in report["tables"].values()} <= {"unchanged", "already_applied"}
    assert versions == {n: DeltaTable(os.path.join(copy_of["root"], n)).version() for n in TABLES}


def bump_session(analytics, delta_kwh=1.0):
    """Changes one session of the oldest day as a late event would, with a new batch."""
    db = sqlite3.connect(analytics)
    try:
        sid, day = db.execute(
            "SELECT session_id, stats_day FROM charging_sessions ORDER BY stats_day, session_id LIMIT 1").fetchone()
        db.execute("UPDATE charging_sessions SET event_count = event_count + 1 WHERE session_id = ?", (sid,))
        db.execute("UPDATE pipeline_state SET value = value + 1 WHERE key = 'batch_seq'")
        db.commit()
        return sid, day
    finally:
        db.close()


def test_a_changed_session_rewrites_only_its_day(copy_of):
    path = os.path.join(copy_of["root"], "charging_sessions")
    before = DeltaTable(path)
    v0 = before.version()
    sid, day = bump_session(copy_of["analytics"])
    _, report = delta_sync(copy_of["data"])
    entry = report["tables"]["charging_sessions"]
    assert entry["outcome"] == "committed" and entry["partitions_replaced"] == 1
    after = DeltaTable(path)
    assert after.version() == v0 + 1
    log = os.path.join(path, "_delta_log", f"{after.version():020d}.json")
    actions = [json.loads(line) for line in open(log)]
    removed = [a["remove"] for a in actions if "remove" in a]
    added = [a["add"] for a in actions if "add" in a]
    assert removed and added
    assert {r["partitionValues"]["stats_day"] for r in removed} == {day}
    assert {a["partitionValues"]["stats_day"] for a in added} == {day}
    assert any(a["txn"]["version"] for a in actions if "txn" in a)
    row = [r for r in after.to_pyarrow_table().to_pylist() if r["session_id"] == sid][0]
    expected = sqlite_rows(copy_of["analytics"], f"SELECT event_count FROM charging_sessions WHERE session_id = '{sid}'")
    assert row["event_count"] == expected[0]["event_count"]
    stats = json.loads(added[0]["stats"])
    assert stats["numRecords"] >= 1 and "session_id" in stats["nullCount"]


def test_a_failed_audit_commits_nothing_and_the_next_cycle_publishes(copy_of):
    path = os.path.join(copy_of["root"], "charging_sessions")
    v0 = DeltaTable(path).version()
    bump_session(copy_of["analytics"])
    code, report = delta_sync(copy_of["data"], "--inject-duplicate-row", "charging_sessions", check=False)
    assert code == 1
    entry = report["tables"]["charging_sessions"]
    assert entry["outcome"] == "audit_failed"
    assert "duplicate primary key" in entry["detail"] or "rows" in entry["detail"]
    assert report["ok"] is False
    assert DeltaTable(path).version() == v0, "nothing published"
    staged = [f for d, _, fs in os.walk(os.path.join(path, "_staging")) for f in fs if f.endswith(".parquet")]
    assert staged, "the staged files are kept for inspection"
    # Other tables are unaffected by one table's audit.
    assert report["tables"]["silver_events"]["outcome"] in ("unchanged", "already_applied")
    _, report = delta_sync(copy_of["data"])
    assert report["tables"]["charging_sessions"]["outcome"] == "committed"
    assert DeltaTable(path).version() == v0 + 1


def test_checkpoint_every_ten_commits_is_read_by_delta_rs(copy_of):
    path = os.path.join(copy_of["root"], "charging_sessions")
    while DeltaTable(path).version() < 11:
        bump_session(copy_of["analytics"])
        delta_sync(copy_of["data"])
    log = os.path.join(path, "_delta_log")
    assert os.path.exists(os.path.join(log, f"{10:020d}.checkpoint.parquet"))
    last = json.load(open(os.path.join(log, "_last_checkpoint")))
    assert last["version"] == 10
    cp = pq.read_table(os.path.join(log, f"{10:020d}.checkpoint.parquet"))
    assert cp.num_rows == last["size"]
    adds = [a for a in cp.column("add").to_pylist() if a is not None]
    at10 = DeltaTable(path, version=10)
    assert sorted(a["path"] for a in adds) == sorted(os.path.relpath(u.replace("file://", ""), path) for u in at10.file_uris())
    # delta-rs starts from the checkpoint; hide the JSON commits it covers to prove it.
    for v in range(0, 10):
        os.rename(os.path.join(log, f"{v:020d}.json"), os.path.join(log, f".hidden-{v}.json"))
    try:
        t = DeltaTable(path)
        assert t.version() >= 11
        rows = t.to_pyarrow_table().num_rows
        assert rows == sqlite_rows(copy_of["analytics"], "SELECT COUNT(*) AS n FROM charging_sessions")[0]["n"]
    finally:
        for v in range(0, 10):
            os.rename(os.path.join(log, f".hidden-{v}.json"), os.path.join(log, f"{v:020d}.json"))
