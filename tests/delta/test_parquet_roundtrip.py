# tests/delta/test_parquet_roundtrip.py: generated rows with nulls, unicode, UTC millisecond
# timestamps and many row groups, written by our binary (`ocppgw delta sync` over a store
# filled here) and read back by pyarrow: values and types equal.
import datetime as dt
import os
import random
import sqlite3

import pyarrow as pa
import pyarrow.parquet as pq
from deltalake import DeltaTable

from conftest import delta_sync

N = 150_000  # > 2 row groups of 64k rows in one daily partition file


def test_generated_rows_round_trip(copy_of):
    rng = random.Random(5)
    db = sqlite3.connect(copy_of["analytics"])
    base = 1_767_225_600_000  # 2026-01-01T00:00:00Z
    rows = []
    for i in range(N):
        cp = rng.choice(["CP-ÄÖÜ-é", "充电桩-1", "plain", "emoji-🚗", "x" * 50])
        ts = base + rng.randrange(0, 86_400_000)  # one UTC day: one partition
        hb = None if i % 7 == 0 else ts - rng.randrange(0, 100_000)
        vendor = None if i % 3 == 0 else f"vendor-{i % 11}"
        rows.append((f"gen-{i:06d}-{cp}", hb, ts, "connected", None, None, vendor, None, None, 300, ts + 900_000,
                     rng.choice(["ONLINE", "OFFLINE"])))
    db.executemany("INSERT INTO charge_point_health VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", rows)
    db.execute("UPDATE pipeline_state SET value = value + 1 WHERE key = 'batch_seq'")
    db.commit()
    db.close()
    _, report = delta_sync(copy_of["data"])
    assert report["tables"]["charge_point_health"]["outcome"] == "committed"

    path = os.path.join(copy_of["root"], "charge_point_health")
    t = DeltaTable(path)
    [uri] = t.file_uris()
    pf = pq.ParquetFile(uri.replace("file://", ""))
    assert pf.metadata.num_row_groups >= 3
    table = pf.read()
    assert table.schema.field("last_seen_ts").type == pa.timestamp("us", tz="UTC")
    assert table.schema.field("heartbeat_interval_s").type == pa.int64()
    got = {r["charge_point_id"]: r for r in table.to_pylist()}
    source = sqlite3.connect(copy_of["analytics"]).execute("SELECT * FROM charge_point_health").fetchall()
    assert len(got) == len(source)
    assert sum(1 for cid in got if cid.startswith("gen-")) == N
    assert "gen-000001-充电桩-1" in got or any("充电桩" in c for c in got), "unicode keys kept"
    def ts(ms):
        return None if ms is None else dt.datetime.fromtimestamp(ms / 1000, tz=dt.timezone.utc)
    for (cid, hb, seen, state, changed, boot, vendor, model, fw, interval, deadline, liveness) in source:
        r = got[cid]
        assert r["last_heartbeat_ts"] == ts(hb)
        assert r["last_seen_ts"] == ts(seen)
        assert r["vendor"] == vendor
        assert r["model"] == model and r["firmware_version"] == fw
        assert r["connection_state"] == state
        assert r["connection_changed_ts"] == ts(changed) and r["last_boot_ts"] == ts(boot)
        assert r["heartbeat_interval_s"] == interval
        assert r["offline_deadline_ts"] == ts(deadline)
        assert r["liveness"] == liveness
    # Microsecond values are exact multiples of the millisecond source.
    assert all(v is None or v.microsecond % 1000 == 0 for v in table.column("last_heartbeat_ts").to_pylist())
    assert DeltaTable(path).to_pyarrow_table().num_rows == len(source)


def test_dates_are_partition_values_typed_as_date(fleet_data):
    t = DeltaTable(os.path.join(fleet_data["root"], "charging_stats_daily"))
    table = t.to_pyarrow_table()
    assert table.schema.field("day").type == pa.date32()
    assert all(isinstance(d, dt.date) for d in table.column("day").to_pylist())
