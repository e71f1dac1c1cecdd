# tests/integration/python/stream_test.py: the operator page's server side against the real
# binary (docs/api.md, "The operator page" and "Live stream").
# - GET /api/v1/stream: anonymous 401; with the session cookie (as EventSource sends it) or a
#   bearer token: the SSE head, `retry: 2000`, `hello` with the caller's role, `pipeline` (the
#   /health body) at once and again within 3 s; a PyPI `ocpp` 1.6 charge point connecting shows
#   its id in `changes` within 3 s, a StatusNotification shows it again, StartTransaction and
#   MeterValues set `sessions`; seq goes up by one per event; the stream is counted in /metrics
#   and /health; over --max-streams the next stream is 503 and a closed one frees its place.
# - The page: / redirects to /ui/, /ui/ is index.html with the security headers, unknown files
#   and paths escaping web/static/ are 404, If-None-Match with the ETag is 304.
# The stream is read from a raw socket (chunked transfer coding decoded here), so what is
# checked is exactly what a browser receives.
import asyncio
import json
import re
import socket
import threading
import time
from datetime import datetime, timezone

import websockets
from ocpp.v16 import ChargePoint, call

from api_client import ADMIN_ENV, ADMIN_PASSWORD, add_operator, http, login
from gateway_process import GatewayProcess

# What analytics puts in a `changes` event (sessions, the boot's and the disconnect's rows)
# reaches the stream after the analytics batch (its linger, analytics_linger_ms: 1 s by default)
# and the stream's next one-second write, so a window that waits for it allows both, and a margin.
ANALYTICS_SETTLE_S = 3


class EventStream:
    """GET /api/v1/stream on a raw socket: the head, then Server-Sent Events as they come."""

    def __init__(self, port, cookie=None, token=None, path="/api/v1/stream"):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        lines = [f"GET {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Accept: text/event-stream"]
        if cookie:
            lines.append(f"Cookie: ocppgw_session={cookie}")
        if token:
            lines.append(f"Authorization: Bearer {token}")
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        self.raw = b""  # read from the socket, not yet decoded
        self.text = ""  # decoded body, not yet parsed into events
        self.events = []  # every event parsed: (name, data) with data parsed as JSON; comments as (":", text)
        head = self._read_until(b"\r\n\r\n", time.time() + 10)
        status_line, *fields = head.decode().split("\r\n")
        self.status = int(status_line.split(" ")[1])
        self.headers = {}
        for field in fields:
            name, _, value = field.partition(":")
            self.headers[name.strip().lower()] = value.strip()
        self.chunked = self.headers.get("transfer-encoding") == "chunked"

    def _read_until(self, marker, deadline):
        while marker not in self.raw:
            self._recv(deadline)
        head, _, self.raw = self.raw.partition(marker)
        return head

    def _recv(self, deadline):
        remaining = deadline - time.time()
        if remaining <= 0:
            raise TimeoutError("no data in time")
        self.sock.settimeout(remaining)
        data = self.sock.recv(65536)
        if not data:
            raise ConnectionError("the gateway closed the stream")
        self.raw += data

    def _decode(self, deadline):
        """Moves whole chunks from raw to text (reading more when none is complete)."""
        if not self.chunked:
            self._recv(deadline)
            self.text += self.raw.decode()
            self.raw = b""
            return
        while True:
            line_end = self.raw.find(b"\r\n")
            if line_end >= 0:
                size = int(self.raw[:line_end], 16)
                if size == 0:
                    raise ConnectionError("last chunk: the stream ended")
                if len(self.raw) >= line_end + 2 + size + 2:
                    self.text += self.raw[line_end + 2:line_end + 2 + size].decode()
                    self.raw = self.raw[line_end + 2 + size + 2:]
                    return
            self._recv(deadline)

    def _parse(self):
        while "\n\n" in self.text:
            block, _, self.text = self.text.partition("\n\n")
            name, data = "message", None
            for line in block.split("\n"):
                if line.startswith(":"):
                    self.events.append((":", line[1:].strip()))
                elif line.startswith("retry: "):
                    self.events.append(("retry", int(line[7:])))
                elif line.startswith("event: "):
                    name = line[7:]
                elif line.startswith("data: "):
                    data = json.loads(line[6:])
            if data is not None:
                self.events.append((name, data))

    def next(self, name, timeout=3.0, where=lambda data: True):
        """The data of the next event `name` for which `where` holds, within `timeout` s; the
        events before it stay in self.events (the ones read so far)."""
        deadline = time.time() + timeout
        start = getattr(self, "_cursor", 0)
        while True:
            self._parse()
            for i in range(start, len(self.events)):
                event_name, data = self.events[i]
                if event_name == name and where(data):
                    self._cursor = i + 1
                    return data
            start = len(self.events)
            try:
                self._decode(deadline)
            except TimeoutError:
                raise AssertionError(f"no {name} event within {timeout} s; got {self.events[-10:]}")

    def quiet(self, seconds):
        """Reads for `seconds`; the `changes` events that came meanwhile."""
        deadline = time.time() + seconds
        before = len(self.events)
        while True:
            self._parse()
            try:
                self._decode(deadline)
            except TimeoutError:
                break
        self._parse()
        self._cursor = len(self.events)
        return [d for n, d in self.events[before:] if n == "changes"]

    def close(self):
        self.sock.close()


