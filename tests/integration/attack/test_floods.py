# tests/integration/attack/test_floods.py: floods against the real binary.
#   A frame flood from one charge point (small CALLs written as fast as the socket takes them)
#   while a few well-behaved charge points run: their p99 round trip during the flood stays
#   within 2x of their p99 measured just before in the same test (no absolute floor added), none
#   of their CALLs goes unanswered, the flooder is slowed to max_messages_per_second and never
#   dropped, and every CALL anyone got a CALLRESULT for is in the event log.
#   10,000 connections from one address with max_connections_per_address 100: the first 100
#   upgrade and are served; the other 9,900 each get the documented 503 (Retry-After, reason)
#   and are closed; a charge point from another address is served meanwhile; no slot leaks.
# Already asserted elsewhere (not repeated): a byte flood of 1 MiB frames and descriptor
# exhaustion under RLIMIT_NOFILE 128 (robustness cases byte_flood and file_descriptors).
import itertools
import json
import math
import os
import pathlib
import resource
import selectors
import socket
import shutil
import tempfile
import threading
import time

import pytest
from attack_lib import RawWs, boot_raw, call_frame, serving
from gateway_process import GatewayProcess
from harness import Gateway, Victims, p99

BASELINE_S = 4.0
FLOOD_S = 4.0
RATE = 200  # max_messages_per_second (the default, passed explicitly)


def meter_values(msgid):
    return call_frame(msgid, "MeterValues", {"connectorId": 1, "meterValue": [
        {"timestamp": "2025-01-01T00:00:00Z", "sampledValue": [{"value": "1"}]}]}, key=b"\0\0\0\0")


def frame_flood_once(workdir, flood=True):
    """One measurement on a fresh gateway: (failures, summary). flood=False measures the same
    windows without the flood (to see the host's own noise when diagnosing a failure)."""
    gw = Gateway(workdir, ["--max-messages-per-second", RATE]).start()
    victims = Victims(gw, count=5, interval=0.02, prefix="CALM", kind="mixed")
    try:
        victims.start()
        flooder, boot = boot_raw(gw.port, "FLOODER")
        assert boot[0] == 3
        # Built as the socket takes them (a few thousand a second at most: the gateway reads 200/s
        # and the loopback socket buffers hold the rest).
        frames = (meter_values(f"f-{i}") for i in itertools.count())
        time.sleep(0.5)  # warm-up
        b0 = time.monotonic()
        time.sleep(BASELINE_S)
        b1 = a0 = time.monotonic()
        flooder.start_reader()
        if flood:
            written, done, err = flooder.pump(frames, a0 + FLOOD_S)
        else:  # control run (diagnosis only): the same windows without the flood
            time.sleep(FLOOD_S)
            written, done, err = 0, 0, None
        a1 = time.monotonic()
        # The flood ends with the flooder's connection (frames still in the socket buffers would
        # keep the gateway reading 200/s); what it got answered until then must be stored.
        time.sleep(0.2)
        replies = dict(flooder.replies)
        flooder.shutdown()
        c0 = time.monotonic()
        time.sleep(BASELINE_S)  # the control window after the flood
        c1 = time.monotonic()
        alive = gw.alive()
        res = victims.stop()
        before, during, after = victims.rtts(b0, b1), victims.rtts(a0, a1), victims.rtts(c0, c1)
        # The baseline is the lower of the p99s before and after the flood: a host hiccup in
        # one of them must not make the bound looser.
        bp, ap, cp = p99(before), p99(during), p99(after)
        base = min(bp, cp)
        answered = sorted(int(m[2:]) for m, (_, f) in replies.items() if m.startswith("f-") and f[0] == 3)
        by_a1 = sum(1 for m, (t, f) in replies.items() if m.startswith("f-") and t <= a1)
        acked = {(c, m) for c, m in res["acked"]} | {("FLOODER", f"f-{i}") for i in answered}
        stored = gw.stored_message_ids({c for c, _ in acked})
        summary = (f"victims p99 before {bp:.1f} / during {ap:.1f} / after {cp:.1f} ms (bound 2 x {base:.1f}) "
                   f"over {len(before)}/{len(during)}/{len(after)} CALLs; flooder wrote {done} frames "
                   f"({written >> 10} KiB), {by_a1} answered during the flood ({by_a1 / (a1 - a0):.0f}/s), "
                   f"{len(answered)} in all")
        failures = []
        if not alive:
            failures.append("gateway died")
        if err is not None:
            failures.append(f"flooder dropped: {err}")
        if min(len(before), len(during), len(after)) < 500:
            failures.append("fewer than 500 victim CALLs in a window")
        if [s for s in res["samples"] if s[1] is None]:
            failures.append("a victim CALL went unanswered")
        if res["errors"]:
            failures.append(f"victims lost connections: {res['errors'][:2]}")
        if not ap <= 2 * base:
            failures.append(f"victims p99 {ap:.1f} ms during the flood > 2 x baseline p99 {base:.1f} ms")
        # Slowed down, not dropped: answered in order, at max_messages_per_second (after a
        # burst of one second's worth, the token bucket's depth).
        if answered != list(range(len(answered))):
            failures.append("the flooder's answers are not a prefix of what it sent")
        if not RATE * (a1 - a0) * 0.5 <= by_a1 <= RATE + RATE * (a1 - a0) * 1.05:
            failures.append(f"{by_a1} flooder frames answered in {a1 - a0:.1f} s at max_messages_per_second {RATE}")
        missing = acked - stored
        if missing:
            failures.append(f"{len(missing)} acknowledged CALLs missing from the event log, e.g. {sorted(missing)[:3]}")
        return failures, summary
    finally:
        victims.kill()
        gw.stop()


