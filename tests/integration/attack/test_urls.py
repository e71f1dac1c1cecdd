# tests/integration/attack/test_urls.py: path and id tricks in the upgrade URL, on the real
# binary (plain listener, profile 0: the id in the URL is all there is). The rule
# (docs/configuration.md, csms/charge_point_id.hpp): exactly one path segment after the prefix,
# percent-decoded, 1-48 printable ASCII characters without space or '/', not "." or "..".
# A refused id is HTTP 400 before the upgrade (404 outside the prefix), nobody connects under
# it, and nothing it carries reaches the log as a line of its own.
# Already asserted elsewhere (not repeated): ".", "..", "%2e", "%2E%2E" and /ocpp/a/b/CP-11
# (tests/integration/robustness/robustness.py, case ids_paths_nul_transfer_encoding);
# "a%2Fb", 49 characters, "bad%20id", "%zz" (tests/integration/node/bad_input.test.cjs).
import contextlib
import socket
import time

import pytest
from attack_lib import RawWs, parse_http_head, serving, upgrade_request
from gateway_process import GatewayProcess


@pytest.fixture(scope="module")
def gw(tmp_path_factory):
    g = GatewayProcess(tmp_path_factory.mktemp("urls")).start()
    yield g
    assert g.stop() == 0


def raw_upgrade(port, target_bytes):
    """(status, body) of an upgrade request whose request-target is sent as the given bytes."""
    req = upgrade_request(port, "/TARGET").replace(b"/TARGET", target_bytes, 1)
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(req)
        buf = b""
        with contextlib.suppress(OSError):
            while not buf.startswith(b"HTTP/1.1 101 ") or b"\r\n\r\n" not in buf:
                chunk = s.recv(65536)
                if not chunk:
                    break
                buf += chunk
    if b"\r\n\r\n" not in buf:
        return None, buf
    head, body = buf.split(b"\r\n\r\n", 1)
    return parse_http_head(head)[0], body


REFUSED = [
    ("dotdot-before-id", b"/ocpp/../ocpp/ATK-1", 400),
    ("dotdot-after-id", b"/ocpp/ATK-1/..", 400),
    ("dotdot-encoded-slash", b"/ocpp/..%2fATK-1", 400),
    ("all-encoded-traversal", b"/ocpp/%2e%2e%2f%2e%2e%2fetc%2fpasswd", 400),
    ("double-slash", b"/ocpp//ATK-1", 400),
    ("empty-id", b"/ocpp/", 400),
    # A backslash is a printable character like any other (no file path is ever built from an
    # id): "..\..\ATK-1" is an id of its own, not a way out of /ocpp/.
    ("backslash-is-just-a-character", b"/ocpp/..%5c..%5cATK-1", 101),
    ("nul-encoded", b"/ocpp/ATK%001", 400),
    ("nul-only", b"/ocpp/%00", 400),
    ("crlf-encoded", b"/ocpp/ATK%0D%0Aevent=forged%20cp=ADMIN", 400),
    ("control-encoded", b"/ocpp/ATK%01", 400),
    ("esc-encoded", b"/ocpp/ATK%1B%5B31m", 400),
    ("del-encoded", b"/ocpp/ATK%7F", 400),
    ("tab-encoded", b"/ocpp/ATK%09x", 400),
    ("utf8-encoded", b"/ocpp/ATK%C3%A9", 400),
    ("latin1-encoded", b"/ocpp/ATK%E9", 400),
    ("truncated-percent", b"/ocpp/ATK%4", 400),
    ("lone-percent", b"/ocpp/ATK%", 400),
    ("raw-control", b"/ocpp/ATK\x01", 400),
    ("raw-del", b"/ocpp/ATK\x7f", 400),
    ("raw-high-byte", b"/ocpp/ATK\xe9", 400),
    ("overlong-encoded", b"/ocpp/" + b"%41" * 49, 400),
    ("overlong-4k", b"/ocpp/" + b"A" * 4000, 400),
    ("overlong-over-header-limit", b"/ocpp/" + b"A" * 9000, 431),
    ("outside-prefix", b"/ocppX/ATK-1", 404),
    ("prefix-case", b"/OCPP/ATK-1", 404),
    ("prefix-only", b"/ocpp", 404),
    ("traversal-into-prefix", b"/x/../ocpp/ATK-1", 404),
    ("absolute-form", b"http://127.0.0.1/ocpp/ATK-1", 404),
]


