# tests/integration/python/metrics_test.py: /metrics, /healthz and /readyz against the real
# binary. Raw WebSocket charge points (1.6 and 2.0.1) send known frames, some of them answered
# with CALLERRORs; the API makes CSMS calls with known outcomes; the scrape is parsed with
# prometheus_client's own text parser and its counters must equal what the test did. Also:
# web_listen (the API on its own port, not on the OCPP port), the body and header limits (413,
# 431), metrics_require_token, and /readyz turning 503 while the event log refuses writes.
import asyncio
import collections
import json
import os
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request

import websockets
from prometheus_client.parser import text_string_to_metric_families

from api_client import ADMIN_PASSWORD, http
from gateway_process import ROOT, GatewayProcess, free_port



def login(port):
    status, body, _ = http(port, "POST", "/api/v1/session", {"name": "admin", "password": ADMIN_PASSWORD})
    assert status == 200, body
    return json.loads(body)["token"]


def scrape(port, token=None):
    """{(sample name, frozenset of labels): value} of one GET /metrics, via prometheus_client."""
    status, body, headers = http(port, "GET", "/metrics", token=token)
    assert status == 200, body
    assert headers["Content-Type"].startswith("text/plain; version=0.0.4")
    text = body.decode()
    samples = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            samples[(s.name, frozenset(s.labels.items()))] = s.value
    return samples, text


def value(samples, name, **labels):
    return samples.get((name, frozenset(labels.items())), 0.0)


class RawChargePoint:
    """Sends frames as text and reads the replies; answers the CSMS's calls when told to."""

    def __init__(self, ws):
        self.ws = ws
        self.next_id = 0

    async def call(self, action, payload):
        self.next_id += 1
        mid = f"m{self.next_id}"
        await self.ws.send(json.dumps([2, mid, action, payload]))
        return await self.reply(mid)

    async def send_raw(self, text):
        await self.ws.send(text)
        return json.loads(await self.ws.recv())

    async def reply(self, mid):
        msg = json.loads(await self.ws.recv())
        assert msg[1] == mid, msg
        return msg


async def frames_and_calls(gw, token):
    """Drives both charge points; returns what the metrics must show."""
    expect = collections.Counter()
    errors = collections.Counter()  # (version, code) of every CALLERROR received
    replies = collections.Counter()  # version -> replies to our frames (ack latency count)

    def note(version, reply):
        replies[version] += 1
        if reply[0] == 4:
            errors[(version, reply[2])] += 1

    api = lambda *a, **k: asyncio.to_thread(http, gw.port, *a, **k)  # noqa: E731
    calls = "/api/v1/charge-points/PY-MET-16/calls/"
    async with websockets.connect(f"{gw.url}/PY-MET-16", subprotocols=["ocpp1.6"]) as ws16, \
            websockets.connect(f"{gw.url}/PY-MET-201", subprotocols=["ocpp2.0.1"]) as ws201:
        cp16, cp201 = RawChargePoint(ws16), RawChargePoint(ws201)

        note("1.6", await cp16.call("BootNotification", {"chargePointVendor": "V", "chargePointModel": "M"}))
        expect[("1.6", "call", "BootNotification")] += 1
        for _ in range(3):
            note("1.6", await cp16.call("Heartbeat", {}))
        expect[("1.6", "call", "Heartbeat")] += 3
        for _ in range(2):
            reply = await cp16.call("NoSuchAction", {})
            assert reply[0] == 4 and reply[2] == "NotImplemented", reply
            note("1.6", reply)
        expect[("1.6", "call", "other")] += 2
        reply = await cp16.call("StatusNotification", {"connectorId": 1})  # required fields missing
        assert reply[0] == 4, reply
        note("1.6", reply)
        expect[("1.6", "call", "StatusNotification")] += 1
        reply = await cp16.send_raw("this is not OCPP-J")
        assert reply[0] == 4, reply
        note("1.6", reply)
        expect[("1.6", "malformed", "")] += 1

        boot201 = {"chargingStation": {"model": "M", "vendorName": "V"}, "reason": "PowerUp"}
        note("2.0.1", await cp201.call("BootNotification", boot201))
        for _ in range(2):
            note("2.0.1", await cp201.call("Heartbeat", {}))
        reply = await cp201.call("Nope", {})
        assert reply[0] == 4 and reply[2] == "NotImplemented", reply
        note("2.0.1", reply)
        expect[("2.0.1", "call", "BootNotification")] += 1
        expect[("2.0.1", "call", "Heartbeat")] += 2
        expect[("2.0.1", "call", "other")] += 1

        # Both connected now: the connections gauge sees them, by version.
        samples, _ = await asyncio.to_thread(scrape, gw.port)
        assert value(samples, "ocppgw_connections", version="1.6", security_profile="0") == 1
        assert value(samples, "ocppgw_connections", version="2.0.1", security_profile="0") == 1

        # CSMS calls with known outcomes: the charge point answers two, refuses one, ignores one.
        async def answered(action, payload, answer):
            pending = asyncio.create_task(api("POST", calls + action, payload, token=token))
            msg = json.loads(await ws16.recv())
            assert msg[0] == 2 and msg[2] == action, msg
            if answer is not None:
                await ws16.send(json.dumps(answer(msg[1])))
            return await pending

        for _ in range(2):
            status, body, _ = await answered("ClearCache", {}, lambda mid: [3, mid, {"status": "Accepted"}])
            assert status == 200, body
        expect[("1.6", "callresult", "")] += 2
        status, body, _ = await answered("Reset", {"type": "Soft"},
                                         lambda mid: [4, mid, "NotSupported", "not here", {}])
        assert status == 200 and json.loads(body)["result"] == "CallError", body
        expect[("1.6", "callerror", "")] += 1
        status, body, _ = await answered("ClearCache", {}, None)
        assert status == 504, body
        assert (await api("POST", calls + "Reset", {}, token=token))[0] == 400  # type missing
        assert (await api("POST", calls + "BootNotification", {}, token=token))[0] == 404
        assert (await api("POST", "/api/v1/charge-points/NOBODY/calls/Reset", {"type": "Soft"},
                          token=token))[0] == 409
    return expect, errors, replies