@pytest.fixture
def fast_dir(tmp_path):
    """The data folder on tmpfs (/dev/shm) when there is one, as the robustness suite does: every
    victim round trip waits for its commit, and on a shared host the disk's fsync latency under
    unrelated load would show as p99 noise many times larger than the gateway's own. Env
    ATTACK_TMPDIR sets another folder (a disk one to include the disk)."""
    base = os.environ.get("ATTACK_TMPDIR") or ("/dev/shm" if os.access("/dev/shm", os.W_OK) else str(tmp_path))
    d = tempfile.mkdtemp(prefix="ocppgw-attack-flood-", dir=base)
    yield pathlib.Path(d)
    shutil.rmtree(d, ignore_errors=True)


def test_frame_flood_from_one_charge_point_keeps_the_others_p99_within_2x(fast_dir, note):
    """Measured on a fresh gateway; when only the p99 rule fails the measurement is repeated
    once on another fresh gateway, and the case passes only if that one passes every check
    (a stall of this shared host inside a 4 s window is not the flood's doing, while what the
    flood causes happens again). Both runs are printed."""
    failures, summary = frame_flood_once(fast_dir / "run1")
    if failures and all("p99" in f for f in failures):
        note(f"first run: {summary}; {'; '.join(failures)}; repeated")
        failures, summary = frame_flood_once(fast_dir / "run2")
    note(summary)
    assert not failures, "; ".join(failures)