class ChargePointThread:
    """A PyPI `ocpp` 1.6 charge point on its own event loop thread; call() runs one CALL."""

    def __init__(self, gw, cp_id):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.cp_id = cp_id
        self._run(self._connect(gw))

    def _run(self, coroutine, timeout=10):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    async def _connect(self, gw):
        self.ws = await websockets.connect(f"{gw.url}/{self.cp_id}", subprotocols=["ocpp1.6"])
        self.cp = ChargePoint(self.cp_id, self.ws)
        self.listener = asyncio.ensure_future(self.cp.start())

    def call(self, payload):
        async def run():
            return await self.cp.call(payload)
        return self._run(run())

    def close(self):
        async def stop():
            self.listener.cancel()
            await self.ws.close()
        self._run(stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


def now():
    return datetime.now(timezone.utc).isoformat()


def names(cp_id):
    """A `changes` filter: the charge point is named, or everything is to be refetched."""
    return lambda d: d["charge_points"] == "*" or cp_id in d["charge_points"]


def gateway(tmp_path, *args):
    return GatewayProcess(tmp_path, args=args, env=ADMIN_ENV).start()


def metric(port, name):
    status, body, _ = http(port, "GET", "/metrics")
    assert status == 200
    match = re.search(rf"^{name} (\S+)$", body.decode(), re.M)
    return float(match.group(1)) if match else None


def test_anonymous_and_bad_credentials_are_401(tmp_path):
    gw = gateway(tmp_path)
    try:
        for kwargs in ({}, {"cookie": "not-a-session"}, {"token": "not-a-token"}):
            stream = EventStream(gw.port, **kwargs)
            assert stream.status == 401, kwargs
            assert stream.headers["content-type"] == "application/json"
            stream.close()
    finally:
        assert gw.stop() == 0


def test_stream_tells_the_page_what_changed(tmp_path):
    gw = gateway(tmp_path)
    admin = login(gw, "admin", ADMIN_PASSWORD)["token"]
    add_operator(gw, admin, "vic", "viewer")
    viewer = login(gw, "vic", "vic password 123")
    stream = EventStream(gw.port, cookie=viewer["token"])  # the cookie, as EventSource sends it
    cp = None
    try:
        assert stream.status == 200
        assert stream.headers["content-type"] == "text/event-stream"
        assert stream.headers["cache-control"] == "no-cache"
        assert stream.headers["x-accel-buffering"] == "no"
        assert stream.headers["transfer-encoding"] == "chunked"
        assert "content-length" not in stream.headers

        hello = stream.next("hello")
        assert stream.events[0] == ("retry", 2000), "retry comes first"
        assert hello["user"] == "vic" and hello["role"] == "viewer"
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", hello["server_time"])
        first = stream.next("pipeline", timeout=1)
        assert first["status"] == "ok" and "sink" in first and "analytics" in first
        assert first["streams"] == {"open": 1, "max": 100}
        stream.next("pipeline", timeout=3)  # and again on the 2 s tick
        assert metric(gw.port, "ocppgw_web_streams") == 1

        # A charge point connects: its id within 3 s.
        cp = ChargePointThread(gw, "PY-LIVE-1")
        seen = stream.next("changes", where=names("PY-LIVE-1"))
        cp.call(call.BootNotification(charge_point_model="M", charge_point_vendor="V"))
        stream.quiet(ANALYTICS_SETTLE_S)  # the changes of the connection and the boot pass

        cp.call(call.StatusNotification(connector_id=1, error_code="NoError", status="Available",
                                        timestamp=now()))
        status = stream.next("changes", where=names("PY-LIVE-1"))
        assert status["seq"] > seen["seq"]
        stream.quiet(ANALYTICS_SETTLE_S)

        start = cp.call(call.StartTransaction(connector_id=1, id_tag="TAG-1", meter_start=0,
                                              timestamp=now()))
        started = stream.next("changes", timeout=ANALYTICS_SETTLE_S,
                              where=lambda d: d["sessions"])
        assert names("PY-LIVE-1")(started)
        stream.quiet(ANALYTICS_SETTLE_S)
        cp.call(call.MeterValues(connector_id=1, transaction_id=start.transaction_id, meter_value=[
            {"timestamp": now(), "sampled_value": [
                {"value": "1500", "measurand": "Energy.Active.Import.Register", "unit": "Wh"}]}]))
        stream.next("changes", timeout=ANALYTICS_SETTLE_S, where=lambda d: d["sessions"])

        # seq: one more per changes event, no gaps on one stream; quiet means no changes event.
        seqs = [d["seq"] for n, d in stream.events if n == "changes"]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), seqs
        cp.close()
        cp = None
        stream.next("changes", where=names("PY-LIVE-1"))  # disconnected
        stream.quiet(ANALYTICS_SETTLE_S)  # the disconnect's event, once analytics has it
        assert stream.quiet(2.5) == [], "nothing changed: no changes event"

        # A bearer token works too, with its own role.
        by_token = EventStream(gw.port, token=admin)
        assert by_token.next("hello")["role"] == "admin"
        status, body, _ = http(gw.port, "GET", "/health")
        assert json.loads(body)["streams"]["open"] == 2
        by_token.close()
    finally:
        if cp:
            cp.close()
        stream.close()
        assert gw.stop() == 0
    assert "stream_closed" in gw.logs()