def test_metrics_count_exactly_what_was_sent(tmp_path):
    gw = GatewayProcess(tmp_path, args=["--csms-call-timeout", "1"],
                        env={"OCPPGW_ADMIN_PASSWORD": ADMIN_PASSWORD})
    gw.start()
    try:
        # The probes and /metrics need no login.
        assert http(gw.port, "GET", "/healthz")[:2] == (200, b'{"status":"alive"}\n')
        assert http(gw.port, "GET", "/readyz")[:2] == (200, b'{"status":"ready"}\n')
        token = login(gw.port)
        expect, errors, replies = asyncio.run(frames_and_calls(gw, token))
        samples, text = scrape(gw.port)
    finally:
        assert gw.stop() == 0

    frames = {(dict(k[1])["version"], dict(k[1])["type"], dict(k[1])["action"]): v
              for k, v in samples.items() if k[0] == "ocppgw_frames_received_total" and v}
    assert frames == dict(expect)
    sent = {(dict(k[1])["version"], dict(k[1])["code"]): v
            for k, v in samples.items() if k[0] == "ocppgw_callerrors_sent_total" and v}
    assert sent == dict(errors)
    assert errors[("1.6", "NotImplemented")] == 2 and errors[("2.0.1", "NotImplemented")] == 1
    for version, n in replies.items():
        assert value(samples, "ocppgw_ack_latency_seconds_count", version=version) == n
        assert value(samples, "ocppgw_ack_latency_seconds_bucket", version=version, le="+Inf") == n
        # Every reply was sent, beside the CSMS calls; several may have shared a write.
        messages = value(samples, "ocppgw_ws_messages_sent_total", version=version)
        assert messages >= n
        assert 1 <= value(samples, "ocppgw_ws_writes_total", version=version) <= messages

    outcomes = {(dict(k[1])["action"], dict(k[1])["outcome"]): v
                for k, v in samples.items() if k[0] == "ocppgw_csms_calls_total" and v}
    assert outcomes == {("ClearCache", "CallResult"): 2, ("Reset", "CallError"): 1,
                        ("ClearCache", "Timeout"): 1, ("Reset", "InvalidRequest"): 1,
                        ("other", "UnknownAction"): 1, ("other", "NotConnected"): 1}

    # HTTP requests by route pattern, never by raw path; no charge point id anywhere.
    route = "/api/v1/charge-points/{id}/calls/{action}"
    assert value(samples, "ocppgw_http_requests_total", method="POST", route="/api/v1/session",
                 status="200") == 1
    assert value(samples, "ocppgw_http_requests_total", method="POST", route=route, status="200") == 3
    assert value(samples, "ocppgw_http_requests_total", method="POST", route=route, status="504") == 1
    assert value(samples, "ocppgw_http_requests_total", method="GET", route="/readyz", status="200") == 1
    assert "PY-MET" not in text and "NOBODY" not in text and "NoSuchAction" not in text

    # The sink committed at least every frame, in batches; the scrape-time gauges are there.
    assert value(samples, "ocppgw_sink_batch_size_sum") >= sum(expect.values())
    assert value(samples, "ocppgw_sink_commit_seconds_count") >= 1
    assert value(samples, "ocppgw_event_log_writable") == 1
    assert ("ocppgw_outbox_depth", frozenset()) in samples
    assert ("ocppgw_analytics_lag_events", frozenset()) in samples
    assert value(samples, "ocppgw_analytics_conservation_violations_total") == 0
    assert value(samples, "ocppgw_connections", version="1.6", security_profile="0") == 0