def test_ten_thousand_connections_from_one_address_with_a_per_address_limit(tmp_path, note):
    LIMIT, TOTAL = 100, 10000
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert soft >= TOTAL + 500, (f"this test needs {TOTAL + 500} descriptors (RLIMIT_NOFILE soft {soft}, hard {hard}); "
                                 "run it through run.sh, which raises the soft limit to the hard one")
    gw = GatewayProcess(tmp_path, ["--max-connections-per-address", str(LIMIT)]).start()
    allowed, flood = [], []
    try:
        for i in range(LIMIT):
            ws, reply = boot_raw(gw.port, f"ALLOWED-{i:03d}")
            assert reply[0] == 3, reply
            allowed.append(ws)
        sel = selectors.DefaultSelector()
        answers = {}
        t0 = time.monotonic()
        served_meanwhile = {}

        def other_address():
            time.sleep(0.3)
            t = time.monotonic()
            serving(gw.port, "OTHER-ADDRESS", source="127.0.0.2")
            served_meanwhile["ms"] = (time.monotonic() - t) * 1000
        th = threading.Thread(target=other_address, daemon=True)
        th.start()
        for _ in range(TOTAL - LIMIT):
            s = socket.socket()
            s.setblocking(False)
            s.connect_ex(("127.0.0.1", gw.port))
            flood.append(s)
            sel.register(s, selectors.EVENT_READ, bytearray())
        deadline = t0 + 60
        open_count = len(flood)
        while open_count and time.monotonic() < deadline:
            for key, _ in sel.select(timeout=1):
                try:
                    chunk = key.fileobj.recv(4096)
                except (ConnectionResetError, ConnectionRefusedError) as e:
                    key.data.extend(f" [{type(e).__name__}]".encode())
                    chunk = b""
                except BlockingIOError:
                    continue
                if chunk:
                    key.data.extend(chunk)
                    continue
                sel.unregister(key.fileobj)
                answers[key.fileobj.fileno()] = bytes(key.data)
                open_count -= 1
        secs = time.monotonic() - t0
        th.join(10)
        kinds = {}
        for data in answers.values():
            head = data.split(b"\r\n")[0].decode("latin-1") if data else "(closed without an answer)"
            kinds[head] = kinds.get(head, 0) + 1
        good = sum(1 for d in answers.values() if d.startswith(b"HTTP/1.1 503 Service Unavailable\r\n")
                   and b"\r\nRetry-After: 30\r\n" in d and d.endswith(b"\r\n\r\ntoo many connections from this address\n"))
        note(f"{LIMIT} served; {good}/{TOTAL - LIMIT} refused with 503 + Retry-After in {secs:.1f} s "
             f"({kinds}); other address served in {served_meanwhile.get('ms', math.inf):.0f} ms")
        assert open_count == 0, f"{open_count} connections got no answer within 60 s"
        assert good == TOTAL - LIMIT, kinds
        assert "ms" in served_meanwhile, "a charge point from 127.0.0.2 was not served during the flood"
        # The allowed ones are still served, every one of them.
        for i, ws in enumerate(allowed):
            reply = ws.call(f"hb-{i}", "Heartbeat", {})
            assert reply[0] == 3, (i, reply)
        with socket.create_connection(("127.0.0.1", gw.port), source_address=("127.0.0.3", 0), timeout=5) as s:
            s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            raw = b""
            while chunk := s.recv(65536):
                raw += chunk
        health = json.loads(raw.split(b"\r\n\r\n", 1)[1])
        # The 100 WebSockets and this request: no slot of the 9,900 refused is left behind.
        assert health["connection_limit"]["open"] == LIMIT + 1, health["connection_limit"]
        # Still full for 127.0.0.1; one slot freed, one more gets in.
        assert RawWs(gw.port).open("/ocpp/ONE-MORE")[0] == 503
        last = allowed.pop()
        last.close_and_wait()
        last.shutdown()
        time.sleep(0.2)
        ws, reply = boot_raw(gw.port, "ONE-MORE")
        assert reply[0] == 3
        allowed.append(ws)
        # Nothing the allowed ones got acknowledged is missing from the event log.
        time.sleep(0.3)
        for i in range(LIMIT):
            stored = {e.get("message_id") for e in gw.events(f"ALLOWED-{i:03d}")}
            assert {f"ALLOWED-{i:03d}-boot", f"hb-{i}"} <= stored, (i, stored)
        refused_lines = gw.logs().count("event=connection_refused")
        assert refused_lines < 50, f"{refused_lines} connection_refused log lines (rate-limited: < 50)"
        assert gw.proc.poll() is None
    finally:
        for s in flood:
            s.close()
        for ws in allowed:
            ws.shutdown()
        assert gw.stop() == 0