@pytest.mark.parametrize("name,target,expected", REFUSED, ids=[r[0] for r in REFUSED])
def test_id_tricks_are_refused_before_the_upgrade(name, target, expected, gw, note):
    status, body = raw_upgrade(gw.port, target)
    assert status == expected, (status, body[:200])
    logs = gw.logs()
    # Nothing the URL carries starts a log line of its own (CR/LF stay inside the quoted target).
    assert not any(line.startswith("event=forged") for line in logs.splitlines())
    if expected == 400:
        assert b"charge point id" in body or b"path segment" in body or b"bad request" in body, body
    serving(gw.port, "URL-OK")
    note(f"{status} {body.strip()[:70].decode('latin-1')!r}")


def test_percent_encoded_id_is_the_decoded_id(gw, note):
    """/ocpp/%41TK%2DE and the 48-character %41... are the ids ATK-E and A*48: events carry the
    decoded id, and a connection with the plain spelling replaces the encoded one (same id)."""
    a = RawWs(gw.port)
    assert a.open("/ocpp/%41TK%2DE")[0] == 101
    assert a.call("enc-1", "Heartbeat", {})[0] == 3
    b = RawWs(gw.port)
    assert b.open("/ocpp/ATK-E")[0] == 101
    opcode, payload = a.recv_frame(5)
    assert opcode == 8 and payload[:2] == b"\x03\xe8", (opcode, payload)
    assert b.call("enc-2", "Heartbeat", {})[0] == 3
    a.shutdown()
    b.shutdown()
    ids48 = RawWs(gw.port)
    assert ids48.open("/ocpp/" + "%41" * 48)[0] == 101
    assert ids48.call("enc-48", "Heartbeat", {})[0] == 3
    ids48.shutdown()
    time.sleep(0.3)
    assert {"enc-1", "enc-2"} <= {e.get("message_id") for e in gw.events("ATK-E")}
    assert "enc-48" in {e.get("message_id") for e in gw.events("A" * 48)}
    assert not gw.events("%41TK%2DE")
    note("stored under ATK-E and A*48; plain spelling replaced the encoded one (1000)")


def test_second_connection_with_a_connected_id_replaces_the_first(gw, note):
    """The newer connection wins (gateway/ws_session.cpp on_accept, session_registry.hpp): the
    older gets close 1000 "replaced by a newer connection"; what it had acknowledged stays in
    the event log; the newer is served. (With HTTP Basic only a connection that authenticates
    gets this far: test_profiles.py shows an unauthenticated one cannot displace it.)"""
    old = RawWs(gw.port)
    assert old.open("/ocpp/ATK-DUP")[0] == 101
    acked = []
    for i in range(5):
        reply = old.call(f"old-{i}", "Heartbeat", {})
        assert reply[0] == 3
        acked.append(f"old-{i}")
    new = RawWs(gw.port)
    assert new.open("/ocpp/ATK-DUP")[0] == 101
    opcode, payload = old.recv_frame(5)
    assert opcode == 8, (opcode, payload)
    assert payload[:2] == b"\x03\xe8" and payload[2:] == b"replaced by a newer connection", payload
    reply = new.call("new-1", "Heartbeat", {})
    assert reply[0] == 3
    acked.append("new-1")
    old.shutdown()
    new.shutdown()
    time.sleep(0.3)
    stored = {e.get("message_id") for e in gw.events("ATK-DUP")}
    assert set(acked) <= stored, set(acked) - stored
    assert "connection_replaced cp=ATK-DUP" in gw.logs()
    note(f"older closed 1000 'replaced by a newer connection'; {len(acked)}/{len(acked)} acknowledged stored")