def test_web_listen_serves_the_api_alone_with_limits(tmp_path):
    web = free_port()
    gw = GatewayProcess(tmp_path, args=["--web-listen", f"127.0.0.1:{web}", "--max-http-body-bytes", "2048",
                                        "--max-http-header-bytes", "4096", "--web-request-timeout", "2"],
                        env={"OCPPGW_ADMIN_PASSWORD": ADMIN_PASSWORD}, ready_port=web)
    gw.start()
    try:
        for path in ("/health", "/healthz", "/readyz", "/metrics"):
            assert http(web, "GET", path)[0] == 200, path
            assert http(gw.port, "GET", path)[0] == 404, path  # not on the OCPP port
        token = login(web)
        assert http(gw.port, "GET", "/api/v1/session", token=token)[0] == 404
        assert http(web, "GET", "/api/v1/session", token=token)[0] == 200

        async def connect():
            async with websockets.connect(f"{gw.url}/PY-WEB", subprotocols=["ocpp1.6"]) as ws:
                await ws.send(json.dumps([2, "1", "Heartbeat", {}]))
                assert json.loads(await ws.recv())[0] == 3
            try:  # an upgrade on the API's port is refused
                async with websockets.connect(f"ws://127.0.0.1:{web}/ocpp/PY-WEB", subprotocols=["ocpp1.6"]):
                    raise AssertionError("upgraded on web_listen")
            except websockets.exceptions.InvalidStatusCode as e:
                assert e.status_code == 404
        asyncio.run(connect())

        status, body, _ = http(web, "POST", "/api/v1/session", raw_body=b'{"name":"' + b"x" * 4096 + b'"}')
        assert status == 413 and b"max_http_body_bytes" in body, (status, body)
        with socket.create_connection(("127.0.0.1", web), timeout=10) as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"y" * 5000 + b"\r\n\r\n")
            assert s.recv(100).startswith(b"HTTP/1.1 431"), "header over max_http_header_bytes"
        # A client still sending a refused body gets the whole 413: the gateway reads and drops
        # the rest before it closes, instead of resetting the connection under the answer.
        with socket.create_connection(("127.0.0.1", web), timeout=10) as s:
            s.sendall(b"POST /api/v1/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      b"Content-Length: 600000\r\n\r\n")
            s.sendall(b"x" * 600000)
            time.sleep(0.2)
            answer = b""
            while chunk := s.recv(65536):
                answer += chunk
            assert answer.startswith(b"HTTP/1.1 413") and b"max_http_body_bytes" in answer, answer[:200]
        # Half a request: 408 once web_request_timeout passes; an idle connection closes silently.
        with socket.create_connection(("127.0.0.1", web), timeout=10) as half, \
                socket.create_connection(("127.0.0.1", web), timeout=10) as idle:
            half.sendall(b"GET /healthz HTTP/1.1\r\nHost:")
            t0 = time.monotonic()
            assert half.recv(100).startswith(b"HTTP/1.1 408")
            assert 1.5 < time.monotonic() - t0 < 5
            assert idle.recv(100) == b""
        assert "http_request_timeout" in gw.logs()
        samples, _ = scrape(web)
        assert value(samples, "ocppgw_frames_received_total", version="1.6", type="call", action="Heartbeat") == 1
    finally:
        assert gw.stop() == 0


def test_web_listen_over_tls(tmp_path):
    certs = tmp_path / "certs"
    subprocess.run([os.path.join(ROOT, "certs/make-dev-certs.sh"), str(certs)], check=True, timeout=60)
    web = free_port()
    gw = GatewayProcess(tmp_path / "data", args=["--web-listen", f"127.0.0.1:{web}",
                                                 "--web-tls-cert", str(certs / "server.pem"),
                                                 "--web-tls-key", str(certs / "server.key")],
                        ready_port=web)
    os.makedirs(gw.data_dir, exist_ok=True)
    # start() asks over plain HTTP: wait for the listener with TLS instead.
    context = ssl.create_default_context(cafile=str(certs / "ca.pem"))
    gw.log = open(gw.log_path, "ab")
    gw.proc = subprocess.Popen(gw.args, stdout=subprocess.DEVNULL, stderr=gw.log, env=gw.env)
    try:
        for _ in range(300):
            try:
                with urllib.request.urlopen(f"https://127.0.0.1:{web}/healthz", context=context, timeout=1) as r:
                    assert r.status == 200 and json.loads(r.read()) == {"status": "alive"}
                    break
            except (OSError, ssl.SSLError):
                assert gw.proc.poll() is None, gw.logs()
                asyncio.run(asyncio.sleep(0.05))
        else:
            raise AssertionError("no HTTPS on web_listen: " + gw.logs())
        with urllib.request.urlopen(f"https://127.0.0.1:{web}/metrics", context=context, timeout=5) as r:
            assert r.status == 200 and b"# TYPE ocppgw_frames_received_total counter" in r.read()
        with socket.create_connection(("127.0.0.1", web), timeout=5) as s:  # plain HTTP: no answer
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            assert not s.recv(100).startswith(b"HTTP/1.1 200")
    finally:
        assert gw.stop() == 0


def test_metrics_require_token(tmp_path):
    gw = GatewayProcess(tmp_path, args=["--metrics-require-token", "true"],
                        env={"OCPPGW_ADMIN_PASSWORD": ADMIN_PASSWORD})
    gw.start()
    try:
        status, body, headers = http(gw.port, "GET", "/metrics")
        assert status == 401 and "error" in json.loads(body), body
        assert headers["WWW-Authenticate"].startswith("Bearer")
        assert http(gw.port, "GET", "/healthz")[0] == 200
        assert http(gw.port, "GET", "/readyz")[0] == 200
        token = login(gw.port)
        status, _, _ = http(gw.port, "POST", "/api/v1/operators", {"name": "vic", "role": "viewer",
                                                                    "password": "vic password 123"}, token=token)
        assert status == 201
        status, body, _ = http(gw.port, "POST", "/api/v1/session", {"name": "vic", "password": "vic password 123"})
        samples, _ = scrape(gw.port, token=json.loads(body)["token"])
        assert value(samples, "ocppgw_http_requests_total", method="GET", route="/metrics", status="401") == 1
    finally:
        assert gw.stop() == 0


def test_readyz_is_503_while_the_event_log_refuses_writes(tmp_path):
    # A free-disk floor no file system meets: the disk guard is critical from the start, so the
    # event log refuses writes, while the process itself is alive.
    gw = GatewayProcess(tmp_path, args=["--min-free-disk-bytes", str(1 << 59)], ready_path="/healthz")
    gw.start()
    try:
        status, body, _ = http(gw.port, "GET", "/readyz")
        body = json.loads(body)
        assert status == 503 and "disk" in body["failing"] and "event log" in body["error"], body
        assert http(gw.port, "GET", "/healthz")[0] == 200
        samples, _ = scrape(gw.port)
        assert value(samples, "ocppgw_event_log_writable") == 0
    finally:
        assert gw.stop() == 0
