# tests/delta/conftest.py: the data every Delta test reads, made by the real binaries: a gateway
# run (mirror every second) with simulated charge points and faults, then `ocppgw delta sync`.
import json
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "../.."))
sys.path.insert(0, os.path.join(ROOT, "tests/integration"))
from gateway_process import GatewayProcess  # noqa: E402

OCPPGW = os.environ.get("OCPPGW_BIN", os.path.join(ROOT, "build/gateway/ocppgw"))
OCPPSIM = os.environ.get("OCPPSIM_BIN", os.path.join(ROOT, "build/sim/ocppsim"))


def delta_sync(data_dir, *extra, check=True):
    """One mirror cycle; returns (exit code, report)."""
    p = subprocess.run([OCPPGW, "delta", "sync", "--data-dir", str(data_dir), *extra],
                       capture_output=True, text=True, timeout=120)
    report = json.loads(p.stdout) if p.stdout.strip().startswith("{") else None
    if check:
        assert p.returncode == 0, p.stdout + p.stderr
    return p.returncode, report


def data_files(table_path):
    """The Parquet data files under a table's root (relative paths), staging and log left out."""
    return sorted(os.path.relpath(os.path.join(d, f), table_path)
                  for d, _, files in os.walk(table_path)
                  if not os.path.relpath(d, table_path).startswith("_")
                  for f in files if f.endswith(".parquet"))


@pytest.fixture(scope="session")
def fleet_data():
    """A data folder filled by a real gateway run with ocppsim traffic (faults included) while
    the mirror ran every second; the /health body seen during the run is kept for the tests."""
    work = tempfile.mkdtemp(prefix="ocppgw-delta-")
    data = os.path.join(work, "data")
    os.makedirs(data)
    gw = GatewayProcess(data, ["--delta-interval", "1", "--heartbeat-interval", "5",
                               "--log-level", "warn"]).start()
    try:
        subprocess.run([OCPPSIM, "--url", gw.url, "-n", "40", "--fraction-201", "0.3",
                        "--connectors", "2", "--heartbeat", "3", "--meter-interval", "1",
                        "--sessions-per-hour", "900", "--session-duration", "3",
                        "--duration", "8", "--drain", "5", "--all-faults", "--seed", "11"],
                       check=False, capture_output=True, timeout=120)
        import time
        import urllib.request
        time.sleep(2.5)  # at least one mirror cycle after the traffic
        with urllib.request.urlopen(f"http://127.0.0.1:{gw.port}/health", timeout=5) as r:
            health = json.loads(r.read())
    finally:
        gw.stop()
    delta_sync(data)  # catch up with what the pipeline committed at shutdown
    yield {"data": data, "root": os.path.join(data, "delta"),
           "analytics": os.path.join(data, "analytics.db"), "health": health}
    shutil.rmtree(work, ignore_errors=True)


@pytest.fixture()
def copy_of(fleet_data, tmp_path):
    """A private copy of the fleet data folder, for tests that change it."""
    dst = tmp_path / "data"
    shutil.copytree(fleet_data["data"], dst)
    return {"data": str(dst), "root": str(dst / "delta"), "analytics": str(dst / "analytics.db")}
