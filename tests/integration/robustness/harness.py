# tests/integration/robustness/harness.py: the shared helpers of the robustness suite
# (robustness.py): the real `ocppgw` binary (env OCPPGW_BIN) started per case with extra flags,
# a fleet of well-behaved "victim" charge points in a separate process measuring each CALL's
# round trip, a raw WebSocket client whose handshake bytes the case controls, the /health probe,
# RSS / write / CPU sampling from /proc, and the check that nothing acknowledged is missing from
# the event log. Run as `python harness.py victims '<json>'` it is the victim fleet itself.
#
# Every case runs in a Case: gateway + victims start, a baseline phase without attack, then the
# attack phase; Case.finish() asserts
#  (a) victims' p99 round trip during the attack <= max(P99_FACTOR * baseline p99,
#      baseline p99 + P99_FLOOR_MS) (loopback p99 is ~1-5 ms, so 2x alone would be noise), and
#      no victim CALL went unanswered (5 s) or lost its connection. By default 20 victims send
#      20 CALLs/s together and both windows last 3 s: each p99 rests on ~1200 round trips;
#  (b) GET /health answers within HEALTH_MAX_MS, sampled every ~200 ms during the attack, with
#      a status the case expects (200; 503 where the gateway reports itself unhealthy or is at
#      its connection limit);
#  (c) the gateway's RSS during the attack stays within rss_allow bytes above its RSS when the
#      attack started, and the data folder (sum of its file sizes: event log, WAL, analytics)
#      grows during the attack (plus a short settle) by at most disk_allow, plus twice what the
#      victims alone made it grow at baseline; each case derives both from its limits. (The
#      storage traffic, /proc/<pid>/io write_bytes, is reported too but not bounded: SQLite
#      rewrites whole 4 KiB pages for every commit, so it measures commits rather than data.)
#  (d) every CALL that got a CALLRESULT (victims' and the attackers' own) has its frame in the
#      event log (table frames, message id = element 1 of the stored frame), and the gateway is
#      still alive.
import asyncio
import base64
import contextlib
import http.client
import json
import math
import os
import random
import re
import resource
import select
import signal
import socket
import sqlite3
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from gateway_process import BIN, free_port  # noqa: E402

HEALTH_MAX_MS = 100.0
P99_FACTOR = 2.0
P99_FLOOR_MS = float(os.environ.get("ROBUSTNESS_P99_FLOOR_MS", "5"))
MiB = 1024 * 1024

BOOT16 = {"chargePointVendor": "RobustVendor", "chargePointModel": "RobustModel"}
BOOT201 = {"reason": "PowerUp", "chargingStation": {"model": "RobustModel", "vendorName": "RobustVendor"}}
STATUS16 = {"connectorId": 1, "errorCode": "NoError", "status": "Available"}


class P99Exceeded(AssertionError):
    """Raised by Case.finish() when the p99 rule (a) is the only check that failed. The runner
    repeats such a case once: a host stall during the 3 s attack window can lift a p99 of a few
    ms on its own, while a degradation the attack causes comes back on the repeat."""


def p99(values):
    """Nearest-rank 99th percentile (inf for an unanswered CALL); None when empty."""
    if not values:
        return None
    v = sorted(values)
    return v[max(0, math.ceil(0.99 * len(v)) - 1)]