def test_streams_over_max_streams_are_503(tmp_path):
    gw = gateway(tmp_path, "--max-streams", "2")
    token = login(gw, "admin", ADMIN_PASSWORD)["token"]
    streams = []
    try:
        for _ in range(2):
            streams.append(EventStream(gw.port, token=token))
            streams[-1].next("hello")
        third = EventStream(gw.port, token=token)
        assert third.status == 503
        assert third.headers["retry-after"] == "5"
        third.close()
        streams.pop(0).close()
        deadline = time.time() + 5
        while metric(gw.port, "ocppgw_web_streams") != 1:
            assert time.time() < deadline, "a closed stream still counts"
            time.sleep(0.1)
        again = EventStream(gw.port, token=token)
        assert again.status == 200
        again.next("hello")
        streams.append(again)
    finally:
        for s in streams:
            s.close()
        assert gw.stop() == 0


def raw_get(port, target, headers=""):
    """(status, headers dict, body bytes) of one GET sent as written (no path normalisation)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(f"GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{headers}\r\n".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *fields = head.decode().split("\r\n")
    parsed = {f.partition(":")[0].lower(): f.partition(":")[2].strip() for f in fields}
    return int(status_line.split(" ")[1]), parsed, body


def test_the_page_is_served_from_the_embedded_files_only(tmp_path):
    gw = gateway(tmp_path)
    try:
        status, headers, _ = raw_get(gw.port, "/")
        assert status == 302 and headers["location"] == "/ui/"
        status, headers, body = raw_get(gw.port, "/ui/")
        assert status == 200
        assert headers["content-type"] == "text/html; charset=utf-8"
        assert b"<html" in body
        assert headers["content-security-policy"] == (
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
            "connect-src 'self'; frame-ancestors 'none'")
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "no-referrer"
        assert headers["cache-control"] == "no-cache"
        etag = headers["etag"]
        status, headers, body = raw_get(gw.port, "/ui/", f"If-None-Match: {etag}\r\n")
        assert status == 304 and body == b"" and headers["etag"] == etag
        status, _, body = raw_get(gw.port, "/ui/", 'If-None-Match: "stale"\r\n')
        assert status == 200 and b"<html" in body

        for target in ("/ui/nope.js", "/ui/../gateway", "/ui/../../gateway/ocppgw",
                       "/ui/%2e%2e/CMakeLists.txt", "/ui/..%2f..%2fCMakeLists.txt",
                       "/ui//etc/passwd"):
            status, _, body = raw_get(gw.port, target)
            assert status == 404, target
            assert body == b"not found\n", target
        # The page needs no login; the data does.
        status, _, _ = raw_get(gw.port, "/api/v1/charge-points")
        assert status == 401
    finally:
        assert gw.stop() == 0
