# tests/delta/test_delta_crash.py: a mirror cycle killed (SIGKILL, as kill -9) at each step of
# write-audit-publish, then run again; and two mirror processes racing on one table. After
# each, every table equals its SQLite source: no row lost, none doubled, nothing left over.
import json
import os
import sqlite3
import subprocess

import pytest
from deltalake import DeltaTable

from conftest import OCPPGW, data_files, delta_sync
from test_delta_mirror import TABLES, assert_table_equals_sqlite, bump_session


def change_two_tables(analytics):
    """A new batch that changes charging_sessions and silver_events (two tables to commit)."""
    bump_session(analytics)
    db = sqlite3.connect(analytics)
    try:
        db.execute("UPDATE silver_events SET ingest_ts = ingest_ts + 1 WHERE event_id = "
                   "(SELECT event_id FROM silver_events ORDER BY event_id LIMIT 1)")
        db.commit()
    finally:
        db.close()


def sync_env(data, env, timeout=120):
    return subprocess.run([OCPPGW, "delta", "sync", "--data-dir", data], capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, **env})


def assert_everything_equal_and_clean(copy):
    for table in TABLES:
        assert_table_equals_sqlite(copy["root"], copy["analytics"], table)
        path = os.path.join(copy["root"], table)
        t = DeltaTable(path)
        live = sorted(os.path.relpath(u.replace("file://", ""), path) for u in t.file_uris())
        # Every parquet file on disk is live or was removed by a commit (kept for time travel):
        # none is left over by the crash.
        referenced = set(live)
        log = os.path.join(path, "_delta_log")
        for f in os.listdir(log):
            if f.endswith(".json"):
                for line in open(os.path.join(log, f)):
                    a = json.loads(line)
                    if "remove" in a:
                        referenced.add(a["remove"]["path"])
                    if "add" in a:
                        referenced.add(a["add"]["path"])
        stray = set(data_files(path)) - referenced
        assert not stray, (table, stray)
        staging = os.path.join(path, "_staging")
        assert not os.path.exists(staging) or not os.listdir(staging), (table, os.listdir(staging))


@pytest.mark.parametrize("point", ["staged", "placed:charging_sessions", "committed:charging_sessions",
                                   "before_commit:silver_events"])
def test_a_cycle_killed_at_each_step_is_completed_by_the_next(copy_of, point):
    change_two_tables(copy_of["analytics"])
    versions = {t: DeltaTable(os.path.join(copy_of["root"], t)).version() for t in TABLES}
    p = sync_env(copy_of["data"], {"OCPPGW_DELTA_CRASH_AT": point})
    assert p.returncode == -9, (p.returncode, p.stdout, p.stderr)
    after_crash = {t: DeltaTable(os.path.join(copy_of["root"], t)).version() for t in TABLES}
    # Tables publish in order (charging_sessions before silver_events): the last two points lie
    # between the two tables' commits.
    sessions_committed = point in ("committed:charging_sessions", "before_commit:silver_events")
    if sessions_committed:
        assert after_crash["charging_sessions"] == versions["charging_sessions"] + 1
    else:
        assert after_crash == versions, "nothing was committed before the crash"
    # Every table is readable at its last version right after the crash.
    for t in TABLES:
        DeltaTable(os.path.join(copy_of["root"], t)).to_pyarrow_table()
    _, report = delta_sync(copy_of["data"])
    assert report["tables"]["silver_events"]["outcome"] == "committed"
    expected_sessions = "already_applied" if sessions_committed else "committed"
    assert report["tables"]["charging_sessions"]["outcome"] == expected_sessions
    assert_everything_equal_and_clean(copy_of)


def test_a_cycle_killed_between_checkpoint_and_last_checkpoint(copy_of):
    path = os.path.join(copy_of["root"], "charging_sessions")
    while DeltaTable(path).version() < 9:
        bump_session(copy_of["analytics"])
        delta_sync(copy_of["data"])
    bump_session(copy_of["analytics"])
    p = sync_env(copy_of["data"], {"OCPPGW_DELTA_CRASH_AT": "checkpoint_written"})
    assert p.returncode == -9
    log = os.path.join(path, "_delta_log")
    assert os.path.exists(os.path.join(log, f"{10:020d}.checkpoint.parquet"))
    last = os.path.join(log, "_last_checkpoint")
    assert not os.path.exists(last) or '"version":10' not in open(last).read()
    assert DeltaTable(path).version() == 10, "the commit stands; readers list the checkpoint"
    bump_session(copy_of["analytics"])
    delta_sync(copy_of["data"])
    assert DeltaTable(path).version() == 11
    assert_everything_equal_and_clean(copy_of)


def test_two_processes_racing_on_one_table(copy_of):
    """Both prepare on the same version and pause before committing: one wins it, the other
    finds its own work (same txn app id and version) in the winner's commit and adds nothing."""
    path = os.path.join(copy_of["root"], "charging_sessions")
    v0 = DeltaTable(path).version()
    bump_session(copy_of["analytics"])
    env = {**os.environ, "OCPPGW_DELTA_PAUSE_AT": "before_commit:charging_sessions=1500"}
    procs = [subprocess.Popen([OCPPGW, "delta", "sync", "--data-dir", copy_of["data"]],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for _ in range(2)]
    reports = [json.loads(p.communicate(timeout=120)[0]) for p in procs]
    outcomes = sorted(r["tables"]["charging_sessions"]["outcome"] for r in reports)
    assert outcomes == ["already_applied", "committed"], outcomes
    assert DeltaTable(path).version() == v0 + 1, "one version for the one piece of work"
    assert_everything_equal_and_clean(copy_of)


def test_a_violated_conservation_law_publishes_nothing(copy_of):
    bump_session(copy_of["analytics"])
    versions = {t: DeltaTable(os.path.join(copy_of["root"], t)).version() for t in TABLES}
    code, report = delta_sync(copy_of["data"], "--inject-conservation-violation", check=False)
    assert code == 1 and report["ok"] is False
    entry = report["tables"]["charging_sessions"]
    assert entry["outcome"] == "audit_failed" and "conservation" in entry["detail"]
    assert versions == {t: DeltaTable(os.path.join(copy_of["root"], t)).version() for t in TABLES}
    _, report = delta_sync(copy_of["data"])
    assert report["tables"]["charging_sessions"]["outcome"] == "committed"
