# tests/spark/conftest.py: the traffic every Spark pipeline test reads, made by real parts: a
# KRaft broker (scripts/kafka.sh), two `ocppgw` nodes (node_index 0 and 1 of stride 2) publishing
# to one topic, and two `ocppsim` fleets with every fault on, one per node (the fleet split
# across the nodes by charge point index). Each ocppsim compares its ground truth with its
# node's event log and in-process analytics; the Spark tests compare with both.
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "../.."))
sys.path.insert(0, os.path.join(ROOT, "tests/integration"))
from gateway_process import GatewayProcess  # noqa: E402

OCPPSIM = os.environ.get("OCPPSIM_BIN", os.path.join(ROOT, "build/sim/ocppsim"))
PYTHON = sys.executable
PIPELINE = os.path.join(ROOT, "analytics/spark/run_pipeline.py")
NODES = 2
CPS_PER_NODE = int(os.environ.get("SPARK_IT_CPS", "15"))
TOPIC = "ocpp-events-spark-it"


def sqlite_rows(path, sql):
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
    con.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in con.execute(sql)]
    finally:
        con.close()


def wait_settled(gw, timeout=60):
    """Until the node's outbox is empty (all published) and its analytics has every event."""
    analytics = os.path.join(gw.data_dir, "analytics.db")
    deadline = time.time() + timeout
    while time.time() < deadline:
        outbox = sqlite_rows(gw.db_path, "SELECT count(*) AS n FROM outbox")[0]["n"]
        last = sqlite_rows(gw.db_path, "SELECT coalesce(max(seq), 0) AS s FROM events")[0]["s"]
        seen = sqlite_rows(analytics, "SELECT coalesce(max(value), 0) AS s FROM pipeline_state "
                                      "WHERE key = 'event_log_seq'")[0]["s"]
        if outbox == 0 and seen >= last:
            return
        time.sleep(0.5)
    raise AssertionError(f"node {gw.data_dir} did not settle: outbox {outbox}, analytics "
                         f"{seen}/{last}")


class Pipeline:
    """One run of analytics/spark/run_pipeline.py (its own JVM) on a lake folder."""

    def __init__(self, work, name, brokers):
        self.root = os.path.join(work, name, "lake")
        self.checkpoints = os.path.join(work, name, "checkpoints")
        self.log = os.path.join(work, name + ".log")
        self.brokers = brokers

    def env(self):
        """Spark's and Python's scratch inside the work dir: a SIGKILLed run leaves it there."""
        scratch = os.path.join(os.path.dirname(self.root), "tmp")
        os.makedirs(scratch, exist_ok=True)
        return {**os.environ, "TMPDIR": scratch, "SPARK_LOCAL_DIRS": scratch}

    def args(self, *extra):
        return [PYTHON, PIPELINE, "--local", "--root", self.root, "--checkpoints",
                self.checkpoints, "--bootstrap-servers", self.brokers, "--topic", TOPIC, *extra]

    def run(self, *extra, timeout=300):
        with open(self.log, "a") as log:
            p = subprocess.run(self.args(*extra), stdout=subprocess.PIPE, stderr=log, text=True,
                               timeout=timeout, env=self.env())
        with open(self.log, "a") as log:
            log.write(p.stdout)
        assert p.returncode == 0, f"pipeline failed ({p.returncode}); see {self.log}"
        return [json.loads(line.split(" ", 2)[2]) for line in p.stdout.splitlines()
                if line.startswith("ocppgw_spark batch ")]

    def start(self, *extra):
        self.logf = open(self.log, "a")
        return subprocess.Popen(self.args(*extra), stdout=subprocess.PIPE, stderr=self.logf,
                                text=True, start_new_session=True, env=self.env())


@pytest.fixture(scope="session")
def fleet():
    """Runs the two nodes and their fleets; yields what the tests compare."""
    work = tempfile.mkdtemp(prefix="ocppgw-spark-it-")
    kdir = os.path.join(work, "kafka")
    subprocess.run(["bash", os.path.join(ROOT, "scripts/kafka.sh"), "start", kdir], check=True,
                   stdout=subprocess.DEVNULL)
    gateways = []
    try:
        brokers = "127.0.0.1:" + open(os.path.join(kdir, "port")).read().strip()
        for i in range(NODES):
            data = os.path.join(work, f"node{i}")
            os.makedirs(data)
            gateways.append(GatewayProcess(data, [
                "--kafka-brokers", brokers, "--kafka-topic", TOPIC, "--node-index", str(i),
                "--node-stride", str(NODES), "--heartbeat-interval", "10",
                "--max-messages-per-second", "1000", "--log-level", "warn"]).start())
        sims = []
        for i, gw in enumerate(gateways):
            out = os.path.join(work, f"sim{i}")
            sims.append((subprocess.Popen(
                [OCPPSIM, "--url", gw.url, "-n", str(CPS_PER_NODE),
                 "--first-index", str(i * CPS_PER_NODE), "--fraction-201", "0.3",
                 "--connectors", "2", "--heartbeat", "5", "--meter-interval", "1",
                 "--sessions-per-hour", "600", "--session-duration", "5", "--duration", "15",
                 "--drain", "15", "--connect-rate", "100", "--all-faults",
                 # a small fleet needs higher rates than the defaults to see every fault kind
                 "--fault-conflict", "0.08", "--fault-business-dup", "0.06",
                 "--fault-out-of-order", "0.05",
                 "--offline-duration", "3", "--seed", str(7 + i),
                 "--gateway-db", gw.db_path,
                 "--analytics-db", os.path.join(gw.data_dir, "analytics.db"),
                 "--truth", out + ".truth.jsonl", "--report", out + ".report.json"],
                stdout=open(out + ".out", "w"), stderr=subprocess.STDOUT), out))
        sim_results = []
        for proc, out in sims:
            rc = proc.wait(timeout=180)
            sim_results.append({"rc": rc, "out": open(out + ".out").read(),
                                "truth": [json.loads(line) for line in open(out + ".truth.jsonl")]})
        for gw in gateways:
            wait_settled(gw)
        yield {"work": work, "brokers": brokers, "gateways": gateways, "sims": sim_results,
               "analytics": [os.path.join(gw.data_dir, "analytics.db") for gw in gateways]}
    finally:
        for gw in gateways:
            if gw.proc and gw.proc.poll() is None:
                gw.stop()
        subprocess.run(["bash", os.path.join(ROOT, "scripts/kafka.sh"), "stop", kdir],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if os.environ.get("SPARK_IT_KEEP"):
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


@pytest.fixture(scope="session")
def reference(fleet):
    """The pipeline run from the topic's beginning into fresh tables (available-now)."""
    p = Pipeline(fleet["work"], "reference", fleet["brokers"])
    batches = p.run("--available-now")
    return p, batches


def kill_group(proc):
    """SIGKILL a Pipeline.start() process with its JVM (its own process group)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(timeout=30)
