# tests/delta/test_delta_maintenance.py: `ocppgw delta history|restore|vacuum` and the log
# clean-up, on tables our binary wrote, checked with delta-rs (an independent reader).
import json
import os
import subprocess
import time

import pytest
from deltalake import DeltaTable

from conftest import OCPPGW, data_files, delta_sync
from test_delta_mirror import assert_table_equals_sqlite, bump_session


def delta_cli(data_dir, *args, check=True):
    p = subprocess.run([OCPPGW, "delta", *args, "--data-dir", str(data_dir)],
                       capture_output=True, text=True, timeout=120)
    if check:
        assert p.returncode == 0, p.stdout + p.stderr
    out = json.loads(p.stdout) if p.stdout.strip()[:1] in ("{", "[") else None
    return p.returncode, out, p.stderr


def test_history_matches_delta_rs(fleet_data):
    path = os.path.join(fleet_data["root"], "silver_events")
    _, ours, _ = delta_cli(fleet_data["data"], "history", "silver_events")
    theirs = DeltaTable(path).history()
    assert [h["version"] for h in ours] == [h["version"] for h in theirs]
    assert [h["operation"] for h in ours] == [h["operation"] for h in theirs]
    assert ours[0]["time"].endswith("Z")
    _, limited, _ = delta_cli(fleet_data["data"], "history", "silver_events", "--limit", "2")
    assert [h["version"] for h in limited] == [h["version"] for h in ours[:2]]


def test_a_bad_table_name_is_a_clear_error(fleet_data):
    code, _, err = delta_cli(fleet_data["data"], "history", "no_such_table", check=False)
    assert code == 2
    assert "no mirrored table 'no_such_table'" in err and "charging_sessions" in err


def test_restore_brings_back_an_old_version_and_the_mirror_catches_up(copy_of):
    path = os.path.join(copy_of["root"], "charging_sessions")
    old_version = DeltaTable(path).version()
    old_rows = sorted(map(str, DeltaTable(path).to_pyarrow_table().to_pylist()))
    bump_session(copy_of["analytics"])
    delta_sync(copy_of["data"])
    assert DeltaTable(path).version() == old_version + 1
    _, out, _ = delta_cli(copy_of["data"], "restore", "charging_sessions", str(old_version))
    assert out["version"] == old_version + 2 and out["restored_version"] == old_version
    assert out["files_added"] == 1 and out["files_removed"] == 1, "one day's file swapped back"
    t = DeltaTable(path)
    assert t.version() == old_version + 2
    assert sorted(map(str, t.to_pyarrow_table().to_pylist())) == old_rows
    assert t.history(1)[0]["operation"] == "RESTORE"
    # The analytics store moved on: the next batch's cycle writes the difference again.
    bump_session(copy_of["analytics"], 0)
    delta_sync(copy_of["data"])
    assert_table_equals_sqlite(copy_of["root"], copy_of["analytics"], "charging_sessions")


def test_vacuum_deletes_only_unreferenced_files_and_needs_force_below_the_retention(copy_of):
    path = os.path.join(copy_of["root"], "charging_sessions")
    for _ in range(3):
        bump_session(copy_of["analytics"])
        delta_sync(copy_of["data"])
    t = DeltaTable(path)
    bumped = t.version()  # its predecessor's file of the bumped day was replaced by it
    live = sorted(os.path.relpath(u.replace("file://", ""), path) for u in t.file_uris())
    on_disk = data_files(path)
    assert len(on_disk) > len(live), "replaced files are still on disk within the retention"
    # A crashed writer's orphan, and a file another writer is about to commit.
    day_dir = os.path.dirname(os.path.join(path, live[0]))
    orphan = os.path.join(day_dir, "part-00000-orphan.c000.zstd.parquet")
    fresh = os.path.join(day_dir, "part-00000-fresh.c000.zstd.parquet")
    for f in (orphan, fresh):
        open(f, "wb").write(b"x")
    os.utime(orphan, (time.time() - 3 * 3600, time.time() - 3 * 3600))

    code, _, err = delta_cli(copy_of["data"], "vacuum", "charging_sessions", "--retain-hours", "1", check=False)
    assert code == 2 and "--force" in err
    _, dry, _ = delta_cli(copy_of["data"], "vacuum", "charging_sessions", "--retain-hours", "0",
                          "--force", "--dry-run")
    assert set(dry["charging_sessions"]["would_delete"]) >= {os.path.relpath(orphan, path)}
    assert os.path.exists(orphan)
    # Removed files carry their removal time; with a 2-hour retention only the orphan (3 h) goes.
    _, out, _ = delta_cli(copy_of["data"], "vacuum", "charging_sessions", "--retain-hours", "2", "--force")
    assert out["charging_sessions"]["deleted_files"] == 1
    assert not os.path.exists(orphan) and os.path.exists(fresh)
    _, out, _ = delta_cli(copy_of["data"], "vacuum", "charging_sessions", "--retain-hours", "0", "--force")
    assert out["charging_sessions"]["deleted_files"] == len(on_disk) - len(live) + 1  # + fresh
    assert data_files(path) == live
    t = DeltaTable(path)
    assert t.history(1)[0]["operation"] == "VACUUM END"
    assert_table_equals_sqlite(copy_of["root"], copy_of["analytics"], "charging_sessions")
    # Time travel to before the vacuum names files that are gone now: restore refuses it.
    code, _, err = delta_cli(copy_of["data"], "restore", "charging_sessions", str(bumped - 1),
                             check=False)
    assert code == 1 and "is gone" in err


def test_log_cleanup_keeps_every_version_within_the_retention(copy_of):
    path = os.path.join(copy_of["root"], "charging_sessions")
    log = os.path.join(path, "_delta_log")
    # Pass a checkpoint first, then age everything so far by two hours.
    while DeltaTable(path).version() < 10:
        bump_session(copy_of["analytics"])
        delta_sync(copy_of["data"])
    aged = sorted(f for f in os.listdir(log) if f.endswith(".json"))
    for f in aged:
        os.utime(os.path.join(log, f), (time.time() - 7200, time.time() - 7200))
    # The next checkpoint (20) triggers the clean-up with a one-hour log retention.
    while DeltaTable(path).version() < 20:
        bump_session(copy_of["analytics"])
        delta_sync(copy_of["data"], "--delta-log-retention-hours", "1")
    left = sorted(f for f in os.listdir(log) if f.endswith(".json"))
    assert left[0] == f"{10:020d}.json", "commits below the checkpoint of version 10 are gone"
    assert os.path.exists(os.path.join(log, f"{10:020d}.checkpoint.parquet"))
    # Every kept version reads; the current one equals the source.
    for v in (10, 15, 20):
        assert DeltaTable(path, version=v).version() == v
    with pytest.raises(Exception):
        DeltaTable(path, version=5)
    _, hist, _ = delta_cli(copy_of["data"], "history", "charging_sessions")
    assert hist[-1]["version"] == 10
    assert_table_equals_sqlite(copy_of["root"], copy_of["analytics"], "charging_sessions")
