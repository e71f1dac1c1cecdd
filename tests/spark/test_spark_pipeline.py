# tests/spark/test_spark_pipeline.py: the Spark pipeline (analytics/spark/) reading the topic two
# gateway nodes publish to, compared with both nodes' in-process analytics and with the
# simulator's ground truth; then restart safety. Fixtures: conftest.py.
import os
import subprocess

from conftest import CPS_PER_NODE, NODES, TOPIC, Pipeline, kill_group, sqlite_rows
import lake


def test_each_node_in_process_analytics_matches_ground_truth(fleet):
    """ocppsim's own check of each node (event log, in-process sessions, statuses, counts)."""
    for i, sim in enumerate(fleet["sims"]):
        assert sim["rc"] == 0, f"node {i} ground-truth check failed:\n{sim['out'][-3000:]}"
        assert sim["truth"], f"node {i} ran no sessions"


def test_transaction_ids_never_collide_across_nodes(fleet):
    ids = [set(r["transaction_id"] for r in sqlite_rows(gw.db_path,
                                                         "SELECT transaction_id FROM transactions16"))
           for gw in fleet["gateways"]]
    assert ids[0] and ids[1], "both nodes issued 1.6 transaction ids"
    assert not ids[0] & ids[1]
    for i, node_ids in enumerate(ids):
        assert all(t % 2 == i for t in node_ids), f"node {i} ids not n * 2 + {i}"


def test_bronze_keeps_every_record_of_the_topic(fleet, reference):
    p, _ = reference
    bronze = lake.delta_rows(p.root, "bronze_raw_events")
    n = int(subprocess.run(
        f"kcat -C -b {fleet['brokers']} -t {TOPIC} -o beginning -e -q -f 'x\\n' | wc -l",
        shell=True, capture_output=True, text=True, timeout=60).stdout)
    assert len(bronze) == n > 0
    assert len({(r["topic"], r["partition"], r["offset"]) for r in bronze}) == n
    events = sum(sqlite_rows(gw.db_path, "SELECT count(*) AS n FROM events")[0]["n"]
                 for gw in fleet["gateways"])
    assert n >= events  # at-least-once: every event, a re-publish at most adds a copy
    assert all(r["value"] and r["ingest_time"] and r["timestamp"] for r in bronze)


def test_spark_sessions_equal_union_of_node_sessions(fleet, reference):
    p, _ = reference
    expected = lake.node_sessions(fleet["analytics"])
    actual = lake.spark_sessions(p.root)
    assert len(expected) > 20
    problems = lake.diff_sessions(expected, actual)
    assert not problems, f"{len(problems)} differences:\n" + "\n".join(problems[:30])


def test_spark_connector_status_equals_union_of_nodes(fleet, reference):
    p, _ = reference
    expected = lake.node_current(fleet["analytics"])
    actual = lake.spark_current(p.root)
    assert len(expected) >= NODES * CPS_PER_NODE
    assert actual == expected


def test_spark_daily_stats_and_status_history_equal_union_of_nodes(fleet, reference):
    p, _ = reference
    daily_cols = ("sessions_total", "sessions_started", "sessions_completed",
                  "sessions_timed_out", "sessions_in_progress", "sessions_start_missing",
                  "energy_kwh_final", "energy_kwh_provisional", "avg_duration_seconds")
    history_cols = ("valid_to", "status", "error_code", "seq_no")

    def table(rows, key, cols):
        return {tuple(r[c] for c in key): tuple(
            round(r[c], 3) if isinstance(r[c], float) else r[c] for c in cols) for r in rows}

    for name, key, cols in (
            ("charging_stats_daily", ("charge_point_id", "day"), daily_cols),
            ("connector_status_history", lake.CONNECTOR_KEY + ("valid_from", "event_id"),
             history_cols)):
        expected = {}
        for db in fleet["analytics"]:
            expected.update(table(sqlite_rows(db, f"SELECT * FROM {name}"), key, cols))
        actual = table(lake.delta_rows(p.root, name), key, cols)
        assert expected and actual == expected, name


def test_spark_silver_counts_equal_nodes(fleet, reference):
    """Silver, business duplicates and quarantine by reason agree; technical duplicates may
    only grow on the Spark side (a record re-published after a gateway restart)."""
    p, _ = reference
    n = {"silver": 0, "business": 0, "technical": 0, "quarantine": {}}
    for db in fleet["analytics"]:
        n["silver"] += sqlite_rows(db, "SELECT count(*) AS n FROM silver_events")[0]["n"]
        for r in sqlite_rows(db, "SELECT duplicate_type AS t, count(*) AS n FROM "
                                 "duplicate_events_audit GROUP BY 1"):
            n["business" if r["t"] == "BUSINESS" else "technical"] += r["n"]
        for r in sqlite_rows(db, "SELECT reason, count(*) AS n FROM quarantine_events GROUP BY 1"):
            n["quarantine"][r["reason"]] = n["quarantine"].get(r["reason"], 0) + r["n"]
    audit = lake.delta_rows(p.root, "duplicate_events_audit")
    quarantine = {}
    for r in lake.delta_rows(p.root, "quarantine_events"):
        quarantine[r["reason"]] = quarantine.get(r["reason"], 0) + 1
    assert len(lake.delta_rows(p.root, "silver_events")) == n["silver"]
    assert sum(r["duplicate_type"] == "BUSINESS" for r in audit) == n["business"] > 0
    assert sum(r["duplicate_type"] == "TECHNICAL" for r in audit) >= n["technical"] > 0
    assert quarantine == n["quarantine"]
    assert {"CONFLICT", "CORRUPT_PAYLOAD"} <= set(quarantine)


