# tests/integration/python/conftest.py: a fixture that runs the real `ocppgw` binary (env
# OCPPGW_BIN) on a free loopback port with a temp data dir and waits for GET /health.
import os
import socket
import sqlite3
import subprocess
import time
import urllib.request

import pytest

BIN = os.environ.get("OCPPGW_BIN", os.path.join(os.path.dirname(__file__), "../../../build/gateway/ocppgw"))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Gateway:
    def __init__(self, data_dir, port):
        self.data_dir = str(data_dir)
        self.port = port
        self.url = f"ws://127.0.0.1:{port}/ocpp"
        self.db_path = os.path.join(self.data_dir, "ocppgw.db")
        self.proc = None

    def start(self):
        self.log = open(os.path.join(self.data_dir, "gateway.log"), "ab")
        self.proc = subprocess.Popen(
            [BIN, "--listen", f"127.0.0.1:{self.port}", "--data-dir", self.data_dir, "--threads", "2"],
            stdout=subprocess.DEVNULL, stderr=self.log)
        deadline = time.time() + 15
        while time.time() < deadline:
            assert self.proc.poll() is None, "ocppgw exited early"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=1) as r:
                    if r.status == 200:
                        return self
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError("ocppgw not ready")

    def stop(self):
        self.proc.terminate()
        code = self.proc.wait(timeout=15)
        self.log.close()
        return code

    def events(self, charge_point_id):
        import json
        with sqlite3.connect(self.db_path) as db:
            rows = db.execute("SELECT json FROM events WHERE charge_point_id = ? ORDER BY seq", (charge_point_id,))
            return [json.loads(r[0]) for r in rows]


@pytest.fixture
def gateway(tmp_path):
    gw = Gateway(tmp_path, free_port()).start()
    yield gw
    assert gw.stop() == 0
