# tests/integration/gateway_process.py: the real `ocppgw` binary (env OCPPGW_BIN) as a child
# process for the pytest suites: started on loopback with a data dir, ready once GET /health
# (or ready_path) answers 200, stopped with SIGTERM (its exit code is the suite's to check).
import json
import os
import socket
import sqlite3
import subprocess
import time
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
BIN = os.environ.get("OCPPGW_BIN", os.path.join(ROOT, "build/gateway/ocppgw"))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class GatewayProcess:
    def __init__(self, data_dir, args=(), port=None, env=None, ready_port=None, ready_path="/health"):
        self.data_dir = str(data_dir)
        self.port = port or free_port()
        # Where start() waits for a 200: the web_listen port when the API has its own listener;
        # /healthz for a gateway that is meant to start unhealthy.
        self.ready_port = ready_port or self.port
        self.ready_path = ready_path
        self.url = f"ws://127.0.0.1:{self.port}/ocpp"
        self.db_path = os.path.join(self.data_dir, "ocppgw.db")
        self.log_path = os.path.join(self.data_dir, "gateway.log")
        self.args = [BIN, "--listen", f"127.0.0.1:{self.port}", "--data-dir", self.data_dir,
                     "--threads", "2", *args]
        self.proc = None
        # Extra environment variables (e.g. OCPPGW_ADMIN_PASSWORD) on top of the test's own.
        self.env = {**os.environ, **(env or {})}

    def start(self):
        self.log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(self.args, stdout=subprocess.DEVNULL, stderr=self.log, env=self.env)
        deadline = time.time() + 15
        while time.time() < deadline:
            assert self.proc.poll() is None, "ocppgw exited early: " + self.logs()
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.ready_port}{self.ready_path}", timeout=1) as r:
                    if r.status == 200:
                        return self
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError("ocppgw not ready")

    def stop(self):
        self.proc.terminate()
        code = self.proc.wait(timeout=20)
        self.log.close()
        return code

    def logs(self):
        with open(self.log_path, encoding="utf-8", errors="replace") as f:
            return f.read()

    def events(self, charge_point_id):
        """Canonical events of one charge point, in commit order."""
        with sqlite3.connect(self.db_path) as db:
            rows = db.execute("SELECT json FROM events WHERE charge_point_id = ? ORDER BY seq", (charge_point_id,))
            return [json.loads(r[0]) for r in rows]