def test_conservation_law_on_the_spark_side(reference):
    p, batches = reference
    bronze = len(lake.delta_rows(p.root, "bronze_raw_events"))
    silver = len(lake.delta_rows(p.root, "silver_events"))
    audit = len(lake.delta_rows(p.root, "duplicate_events_audit"))
    quarantine = len(lake.delta_rows(p.root, "quarantine_events"))
    assert bronze == silver + audit + quarantine
    dq = lake.delta_rows(p.root, "dq_batches")
    assert batches and len(dq) == len(batches)
    assert all(r["conservation_ok"] for r in dq)
    assert max(r["raw_total"] for r in dq) == bronze


def test_spark_sessions_equal_ground_truth(fleet, reference):
    p, _ = reference
    sessions = lake.spark_sessions(p.root)
    checked = anomalies = 0
    for sim in fleet["sims"]:
        for s in sim["truth"]:
            key = (s["cp"], s["tx"])
            if s["completed"] and not s["anomaly"]:
                got = sessions.get(key)
                assert got, f"session {key} missing"
                assert got["session_status"] == "COMPLETED" and got["energy_is_final"], (key, got)
                assert abs(got["energy_kwh"] - (s["meter_stop_wh"] - s["meter_start_wh"]) / 1000) \
                    < 1e-9, (key, got, s)
                checked += 1
            elif s["completed"] and s["anomaly"]:
                got = sessions.get(key)
                assert got and "METER_ANOMALY" in got["quality_flags"], (key, got)
                assert got["energy_kwh"] is None or got["energy_kwh"] >= 0
                anomalies += 1
    assert checked > 10


def test_health_equals_union_of_nodes(fleet, reference):
    """The clock-free columns of charge_point_health (liveness depends on each node's own data
    clock, which sees only its charge points)."""
    p, _ = reference
    cols = ("last_heartbeat_ts", "last_seen_ts", "connection_state", "connection_changed_ts",
            "last_boot_ts", "vendor", "model", "firmware_version", "heartbeat_interval_s")
    expected = {}
    for db in fleet["analytics"]:
        for r in sqlite_rows(db, "SELECT * FROM charge_point_health"):
            expected[r["charge_point_id"]] = {c: r[c] for c in cols}
    actual = {r["charge_point_id"]: {c: r[c] for c in cols}
              for r in lake.delta_rows(p.root, "charge_point_health")}
    assert len(expected) == NODES * CPS_PER_NODE and actual == expected


def test_restart_from_checkpoint_and_replay_give_identical_gold(fleet, reference):
    """A second run from the topic's beginning into fresh tables, in two-file micro-batches,
    killed (SIGKILL of the driver and its JVM) in its second micro-batch right after the audit
    write (a demoted or conflicted record then sits in two tables, Gold not yet written), and
    restarted from its checkpoint. Its Gold ends identical to the reference run's (one batch,
    never killed) and the conservation law holds after every batch. SPARK_IT_CRASH picks
    another crash point: <batch>:quarantine|audit|silver|sessions."""
    ref, _ = reference
    p = Pipeline(fleet["work"], "restarted", fleet["brokers"])
    silver = ("--layers", "silver", "--max-files-per-trigger", "2")
    crash = os.environ.get("SPARK_IT_CRASH", "1:audit")
    os.environ["OCPPGW_SPARK_KILL_AT"] = crash
    proc = p.start("--layers", "bronze,silver", "--max-files-per-trigger", "2", "--available-now")
    del os.environ["OCPPGW_SPARK_KILL_AT"]
    try:
        out, _ = proc.communicate(timeout=300)
    finally:
        kill_group(proc)  # no-op unless the crash point was never reached
    assert f"ocppgw_spark killed at {crash}" in out, f"no crash at {crash}; see {p.log}"
    assert proc.returncode == -9, proc.returncode
    batches = p.run(*silver, "--available-now")
    assert batches and batches[0]["batch_id"] == 1, "the restart retries the killed batch"
    assert lake.gold_snapshot(p.root) == lake.gold_snapshot(ref.root)
    bronze = len(lake.delta_rows(p.root, "bronze_raw_events"))
    assert bronze == sum(len(lake.delta_rows(p.root, t)) for t in
                         ("silver_events", "duplicate_events_audit", "quarantine_events"))
    dq = lake.delta_rows(p.root, "dq_batches")
    assert len(dq) >= 2 and all(r["conservation_ok"] for r in dq)
    assert max(r["raw_total"] for r in dq) == bronze
