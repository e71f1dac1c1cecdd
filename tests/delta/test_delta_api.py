# tests/delta/test_delta_api.py: POST /api/v1/delta/sync and the Delta metrics on a running
# gateway (the real binary), on a copy of the fleet data.
import os
import shutil
import sys

from deltalake import DeltaTable

from conftest import ROOT
from test_delta_mirror import assert_table_equals_sqlite, bump_session

sys.path.insert(0, os.path.join(ROOT, "tests/integration"))
from api_client import ADMIN_ENV, ADMIN_PASSWORD, add_operator, http, login, request  # noqa: E402
from gateway_process import GatewayProcess  # noqa: E402


def metric(text, name, labels=""):
    for line in text.splitlines():
        if line.startswith(name + labels + " "):
            return float(line.split()[-1])
    return None


def test_sync_through_the_api_and_its_metrics(copy_of):
    gw = GatewayProcess(copy_of["data"], ["--delta-interval", "3600", "--log-level", "warn"],
                        env=ADMIN_ENV).start()
    try:
        admin = login(gw, "admin", ADMIN_PASSWORD)["token"]
        viewer = add_operator(gw, admin, "watcher", "viewer")
        operator = add_operator(gw, admin, "syncer", "operator")
        status, _ = request(gw, "POST", "/api/v1/delta/sync", token=viewer)
        assert status == 403
        path = os.path.join(copy_of["root"], "charging_sessions")
        v0 = DeltaTable(path).version()
        bump_session(copy_of["analytics"])
        status, report = request(gw, "POST", "/api/v1/delta/sync", token=operator, timeout=120)
        assert status == 200, report
        assert report["ok"] is True
        assert report["tables"]["charging_sessions"]["outcome"] == "committed"
        assert report["tables"]["charging_sessions"]["version"] == v0 + 1
        assert DeltaTable(path).version() == v0 + 1
        assert_table_equals_sqlite(copy_of["root"], copy_of["analytics"], "charging_sessions")

        _, body, _ = http(gw.port, "GET", "/metrics")
        text = body.decode()
        assert metric(text, "ocppgw_delta_cycles_total") == 1
        assert metric(text, "ocppgw_delta_alert") == 0
        assert metric(text, "ocppgw_delta_table_version", '{table="charging_sessions"}') == v0 + 1
        assert metric(text, "ocppgw_delta_last_commit_timestamp_seconds", '{table="charging_sessions"}') > 1.7e9
        assert metric(text, "ocppgw_delta_rows_written_total") > 0
        status, health = request(gw, "GET", "/health")
        assert health["delta"]["cycles"] == 1 and "alert" not in health["delta"]

        # A table whose log cannot be read fails the cycle: 503 naming it, the alert raised,
        # the other tables unaffected.
        log = os.path.join(copy_of["root"], "dq_batches", "_delta_log")
        shutil.rmtree(log)
        open(log, "w").write("not a folder")
        bump_session(copy_of["analytics"])
        status, body = request(gw, "POST", "/api/v1/delta/sync", token=operator, timeout=120)
        assert status == 503, body
        assert "dq_batches: failed" in body["error"]
        _, raw, _ = http(gw.port, "GET", "/metrics")
        text = raw.decode()
        assert metric(text, "ocppgw_delta_alert") == 1
        assert metric(text, "ocppgw_delta_failed_cycles_total") == 1
        _, health = request(gw, "GET", "/health")
        assert "dq_batches" in health["delta"]["alert"]
        assert DeltaTable(path).version() == v0 + 2, "the other tables were published"
        status, audit = request(gw, "GET", "/api/v1/audit?action=delta.sync", token=admin)
        assert status == 200
        outcomes = sorted(e["outcome"] for e in audit["items"] if e["action"] == "delta.sync")
        assert outcomes == ["failed", "ok"], audit
    finally:
        gw.stop()