def median(values):
    v = sorted(values)
    return v[len(v) // 2] if v else None


def fmt_ms(x):
    return "none" if x is None else ("inf" if x == math.inf else f"{x:.1f}")


# ---- the gateway process ----

class GatewayExited(AssertionError):
    pass


def supported_args(args):
    """`args` without the flags (and their values) that `ocppgw --help` does not list: with env
    ROBUSTNESS_IGNORE_MISSING_OPTIONS=1, to watch a binary without the fixes under the same
    attack (diagnosis only; the case then tests that binary's defaults)."""
    help_text = subprocess.run([BIN, "--help"], capture_output=True, text=True).stdout
    out, i = [], 0
    while i < len(args):
        if args[i].startswith("--") and not re.search(re.escape(args[i]) + r"(?![\w-])", help_text):
            print(f"  (dropping unsupported {args[i]} {args[i + 1]})", file=sys.stderr)
            i += 2
            continue
        out.append(args[i])
        i += 1
    return out


class Gateway:
    """One ocppgw on 127.0.0.1:<free port>; data in <workdir>/data, stderr in <workdir>/<log>."""

    def __init__(self, workdir, args=(), nofile=None, log_name="gateway.log"):
        self.workdir = str(workdir)
        self.data_dir = os.path.join(self.workdir, "data")
        os.makedirs(self.data_dir, exist_ok=True)
        self.port = free_port()
        self.url = f"ws://127.0.0.1:{self.port}/ocpp"
        self.db_path = os.path.join(self.data_dir, "ocppgw.db")
        self.log_path = os.path.join(self.workdir, log_name)
        self.nofile = nofile
        args = [str(a) for a in args]
        if os.environ.get("ROBUSTNESS_IGNORE_MISSING_OPTIONS"):
            args = supported_args(args)
        self.args = [BIN, "--listen", f"127.0.0.1:{self.port}", "--data-dir", self.data_dir,
                     "--threads", "2", *args]
        self.proc = None

    def start(self, timeout=15):
        self.log = open(self.log_path, "ab")
        nofile = self.nofile
        preexec = (lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))) if nofile else None
        self.proc = subprocess.Popen(self.args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=self.log, preexec_fn=preexec)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                tail = " | ".join(self.logs().strip().splitlines()[-3:])
                raise GatewayExited(f"gateway exited at start (rc {self.proc.returncode}): {tail}")
            if self.health(timeout=1)[0] is not None:  # any HTTP answer (503 with a disk floor)
                return self
            time.sleep(0.05)
        raise AssertionError("gateway not answering /health after start")

    def stop(self, timeout=10):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc:
            self.log.close()

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def logs(self):
        with open(self.log_path, encoding="utf-8", errors="replace") as f:
            return f.read()

    def health(self, timeout=2):
        """(status or None, parsed JSON body or None, milliseconds) of one GET /health on a new
        connection, timed from connect to the end of the body."""
        t0 = time.perf_counter()
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request("GET", "/health")
            r = conn.getresponse()
            raw = r.read()
            ms = (time.perf_counter() - t0) * 1000
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
            return r.status, body, ms
        except (OSError, http.client.HTTPException):
            return None, None, math.inf
        finally:
            conn.close()

    # /proc of the gateway
    def rss(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        return 0

    def data_bytes(self):
        """Sum of the sizes of the files in the data folder."""
        total = 0
        for dirpath, _, files in os.walk(self.data_dir):
            for name in files:
                with contextlib.suppress(OSError):
                    total += os.path.getsize(os.path.join(dirpath, name))
        return total

    def written(self):
        """Bytes the gateway sent to the storage layer (write_bytes of /proc/<pid>/io)."""
        with open(f"/proc/{self.proc.pid}/io") as f:
            io = dict(line.split(": ") for line in f.read().splitlines())
        return int(io["write_bytes"])

    def cpu_seconds(self):
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stored_message_ids(self, charge_points):
        """{(charge point, message id)} of the frames in the event log of those charge points.
        Only each frame's head is read: the id is element 1 of the stored JSON array."""
        head = re.compile(r'^\s*\[\s*[234]\s*,\s*("(?:[^"\\]|\\.)*")')
        out = set()
        cps = sorted(set(charge_points))
        with contextlib.closing(sqlite3.connect(f"file:{self.db_path}?mode=ro", uri=True, timeout=10)) as db:
            for i in range(0, len(cps), 500):
                chunk = cps[i:i + 500]
                q = ("SELECT charge_point_id, substr(text, 1, 400) FROM frames "
                     f"WHERE charge_point_id IN ({','.join('?' * len(chunk))})")
                for cp, text in db.execute(q, chunk):
                    m = head.match(text or "")
                    if m:
                        with contextlib.suppress(ValueError):
                            out.add((cp, json.loads(m.group(1))))
        return out


# ---- raw WebSocket and HTTP ----

def ws_key():
    return base64.b64encode(os.urandom(16)).decode()


def upgrade_request(port, path, protocols=("ocpp1.6",), headers=()):
    """The bytes of a WebSocket upgrade request; `protocols` go on one Sec-WebSocket-Protocol
    line, `headers` (name, value) pairs are appended as given (repeat a name for split lines)."""
    lines = [f"GET {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Upgrade: websocket",
             "Connection: Upgrade", f"Sec-WebSocket-Key: {ws_key()}", "Sec-WebSocket-Version: 13"]
    if protocols:
        lines.append("Sec-WebSocket-Protocol: " + ", ".join(protocols))
    lines += [f"{k}: {v}" for k, v in headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def basic_auth(user, password):
    return ("Authorization", "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode())


def mask_bytes(data, key):
    n = len(data)
    if n == 0:
        return b""
    k = (key * (n // 4 + 1))[:n]
    return (int.from_bytes(data, "big") ^ int.from_bytes(k, "big")).to_bytes(n, "big")


def ws_frame(payload, opcode=1, key=None):
    """One masked client frame (FIN set). Bulk attackers pass key=ZERO_KEY: masking with a zero
    key (a legal key) leaves the bytes as they are, so the attacker spends no CPU that the
    victims and the gateway would miss."""
    if isinstance(payload, str):
        payload = payload.encode()
    key = os.urandom(4) if key is None else key
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
    elif n < 65536:
        head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
    return head + key + (payload if key == ZERO_KEY else mask_bytes(payload, key))


ZERO_KEY = b"\0\0\0\0"


def call_frame(msgid, action, payload, key=None):
    return ws_frame(json.dumps([2, msgid, action, payload], separators=(",", ":")), key=key)


def parse_http_head(raw):
    """(status, {lower-case name: [values]}) of an HTTP response head."""
    lines = raw.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            k, v = line.split(":", 1)
            headers.setdefault(k.strip().lower(), []).append(v.strip())
    return status, headers


class RawWs:
    """A WebSocket client over a plain socket: the case controls the handshake bytes, can write
    frames without ever reading, and reads server frames itself."""

    def __init__(self, port, rcvbuf=None, source=None):
        self.port = port
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if source:  # another loopback address (127.0.0.0/8 is all local)
            self.sock.bind((source, 0))
        if rcvbuf:
            # A small receive buffer, and a small MSS so that the gateway's kernel sizes its send
            # buffer for this peer small as well: unread replies then pile up in the gateway.
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 536)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        self.replies = {}  # message id -> (monotonic time, frame), filled by the reader thread
        self.closed = None  # set by the reader thread when the gateway closes
        self._reader = None

    def open(self, path, protocols=("ocpp1.6",), headers=(), extra=b"", timeout=5, request=None):
        """Sends the upgrade request (and `extra` in the same write); returns (status, headers,
        body). On 101 the socket stays open for frames."""
        self.sock.settimeout(timeout)
        self.sock.connect(("127.0.0.1", self.port))
        req = request if request is not None else upgrade_request(self.port, path, protocols, headers)
        self.sock.sendall(req + extra)
        while b"\r\n\r\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError(f"closed before the HTTP response ({self.buf[:200]!r})")
            self.buf += chunk
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        status, hdrs = parse_http_head(head)
        body = b""
        if status != 101:
            n = int(hdrs.get("content-length", ["0"])[0])
            with contextlib.suppress(OSError):
                while len(self.buf) < n:
                    chunk = self.sock.recv(65536)
                    if not chunk:
                        break
                    self.buf += chunk
            body, self.buf = self.buf, b""
        return status, hdrs, body

    def send(self, payload, opcode=1):
        self.sock.sendall(ws_frame(payload, opcode))

    def send_call(self, msgid, action, payload):
        self.sock.sendall(call_frame(msgid, action, payload))

    def close(self, code=1000, reason=b""):
        with contextlib.suppress(OSError):
            self.sock.sendall(ws_frame(struct.pack("!H", code) + reason, opcode=8))

    def close_and_wait(self, code=1000, reason=b"", timeout=2):
        """Sends a close frame and waits for the gateway's (the close handshake); returns it."""
        self.close(code, reason)
        deadline = time.monotonic() + timeout
        with contextlib.suppress(OSError, ConnectionError, TimeoutError):
            while True:
                opcode, payload = self.recv_frame(max(0.0, deadline - time.monotonic()))
                if opcode == 8:
                    return payload
        return None

    def shutdown(self):
        with contextlib.suppress(OSError):
            self.sock.close()

    def _fill(self, n, deadline):
        while len(self.buf) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            self.sock.settimeout(left)
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise ConnectionError("closed by the gateway")
            self.buf += chunk

    def recv_frame(self, timeout=5):
        """(opcode, payload) of the next server frame (pings are answered and skipped)."""
        deadline = time.monotonic() + timeout
        while True:
            self._fill(2, deadline)
            b0, b1 = self.buf[0], self.buf[1]
            n, off = b1 & 0x7F, 2
            if n == 126:
                self._fill(4, deadline)
                n, off = struct.unpack("!H", self.buf[2:4])[0], 4
            elif n == 127:
                self._fill(10, deadline)
                n, off = struct.unpack("!Q", self.buf[2:10])[0], 10
            self._fill(off + n, deadline)
            payload, self.buf = self.buf[off:off + n], self.buf[off + n:]
            opcode = b0 & 0x0F
            if opcode == 9:
                with contextlib.suppress(OSError):
                    self.sock.sendall(ws_frame(payload, opcode=10))
                continue
            return opcode, payload

    def recv_json(self, timeout=5):
        """The next text frame as JSON; ConnectionError on a close frame."""
        opcode, payload = self.recv_frame(timeout)
        if opcode == 8:
            code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
            raise ConnectionError(f"close frame {code} {payload[2:]!r}")
        return json.loads(payload)

    def call(self, msgid, action, payload, timeout=5):
        """Sends a CALL and returns its CALLRESULT/CALLERROR (other frames are skipped)."""
        self.send_call(msgid, action, payload)
        return self.wait_reply(msgid, timeout)

    def wait_reply(self, msgid, timeout=5):
        deadline = time.monotonic() + timeout
        while True:
            frame = self.recv_json(max(0.0, deadline - time.monotonic()))
            if isinstance(frame, list) and len(frame) > 1 and frame[0] in (3, 4) and frame[1] == msgid:
                return frame

    def start_reader(self):
        """Reads server frames in a thread into self.replies (for pumping attackers)."""
        def run():
            try:
                while True:
                    opcode, payload = self.recv_frame(timeout=3600)
                    if opcode == 8:
                        self.closed = "close frame"
                        return
                    with contextlib.suppress(ValueError):
                        frame = json.loads(payload)
                        if isinstance(frame, list) and len(frame) > 1 and frame[0] in (3, 4):
                            self.replies[frame[1]] = (time.monotonic(), frame)
            except (OSError, ConnectionError, TimeoutError) as e:
                self.closed = self.closed or f"{type(e).__name__}: {e}"
        self._reader = threading.Thread(target=run, daemon=True)
        self._reader.start()

    def pump(self, frames, until, max_bytes=None):
        """Writes the frames from the iterable `frames` as fast as the socket takes them, until
        the monotonic time `until` (or max_bytes written); never reads. Returns (bytes written,
        frames completed, error or None). A frame cut by the deadline stays cut."""
        written, done = 0, 0
        for frame in frames:
            view = memoryview(frame)
            while view:
                if time.monotonic() >= until or (max_bytes and written >= max_bytes):
                    return written, done, None
                _, w, _ = select.select([], [self.sock], [], 0.05)
                if not w:
                    continue
                try:
                    n = self.sock.send(view[: 1 << 20])
                except OSError as e:
                    return written, done, f"{type(e).__name__}: {e}"
                view = view[n:]
                written += n
            done += 1
        return written, done, None


def boot_raw(port, cp, version="ocpp1.6", timeout=5, **kw):
    """A RawWs connected as `cp` and booted; returns (ws, boot reply)."""
    ws = RawWs(port, **kw)
    status, _, body = ws.open(f"/ocpp/{cp}", protocols=(version,), timeout=timeout)
    if status != 101:
        raise AssertionError(f"{cp}: upgrade refused {status} {body[:100]!r}")
    reply = ws.call(f"{cp}-boot", "BootNotification", BOOT16 if version == "ocpp1.6" else BOOT201, timeout)
    return ws, reply


def http_exchange(port, request, timeout=5, source=None):
    """(status or None, headers, body, ms from the request's first byte to the response head) of
    one raw request on a new connection (from the loopback address `source` if given)."""
    src = (source, 0) if source else None
    with socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=src) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        t0 = time.perf_counter()
        s.sendall(request)
        buf = b""
        try:
            while b"\r\n\r\n" not in buf:
                chunk = s.recv(65536)
                if not chunk:
                    break
                buf += chunk
        except OSError:
            pass
        ms = (time.perf_counter() - t0) * 1000
        if b"\r\n\r\n" not in buf:
            return None, {}, buf, ms
        head, body = buf.split(b"\r\n\r\n", 1)
        status, hdrs = parse_http_head(head)
        return status, hdrs, body, ms


# ---- victims: a fleet of well-behaved OCPP 1.6 charge points in their own process ----

class Victims:
    """`count` charge points <prefix>-NN, each booting once and then sending one CALL per
    `interval` seconds (Heartbeat and StatusNotification alternately, or only Heartbeat), one at a
    time, timing each. Runs in a child process so that the attackers' Python work does not delay
    their event loop; stop() returns its samples."""

    def __init__(self, gw, count=20, interval=0.05, prefix="VIC", kind="mixed", password=None):
        self.gw = gw
        self.cfg = {"url": gw.url, "count": count, "interval": interval, "prefix": prefix,
                    "kind": kind, "password": password, "timeout": 5}
        self.ids = [f"{prefix}-{i:02d}" for i in range(count)]
        self.proc = None
        self.result = None

    def start(self, timeout=20):
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "victims", json.dumps(self.cfg)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        r, _, _ = select.select([self.proc.stdout], [], [], timeout)
        line = self.proc.stdout.readline() if r else ""
        if line.strip() != "ready":
            self.proc.kill()
            err = self.proc.stderr.read()[-500:]
            raise AssertionError(f"victims not booted within {timeout} s: {line.strip()} {err}")
        return self

    def stop(self):
        if self.result is None and self.proc:
            try:
                out, err = self.proc.communicate(input="", timeout=30)
                self.result = json.loads(out.strip().splitlines()[-1])
            except (subprocess.TimeoutExpired, ValueError, IndexError):
                self.proc.kill()
                raise AssertionError("victim process did not report")
        return self.result

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def rtts(self, t0, t1):
        """Round trips (ms, inf when unanswered) of the CALLs sent in [t0, t1)."""
        return [math.inf if s[1] is None else s[1] for s in self.result["samples"] if t0 <= s[0] < t1]

    def answered(self, cp, t0, t1):
        return sum(1 for s in self.result["samples"] if s[2] == cp and s[1] is not None and t0 <= s[0] < t1)


async def _victims_main(cfg):
    import websockets  # only the victim process needs it

    stop = asyncio.Event()
    samples, acked, errors = [], [], []
    ready = {"n": 0}

    async def call(ws, cp, msgid, action, payload):
        t = time.monotonic()
        await ws.send(json.dumps([2, msgid, action, payload]))
        deadline = t + cfg["timeout"]
        while True:
            try:
                msg = await asyncio.wait_for(ws.recv(), max(0.001, deadline - time.monotonic()))
            except asyncio.TimeoutError:
                samples.append([t, None, cp, "timeout"])
                return None
            frame = json.loads(msg)
            if frame[0] in (3, 4) and frame[1] == msgid:
                samples.append([t, (time.monotonic() - t) * 1000, cp, "result" if frame[0] == 3 else "error"])
                if frame[0] == 3:
                    acked.append([cp, msgid])
                return frame

    async def one(i):
        cp = f"{cfg['prefix']}-{i:02d}"
        headers = {}
        if cfg["password"]:
            headers["Authorization"] = basic_auth(cp, cfg["password"])[1]
        booted, n = False, 0
        while not stop.is_set():
            try:
                async with websockets.connect(f"{cfg['url']}/{cp}", subprotocols=["ocpp1.6"], extra_headers=headers,
                                              open_timeout=10, ping_interval=None, close_timeout=1,
                                              max_size=None) as ws:
                    if await call(ws, cp, f"{cp}-b{n}", "BootNotification", BOOT16) is None:
                        raise TimeoutError("BootNotification unanswered")
                    if not booted:
                        booted = True
                        ready["n"] += 1
                        if ready["n"] == cfg["count"]:
                            print("ready", flush=True)
                    next_t = time.monotonic() + random.random() * cfg["interval"]
                    while not stop.is_set():
                        delay = next_t - time.monotonic()
                        if delay > 0:
                            with contextlib.suppress(asyncio.TimeoutError):
                                await asyncio.wait_for(stop.wait(), delay)
                            if stop.is_set():
                                break
                        next_t = max(next_t + cfg["interval"], time.monotonic())
                        n += 1
                        if cfg["kind"] == "heartbeat" or n % 2:
                            await call(ws, cp, f"{cp}-{n}", "Heartbeat", {})
                        else:
                            await call(ws, cp, f"{cp}-{n}", "StatusNotification", STATUS16)
            except Exception as e:  # noqa: BLE001 - every failure is reported
                errors.append([time.monotonic(), cp, f"{type(e).__name__}: {e}"[:200]])
                n += 1
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(stop.wait(), 0.5)

    tasks = [asyncio.create_task(one(i)) for i in range(cfg["count"])]
    await asyncio.to_thread(sys.stdin.read)  # until the harness closes our stdin
    stop.set()
    await asyncio.wait(tasks, timeout=cfg["timeout"] + 2)
    print(json.dumps({"samples": samples, "acked": acked, "errors": errors}), flush=True)
    os._exit(0)  # do not wait for tasks stuck in a close handshake


# ---- a case ----

class Case:
    """Gateway + victims for one case. The case sets rss_allow / disk_allow (bytes) before
    finish(), records its own acknowledged CALLs with ack(), and its checks with expect()."""

    def __init__(self, workdir, gw_args=(), nofile=None, victims=20, interval=0.05, kind="mixed",
                 password=None, before_start=None, health_statuses=(200,), log_name="gateway.log"):
        self.gw = Gateway(workdir, gw_args, nofile=nofile, log_name=log_name)
        self.victims = Victims(self.gw, victims, interval, kind=kind, password=password)
        self.before_start = before_start
        self.health_statuses = health_statuses
        self.failures, self.notes = [], []
        self.acked = set()
        self.rss_allow = None
        self.disk_allow = None
        self.settle = 0.5

    def __enter__(self):
        try:
            if self.before_start:
                self.before_start(self.gw)
            self.gw.start()
            self.victims.start()
        except BaseException:
            self.victims.kill()
            self.gw.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.victims.kill()
        self.gw.stop()

    def expect(self, cond, msg):
        if not cond:
            self.failures.append(msg)
        return cond

    def note(self, msg):
        self.notes.append(msg)

    def ack(self, cp, msgid):
        self.acked.add((cp, msgid))

    def ack_replies(self, cp, ws):
        """Records every CALLRESULT an attacker's reader thread received."""
        for msgid, (_, frame) in list(ws.replies.items()):
            if frame[0] == 3:
                self.ack(cp, msgid)

    def baseline(self, seconds=3.0, warmup=0.5):
        """The phase without attack (after `warmup` s, as the first CALLs after boot are slower);
        also measures the gateway's CPU and write rates for the bounds of the attack phase."""
        time.sleep(warmup)
        c0, d0 = self.gw.cpu_seconds(), self.gw.data_bytes()
        self.b0 = time.monotonic()
        time.sleep(seconds)
        self.b1 = time.monotonic()
        self.base_cpu_rate = (self.gw.cpu_seconds() - c0) / (self.b1 - self.b0)
        self.base_growth_rate = (self.gw.data_bytes() - d0) / (self.b1 - self.b0)

    @contextlib.contextmanager
    def attack(self, min_seconds=3.0):
        """The attack phase (at least min_seconds, like the baseline, so that both p99s rest on
        as many samples): samples RSS every 100 ms and /health every ~200 ms meanwhile."""
        stop = threading.Event()
        self.health_samples, self.rss_samples = [], []
        self.rss0 = self.gw.rss()
        self.w0, self.d0 = self.gw.written(), self.gw.data_bytes()
        self.cpu0 = self.gw.cpu_seconds()

        def rss_loop():
            while not stop.is_set():
                with contextlib.suppress(OSError, ValueError):
                    self.rss_samples.append(self.gw.rss())
                stop.wait(0.1)

        def health_loop():
            while not stop.is_set():
                self.health_samples.append(self.gw.health(timeout=2))
                stop.wait(0.2)

        threads = [threading.Thread(target=rss_loop, daemon=True), threading.Thread(target=health_loop, daemon=True)]
        self.a0 = time.monotonic()
        for t in threads:
            t.start()
        try:
            yield self
            time.sleep(max(0.0, self.a0 + min_seconds - time.monotonic()))
        finally:
            self.a1 = time.monotonic()
            self.cpu1 = self.gw.cpu_seconds()
            time.sleep(self.settle)  # frames read during the attack reach the disk
            stop.set()
            for t in threads:
                t.join(5)
            with contextlib.suppress(OSError, ValueError):
                self.w1 = self.gw.written()
            self.d1 = self.gw.data_bytes()

    def attack_cpu(self):
        """(CPU seconds the gateway used during the attack, what the baseline used in as long)."""
        return self.cpu1 - self.cpu0, self.base_cpu_rate * (self.a1 - self.a0)

    def finish(self):
        """Runs checks (a)-(d); raises AssertionError listing every failed check, else returns a
        one-line summary."""
        assert self.rss_allow is not None and self.disk_allow is not None, "case did not set its bounds"
        alive = self.gw.alive()
        res = self.victims.stop()
        base = self.victims.rtts(self.b0, self.b1)
        during = self.victims.rtts(self.a0, self.a1)
        bp, ap = p99(base), p99(during)
        p99_failure = None
        # (a) victims
        if bp is None or ap is None:
            self.failures.append(f"victims: no samples (baseline {len(base)}, attack {len(during)})")
            bound = None
        else:
            bound = max(P99_FACTOR * bp, bp + P99_FLOOR_MS)
            if not self.expect(ap <= bound, f"victims p99 {fmt_ms(ap)} ms during the attack > {fmt_ms(bound)} ms "
                                            f"(baseline p99 {fmt_ms(bp)} ms)"):
                p99_failure = self.failures[-1]
        lost = [s for s in res["samples"] if s[1] is None and s[0] < self.a1]
        self.expect(not lost, f"{len(lost)} victim CALLs unanswered within 5 s")
        errs = [e for e in res["errors"] if e[0] < self.a1 + self.settle]
        self.expect(not errs, f"victims lost their connection {len(errs)} times (first: {errs[0][1:] if errs else ''})")
        # (b) /health
        hmax = max((h[2] for h in self.health_samples), default=math.inf)
        self.expect(len(self.health_samples) >= 3 and hmax <= HEALTH_MAX_MS,
                    f"/health max {fmt_ms(hmax)} ms over {len(self.health_samples)} probes (limit {HEALTH_MAX_MS:.0f})")
        bad = sorted({h[0] for h in self.health_samples if h[0] not in self.health_statuses}, key=str)
        self.expect(not bad, f"/health answered {bad} (expected {list(self.health_statuses)})")
        # (c) memory and disk
        rss_growth = max(self.rss_samples, default=self.rss0) - self.rss0
        self.expect(rss_growth <= self.rss_allow,
                    f"RSS grew {rss_growth / MiB:.1f} MiB during the attack > {self.rss_allow / MiB:.1f} MiB")
        # The victims' own growth (twice their baseline rate) comes on top of the case's allowance.
        disk_bound = self.disk_allow + 2 * max(0.0, self.base_growth_rate) * (self.a1 - self.a0 + self.settle)
        grown = self.d1 - self.d0
        written = getattr(self, "w1", self.w0) - self.w0
        self.expect(grown <= disk_bound,
                    f"data folder grew {grown / MiB:.1f} MiB during the attack > {disk_bound / MiB:.1f} MiB")
        # (d) nothing acknowledged lost, still alive
        self.expect(alive, f"gateway died (rc {self.gw.proc.returncode})")
        acked = self.acked | {(cp, m) for cp, m in res["acked"]}
        stored = self.gw.stored_message_ids({cp for cp, _ in acked})
        missing = acked - stored
        self.expect(not missing, f"{len(missing)} of {len(acked)} acknowledged CALLs missing from the event log "
                                 f"(e.g. {sorted(missing)[:3]})")
        summary = (f"victims p99 {fmt_ms(bp)}->{fmt_ms(ap)} ms (<= {fmt_ms(bound)}), health max {fmt_ms(hmax)} ms, "
                   f"RSS +{rss_growth / MiB:.1f}/{self.rss_allow / MiB:.0f} MiB, "
                   f"data +{grown / MiB:.1f}/{disk_bound / MiB:.0f} MiB (I/O {written / MiB:.0f} MiB), "
                   f"acked {len(acked) - len(missing)}/{len(acked)} stored")
        details = "; ".join(self.notes + [summary])
        if self.failures == [p99_failure]:
            raise P99Exceeded("; ".join(self.failures) + " || " + details)
        if self.failures:
            raise AssertionError("; ".join(self.failures) + " || " + details)
        return details


if __name__ == "__main__" and len(sys.argv) == 3 and sys.argv[1] == "victims":
    asyncio.run(_victims_main(json.loads(sys.argv[2])))
