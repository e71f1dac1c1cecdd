#!/usr/bin/env python3
# tests/integration/robustness/robustness.py: the robustness suite (issue 16). Each case starts
# the real `ocppgw` (env OCPPGW_BIN) on loopback with the options it needs, runs a fleet of
# well-behaved OCPP 1.6 "victims" (harness.Victims), measures a baseline phase, attacks, and then
# checks (a)-(d) of harness.Case.finish(): victims' p99 within max(2x, +5 ms) of the baseline,
# /health within 100 ms, RSS and data-folder growth within the bounds the case documents
# (derived from the limits it configures), every acknowledged CALL in the event log, gateway
# alive. Options that a binary does not know make it refuse to start: that fails only that case.
# Timing checks assume an otherwise quiet machine (2 cores are enough). A case that fails the
# p99 rule and nothing else runs once more on a fresh gateway, and passes only if that run passes
# every check: a stall of the host inside one 3 s window is not the attack's doing, while what
# the attack causes happens again. The line shows both runs.
#
# Usage: robustness.py [CASE_NUMBER...]   one line per case, then "N passed, M failed".
# Env: ROBUSTNESS_KEEP=1 keeps each case's folder (gateway log, data); CASE_TIMEOUT (s, 45);
# ROBUSTNESS_P99_FLOOR_MS (5) the absolute part of the p99 rule;
# ROBUSTNESS_IGNORE_MISSING_OPTIONS=1 drops options the binary lacks (diagnosis of old binaries);
# ROBUSTNESS_TMPDIR where the case folders go: by default /dev/shm (tmpfs) when writable, so
# that the victims' round trips (each waits for its commit) show the gateway rather than the
# host disk's fsync latency under unrelated load; set it to a disk folder to include the disk.
import json
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (BIN, BOOT16, ZERO_KEY, MiB, Case, P99Exceeded, RawWs, basic_auth, boot_raw,  # noqa: E402
                     call_frame, http_exchange, median, upgrade_request)

ATTACK_S = 3.0
MAX_FRAME_BYTES = 1048576          # the gateway's max_frame_bytes (default, passed explicitly)
DEFAULT_BYTES_PER_S = 262144       # max_bytes_per_second, configured where a bound uses it
# Disk (growth of the data folder): a byte read from a charge point is stored at most twice (its
# frame row and its event's JSON); SQLite's page slack and the WAL's high-water mark add up to
# half as much again. Small frames cost a few rows and index entries each (FRAME_COST), and the
# WAL and analytics.db may grow by a constant (DISK_CONST) whatever the attack.
DISK_OVERHEAD = 3
FRAME_COST = 4 * 1024
DISK_CONST = 16 * MiB
RSS_CONST = 64 * MiB               # allocator slack, SQLite caches

CASES = []


def case(fn):
    CASES.append(fn)
    return fn


def read_budget(connections, seconds, rate=DEFAULT_BYTES_PER_S):
    """Most bytes max_bytes_per_second lets `connections` send in `seconds`: a token bucket
    whose burst is max_frame_bytes."""
    return connections * (rate * seconds + MAX_FRAME_BYTES)


def threads(*targets):
    ts = [threading.Thread(target=t, daemon=True) for t in targets]
    for t in ts:
        t.start()
    for t in ts:
        t.join(ATTACK_S + 20)


# ---- 1 ----

def metervalues_frame(msgid, version, entries=13800):
    if version == "ocpp1.6":
        mv = {"timestamp": "2025-01-01T00:00:00Z", "sampledValue": [{"value": "1"}]}
        payload = {"connectorId": 1, "meterValue": [mv] * entries}
    else:
        mv = {"timestamp": "2025-01-01T00:00:00Z", "sampledValue": [{"value": 1}]}
        payload = {"evseId": 1, "meterValue": [mv] * entries}
    return call_frame(msgid, "MeterValues", payload, key=ZERO_KEY)


@case
def metervalues_13800_entries(work):
    """MeterValues with 13,800 entries in one frame (max_events_per_frame 1000) from a 1.6 and a
    2.0.1 charge point, each sending the next once the last is answered, for ATTACK_S s (at most
    MV_MAX each): every one gets CALLERROR OccurenceConstraintViolation (1.6 spelling) /
    OccurrenceConstraintViolation (2.0.1), the first within MV_FIRST_S.
    Bounds: disk: a refused frame is stored at most once whole plus 64 KiB in its Invalid event,
    with half as much again of slack: 1.5 x sent x (size + 64 KiB) + DISK_CONST. RSS: parsing
    builds a DOM of ~20x the text per connection: 2 x 32 x frame size + RSS_CONST."""
    MV_MAX, MV_FIRST_S = 4, 1.0
    codes = {"ocpp1.6": "OccurenceConstraintViolation", "ocpp2.0.1": "OccurrenceConstraintViolation"}
    size = len(metervalues_frame("x", "ocpp1.6"))
    with Case(work, ["--max-events-per-frame", 1000, "--max-frame-bytes", MAX_FRAME_BYTES]) as c:
        conns = {}
        for version in codes:
            cp = "MV16" if version == "ocpp1.6" else "MV201"
            ws, boot = boot_raw(c.gw.port, cp, version)
            c.expect(boot[0] == 3, f"{cp} boot: {boot}")
            c.ack(cp, f"{cp}-boot")
            frames = [metervalues_frame(f"mv-{i}", version) for i in range(MV_MAX)]  # built before the attack
            conns[version] = (cp, ws, [], frames)
        c.baseline()

        def attacker(version):
            cp, ws, out, frames = conns[version]
            deadline = time.monotonic() + ATTACK_S
            while time.monotonic() < deadline and len(out) < MV_MAX:
                msgid = f"mv-{len(out)}"
                t0 = time.monotonic()
                ws.sock.sendall(frames[len(out)])
                try:
                    reply = ws.wait_reply(msgid, timeout=10)
                except (TimeoutError, ConnectionError, OSError) as e:
                    out.append((math.inf, f"{type(e).__name__}: {e}"))
                    return
                out.append((time.monotonic() - t0, reply))

        with c.attack():
            threads(lambda: attacker("ocpp1.6"), lambda: attacker("ocpp2.0.1"))
        sent = 0
        for version, (cp, ws, out, _) in conns.items():
            sent += len(out)
            c.expect(out, f"{version}: nothing sent")
            for secs, reply in out:
                ok = isinstance(reply, list) and reply[0] == 4 and reply[2] == codes[version]
                c.expect(ok, f"{version}: expected CALLERROR {codes[version]}, got {str(reply)[:160]}")
            if out:
                c.expect(out[0][0] <= MV_FIRST_S, f"{version}: first answer after {out[0][0]:.2f} s > {MV_FIRST_S} s")
                times = [s * 1000 for s, _ in out]
                c.note(f"{version} {len(out)} x {size / 1e6:.2f} MB answered {codes[version]} in first "
                       f"{times[0]:.0f} ms, median {median(times):.0f} ms, max {max(times):.0f} ms")
            ws.shutdown()
        c.disk_allow = 3 * sent * (size + 64 * 1024) // 2 + DISK_CONST
        c.rss_allow = 2 * 32 * size + RSS_CONST
        return c.finish()


# ---- 2 ----

@case
def huge_action_never_read(work):
    """CALLs whose action name is 1 MiB - 1 KiB, written without pause by 2 clients that never
    read (raw sockets), plus one non-reading client (4 KiB receive buffer) sending small CALLs
    with a 200-byte unknown action, whose CALLERRORs must pile up: with max_outbound_bytes
    64 KiB the gateway closes that connection and logs one `outbound_overflow` line for it; no
    connection gets more than one such line. A reading client checks that the CALLERROR echoes
    at most 128 bytes of the huge action. Limits: max_outbound_bytes 65536,
    max_messages_per_second 1000 (so that the small CALLs' replies pile up within a second),
    max_bytes_per_second 262144. Bounds: RSS: per attacking connection one frame being read (4
    copies at most) plus its outbound queue: 4 x (4 x max_frame_bytes + max_outbound_bytes) +
    RSS_CONST. Disk: the byte budget and the message budget: DISK_OVERHEAD x
    read_budget(4 connections, attack) + FRAME_COST x 4 x 1000/s x attack + DISK_CONST."""
    OUT, ECHO_MAX = 65536, 128
    big_action = "Z" * (MiB - 1024)
    MSGS = 1000
    args = ["--max-outbound-bytes", OUT, "--max-messages-per-second", MSGS,
            "--max-bytes-per-second", DEFAULT_BYTES_PER_S, "--max-frame-bytes", MAX_FRAME_BYTES]
    # Frames built before the attack, so that the attacker's own CPU does not show as victim latency.
    echo_frame = call_frame("echo-1", big_action, {}, key=ZERO_KEY)
    huge_frame = call_frame("big-1", big_action, {}, key=ZERO_KEY)  # sent again and again
    small_batch = b"".join(call_frame(f"o{i}", "Y" * 200, {}, key=ZERO_KEY) for i in range(2000))
    with Case(work, args) as c:
        c.baseline()
        with c.attack():
            # The echo, on a client that reads.
            echo = RawWs(c.gw.port)
            echo.open("/ocpp/ECHO-1")
            try:
                echo.sock.sendall(echo_frame)
                reply = echo.wait_reply("echo-1", timeout=5)
                c.expect(reply[0] == 4, f"huge action answered {str(reply)[:100]}")
                echoed = json.dumps(reply).count("Z")
                c.expect(echoed <= ECHO_MAX, f"CALLERROR echoes {echoed} bytes of the action (> {ECHO_MAX})")
                c.note(f"huge-action CALLERROR {len(json.dumps(reply))} bytes echoing {echoed} of the action")
            except (TimeoutError, ConnectionError, OSError) as e:
                c.expect(False, f"huge-action CALL unanswered: {type(e).__name__} {e}")
            echo.shutdown()

            results = {}

            def attacker(cp, frames, max_bytes, rcvbuf=None):
                ws = RawWs(c.gw.port, rcvbuf=rcvbuf)
                ws.open(f"/ocpp/{cp}")
                results[cp] = ws.pump(iter(lambda: frames, None), c.a0 + ATTACK_S, max_bytes=max_bytes)
                ws.shutdown()

            threads(lambda: attacker("HUGE-1", huge_frame, 48 * MiB), lambda: attacker("HUGE-2", huge_frame, 48 * MiB),
                    lambda: attacker("OVF-1", small_batch, 32 * MiB, rcvbuf=4096))
        logs = c.gw.logs().splitlines()
        for cp in ("HUGE-1", "HUGE-2", "OVF-1", "ECHO-1"):
            n = sum(1 for line in logs if "outbound_overflow" in line and f"cp={cp} " in line + " ")
            c.expect(n <= 1, f"{cp}: {n} outbound_overflow lines")
            if cp == "OVF-1":
                c.expect(n == 1, f"{cp}: {n} outbound_overflow lines, expected 1 (closed for overflow)")
        c.note("sent " + ", ".join(f"{cp} {w / MiB:.1f} MiB{' (' + err + ')' if err else ''}"
                                   for cp, (w, _, err) in sorted(results.items())))
        c.rss_allow = 4 * (4 * MAX_FRAME_BYTES + OUT) + RSS_CONST
        c.disk_allow = (DISK_OVERHEAD * read_budget(4, ATTACK_S + c.settle)
                        + FRAME_COST * 4 * MSGS * (ATTACK_S + c.settle) + DISK_CONST)
        return c.finish()


# ---- 3 ----

@case
def file_descriptors(work):
    """The gateway started with RLIMIT_NOFILE 128 (soft and hard); 300 TCP connections opened
    and held for ATTACK_S s. Expected: a start-up log line with the soft/hard open-file limits;
    max_connections (default 0: derived from the open-file limit less a reserve) refuses extra
    connections cleanly (HTTP 503 or close) before descriptors run out, so at least
    300 - 128 attacker sockets are refused during the hold (the rest cannot even have a
    descriptor); fewer than 50 accept_failed lines; the gateway's CPU during the hold at most
    1 s above what the baseline used in as long; after the attacker closes its sockets a
    charge point connects and boots within 5 s. /health may answer 503 while connections are at
    their maximum (an answer all the same). Bounds: RSS: 300 x 64 KiB + RSS_CONST; disk:
    DISK_CONST."""
    NOFILE, CONNS = 128, 300
    with Case(work, [], nofile=NOFILE, health_statuses=(200, 503)) as c:
        start_lines = c.gw.logs().splitlines()
        limit_lines = [line for line in start_lines
                       if any(w in line.lower() for w in ("nofile", "open_file", "rlimit", "file_limit"))
                       and str(NOFILE) in line]
        c.expect(limit_lines, "no start-up log line with the open-file limits (soft/hard 128)")
        c.baseline()
        socks, outcome = [], {}
        with c.attack():
            for _ in range(CONNS):
                s = socket.socket()
                s.setblocking(False)
                s.connect_ex(("127.0.0.1", c.gw.port))
                socks.append(s)
            while time.monotonic() < c.a0 + ATTACK_S:
                time.sleep(0.1)
                for s in socks:
                    if s.fileno() in outcome:
                        continue
                    try:
                        data = s.recv(4096)
                        outcome[s.fileno()] = "503" if b" 503 " in data[:20] else ("closed" if not data else "data")
                    except BlockingIOError:
                        pass
                    except OSError:
                        outcome[s.fileno()] = "reset"
        cpu, base_cpu = c.attack_cpu()
        for s in socks:
            s.close()
        refused = sum(1 for v in outcome.values() if v in ("503", "closed", "reset"))
        c.expect(refused >= CONNS - NOFILE, f"only {refused} of {CONNS} connections refused during the hold "
                                            f"(expected >= {CONNS - NOFILE})")
        c.expect(cpu <= base_cpu + 1.0, f"gateway used {cpu:.2f} CPU-s during the {ATTACK_S:.0f} s hold "
                                        f"(baseline in as long {base_cpu:.2f})")
        # A legitimate charge point after the attack.
        t0, booted, last = time.monotonic(), False, ""
        while not booted and time.monotonic() < t0 + 5:
            try:
                ws, reply = boot_raw(c.gw.port, "LEGIT-3", timeout=2)
                booted = reply[0] == 3
                if booted:
                    c.ack("LEGIT-3", "LEGIT-3-boot")
                ws.shutdown()
            except (OSError, ConnectionError, TimeoutError, AssertionError) as e:
                last = f"{type(e).__name__}: {e}"
                time.sleep(0.2)
        c.expect(booted, f"a charge point could not boot within 5 s after the attack ({last})")
        accept_failed = c.gw.logs().count("accept_failed")
        c.expect(accept_failed < 50, f"{accept_failed} accept_failed log lines (rate limit: < 50)")
        kinds = {k: list(outcome.values()).count(k) for k in sorted(set(outcome.values()))}
        c.note(f"limits line: {limit_lines[0][limit_lines[0].find('event='):][:100] if limit_lines else 'none'}; "
               f"refused {kinds}; CPU {cpu:.2f} s (baseline {base_cpu:.2f}); accept_failed lines {accept_failed}; "
               f"boot after {time.monotonic() - t0:.2f} s")
        c.rss_allow = CONNS * 64 * 1024 + RSS_CONST
        c.disk_allow = DISK_CONST
        return c.finish()


# ---- 4 ----

def datatransfer_frames(prefix, count, size=MiB - 1024):
    """`count` ~1 MiB DataTransfer CALLs with ids prefix-0, prefix-1, ... (built before the
    attack, so that the attacker's own CPU does not show as victim latency)."""
    data = "d" * (size - 100)
    return [call_frame(f"{prefix}-{i}", "DataTransfer", {"vendorId": "robust", "data": data}, key=ZERO_KEY)
            for i in range(count)]


@case
def byte_flood(work):
    """One connection writes ~1 MiB DataTransfer CALLs as fast as it can, another 200 KiB
    Heartbeat and BootNotification CALLs (both read their replies). With max_bytes_per_second
    262144 and max_call_bytes 65536 (DataTransfer is a large action, allowed up to
    max_frame_bytes): every 200 KiB Heartbeat/BootNotification is answered CALLERROR
    GenericError. Bounds: disk: DISK_OVERHEAD x read_budget(2 connections, attack) + DISK_CONST;
    RSS: 2 x 4 x max_frame_bytes + RSS_CONST."""
    args = ["--max-bytes-per-second", DEFAULT_BYTES_PER_S, "--max-call-bytes", 65536,
            "--max-frame-bytes", MAX_FRAME_BYTES]
    with Case(work, args) as c:
        dt, boot = boot_raw(c.gw.port, "FLOOD-DT")
        c.ack("FLOOD-DT", "FLOOD-DT-boot")
        hb, boot = boot_raw(c.gw.port, "FLOOD-HB")
        c.ack("FLOOD-HB", "FLOOD-HB-boot")
        heavy_frames = datatransfer_frames("dt", 48)
        pad = "p" * (200 * 1024)
        oversize_frames = [call_frame(f"{a}-{i}", action, dict(payload, pad=pad), key=ZERO_KEY)
                           for i in range(100) for a, action, payload in (("hb", "Heartbeat", {}),
                                                                          ("bn", "BootNotification", BOOT16))]
        c.baseline()
        sent = {}

        def heavy():
            sent["dt"] = dt.pump(heavy_frames, c.a0 + ATTACK_S)

        def oversize():
            sent["hb"] = hb.pump(oversize_frames, c.a0 + ATTACK_S)

        with c.attack():
            dt.start_reader()
            hb.start_reader()
            threads(heavy, oversize)
        time.sleep(0.5)
        c.ack_replies("FLOOD-DT", dt)
        answers = [f for m, (_, f) in hb.replies.items() if m != "FLOOD-HB-boot"]
        c.expect(any(f[1].startswith("hb-") for f in answers), "no 200 KiB Heartbeat was answered")
        wrong = [f for f in answers if not (f[0] == 4 and f[2] == "GenericError")]
        c.expect(not wrong, f"{len(wrong)} of {len(answers)} oversize CALLs not answered GenericError "
                            f"(e.g. {str(wrong[0])[:160] if wrong else ''})")
        dt_answers = sum(1 for m in dt.replies if m.startswith("dt-"))
        c.note(f"DataTransfer: sent {sent['dt'][0] / MiB:.1f} MiB, {dt_answers} answered; 200 KiB CALLs: sent "
               f"{sent['hb'][0] / MiB:.1f} MiB, {len(answers)} answered ({len(answers) - len(wrong)} GenericError)")
        dt.shutdown()
        hb.shutdown()
        c.disk_allow = DISK_OVERHEAD * read_budget(2, ATTACK_S + c.settle) + DISK_CONST
        c.rss_allow = 2 * 4 * MAX_FRAME_BYTES + RSS_CONST
        return c.finish()


# ---- 5 ----

@case
def free_disk_floor(work):
    """min_free_disk_bytes at 1.5x the data folder's free space (below the floor, above half of
    it): /health has a "disk" section and is not healthy; a DataTransfer flood (as in case 4) is
    paused: no answer in the last 2 s of the attack (what it got answered is stored), while 50
    light victims (four Heartbeats a second each: ~250 B/s, far below the 2 KiB/s the pause
    threshold never goes under; four a second rather than one so that the p99 rests on ~500
    baseline and ~1,000 attack samples instead of a handful) keep being answered. The case ends within ~8 s of
    the start: below the floor, the gateway halves its pause threshold every second in which free
    space still fell, so on a file system that keeps filling it would pause light charge points
    too after ~10 s. Bounds: disk: the writer is
    paused after its first frames: DISK_OVERHEAD x 2 x max_frame_bytes + DISK_CONST; RSS: 2 x
    max_frame_bytes + RSS_CONST."""
    st = os.statvfs(work)
    floor = int(1.5 * st.f_bavail * st.f_frsize)
    with Case(work, ["--min-free-disk-bytes", floor], victims=50, interval=0.25, kind="heartbeat",
              health_statuses=(200, 503)) as c:
        heavy, _ = boot_raw(c.gw.port, "HEAVY-5")
        c.ack("HEAVY-5", "HEAVY-5-boot")
        frames = datatransfer_frames("dt", 24)
        c.baseline(2.5, warmup=0)
        sent = {}
        with c.attack():
            heavy.start_reader()
            threads(lambda: sent.setdefault("w", heavy.pump(frames, c.a0 + ATTACK_S)))
        status, body, _ = c.gw.health()
        disk = (body or {}).get("disk")
        c.expect(disk is not None, f"/health has no 'disk' section: {str(body)[:200]}")
        c.expect(body is not None and body.get("status") != "ok", f"/health healthy below the disk floor: {disk}")
        c.ack_replies("HEAVY-5", heavy)
        times = sorted(t for m, (t, f) in heavy.replies.items() if m.startswith("dt-"))
        late = [t for t in times if t >= c.a1 - 2]
        c.expect(not late, f"heavy writer still answered in the last 2 s of the attack ({len(late)} of {len(times)})")
        quiet = [cp for cp in c.victims.ids]
        res = c.victims.stop()
        starved = [cp for cp in quiet if c.victims.answered(cp, c.a1 - 2, c.a1) == 0]
        c.expect(not starved, f"victims without an answer in the last 2 s: {starved[:5]}")
        c.note(f"health {status} disk {json.dumps(disk)}; heavy writer sent {sent['w'][0] / MiB:.1f} MiB, "
               f"{len(times)} answered; victim CALLs {len(res['samples'])}")
        heavy.shutdown()
        c.disk_allow = DISK_OVERHEAD * 2 * MAX_FRAME_BYTES + DISK_CONST
        c.rss_allow = 2 * MAX_FRAME_BYTES + RSS_CONST
        return c.finish()


# ---- 6 ----

PASSWORD = "robustness-pass-0001"


def set_passwords(gw, ids):
    for cp in ids:
        r = subprocess.run([BIN, "--data-dir", gw.data_dir, "charge-points", "set-password", cp,
                            "--password-env", "CP_PASSWORD"], env={**os.environ, "CP_PASSWORD": PASSWORD},
                           capture_output=True, text=True, timeout=20)
        assert r.returncode == 0, f"set-password {cp}: {r.stderr}"


@case
def basic_auth_timing_and_storm(work):
    """Security profile 1 (basic_auth required). (a) Id oracle: 30 unknown ids and 30 known ids
    with a wrong password, interleaved, sequential, each id tried once and each try from its own
    loopback address (so that failure backoff per id or per address, which answers at once,
    does not enter the measurement): the medians of their 401 times are within a factor of 2.
    (b) 800 concurrent wrong-password attempts for one known id from one address (127.0.0.2),
    then the first login of another id from another address (127.0.0.3; its password right,
    never seen, so not cached): its upgrade completes within 1 s. Bounds: RSS: 800 pending
    handshakes x 64 KiB + RSS_CONST; disk: DISK_CONST."""
    victims = [f"VIC-{i:02d}" for i in range(20)]
    known = [f"KNOWN-{i:02d}" for i in range(30)]
    with Case(work, ["--basic-auth", "required"], password=PASSWORD,
              before_start=lambda gw: set_passwords(gw, victims + known + ["STORM-6", "FIRST-6"])) as c:
        c.baseline()
        port = c.gw.port
        with c.attack():
            unknown, wrong = [], []
            for i in range(30):
                for cp, out, k in ((f"NOBODY-{i:02d}", unknown, 0), (known[i], wrong, 1)):
                    req = upgrade_request(port, f"/ocpp/{cp}", headers=[basic_auth(cp, "wrong-password-0001")])
                    status, _, _, ms = http_exchange(port, req, source=f"127.0.{10 + k}.{1 + i}")
                    c.expect(status == 401, f"{cp}: {status} for a wrong password")
                    out.append(ms)
            mu, mw = median(unknown), median(wrong)
            c.expect(max(mu, mw) <= 2 * min(mu, mw), f"401 medians differ: unknown id {mu:.2f} ms, "
                                                     f"wrong password {mw:.2f} ms (> 2x)")
            storm = []
            req = upgrade_request(port, "/ocpp/STORM-6", headers=[basic_auth("STORM-6", "wrong-password-0002")])
            for _ in range(800):
                s = socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.2", 0))
                s.sendall(req)
                storm.append(s)
            legit = RawWs(port, source="127.0.0.3")
            t0 = time.monotonic()
            try:
                status, _, body = legit.open("/ocpp/FIRST-6", headers=[basic_auth("FIRST-6", PASSWORD)], timeout=3)
                login = time.monotonic() - t0
                c.expect(status == 101 and login <= 1.0, f"first login answered {status} after {login:.2f} s (> 1 s)")
                if status == 101:
                    reply = legit.call("FIRST-6-boot", "BootNotification", BOOT16)
                    if reply[0] == 3:
                        c.ack("FIRST-6", "FIRST-6-boot")
            except (OSError, TimeoutError, ConnectionError) as e:
                login = time.monotonic() - t0
                c.expect(False, f"first login not answered within {login:.1f} s ({type(e).__name__})")
            legit.shutdown()
            answers = {}
            for s in storm:
                s.setblocking(False)
                try:
                    head = s.recv(16)
                    key = head[9:12].decode() if head.startswith(b"HTTP/1.1 ") else "closed"
                except OSError:
                    key = "none yet"
                answers[key] = answers.get(key, 0) + 1
                s.close()
        c.note(f"401 medians: unknown id {mu:.2f} ms, wrong password {mw:.2f} ms; first login during the "
               f"800-attempt storm {login * 1000:.0f} ms (storm answers by then: {answers})")
        c.rss_allow = 800 * 64 * 1024 + RSS_CONST
        c.disk_allow = DISK_CONST
        return c.finish()


# ---- 7 ----

@case
def control_characters(work):
    """CR, LF and ESC in a CALL's action and message id, in the message id of a CALLRESULT, in a
    percent-encoded charge point id, in a Sec-WebSocket-Protocol offer, and CR/LF in a close
    reason; with log_format text and json (log_level debug). Neither log holds a raw CR or ESC
    or a line starting with the injected "FORGED"; every text line starts with a timestamp and
    every json line is a JSON object. Bounds: RSS: RSS_CONST; disk: DISK_CONST."""
    inject = "\r\nFORGED level=error event=forged\x1b[31m"
    failures, details, only_p99 = [], [], True
    for fmt in ("text", "json"):
        log_name = f"gateway-{fmt}.log"
        c = Case(os.path.join(work, fmt), ["--log-format", fmt, "--log-level", "debug"], log_name=log_name)
        try:
            with c:
                c.baseline()
                with c.attack():
                    ws, _ = boot_raw(c.gw.port, "CTRL-7")
                    c.ack("CTRL-7", "CTRL-7-boot")
                    reply = ws.call("m\r\nFORGED\x1b[31m", "Heartbeat" + inject, {})
                    c.expect(reply[0] == 4, f"unknown action answered {reply}")
                    msgid = "h\r\nFORGED level=error\x1b[0m"
                    reply = ws.call(msgid, "Heartbeat", {})
                    if reply[0] == 3:
                        c.ack("CTRL-7", msgid)
                    ws.send(json.dumps([3, "r\r\nFORGED level=error\x1b[1m", {}]))
                    ws.close_and_wait(1000, ("bye" + inject).encode()[:120])
                    ws.shutdown()
                    http_exchange(c.gw.port, upgrade_request(c.gw.port, "/ocpp/X%0D%0AFORGED%20level=error%1B[31m"))
                    http_exchange(c.gw.port, upgrade_request(c.gw.port, "/ocpp/CTRL-7B",
                                                             protocols=("ocpp1.6\x1b[31m\tFORGED",)))
                    time.sleep(0.5)
                c.rss_allow = RSS_CONST
                c.disk_allow = DISK_CONST
                details.append(f"{fmt}: " + c.finish())
        except AssertionError as e:
            failures.append(f"{fmt}: {e}")
            only_p99 = only_p99 and isinstance(e, P99Exceeded)
        raw = open(os.path.join(work, fmt, log_name), "rb").read()
        lines = raw.split(b"\n")
        problems = []
        if b"\r" in raw:
            problems.append("raw CR")
        if b"\x1b" in raw:
            problems.append("raw ESC")
        if any(line.startswith(b"FORGED") for line in lines):
            problems.append("a line starting with FORGED")
        for line in filter(None, lines):
            if fmt == "text" and not line[:4].isdigit():
                problems.append(f"line not starting with a timestamp: {line[:80]!r}")
                break
            if fmt == "json":
                try:
                    assert isinstance(json.loads(line), dict)
                except (ValueError, AssertionError):
                    problems.append(f"line not a JSON object: {line[:80]!r}")
                    break
        if problems:
            failures.append(f"{fmt} log: " + ", ".join(problems))
            only_p99 = False
        details.append(f"{fmt} log: {raw.count(b'FORGED')} escaped injections, {len(lines) - 1} lines")
    if failures:
        raise (P99Exceeded if only_p99 else AssertionError)("; ".join(failures) + " || " + "; ".join(details))
    return "; ".join(details)


# ---- 8-11: handshake and frame parsing edge cases (light attacks; the same checks) ----

def light_case(work, attack, args=()):
    with Case(work, list(args)) as c:
        c.baseline()
        with c.attack():
            attack(c)
        c.rss_allow = RSS_CONST
        c.disk_allow = DISK_CONST
        return c.finish()


@case
def frame_with_upgrade_request(work):
    """A BootNotification frame in the same TCP write as the upgrade request is answered."""
    def attack(c):
        ws = RawWs(c.gw.port)
        status, _, _ = ws.open("/ocpp/EARLY-8", extra=call_frame("early-1", "BootNotification", BOOT16))
        c.expect(status == 101, f"upgrade answered {status}")
        try:
            reply = ws.wait_reply("early-1", timeout=3)
            c.expect(reply[0] == 3, f"early frame answered {reply}")
            c.ack("EARLY-8", "early-1")
            c.note(f"early frame answered {json.dumps(reply)[:60]}")
        except (TimeoutError, ConnectionError, OSError) as e:
            c.expect(False, f"frame sent with the upgrade request not answered within 3 s ({type(e).__name__})")
        ws.shutdown()
    return light_case(work, attack)


@case
def subprotocol_header_split(work):
    """Sec-WebSocket-Protocol over two header lines ("foo", then "ocpp1.6") is accepted with
    ocpp1.6 (the lines form one comma-separated list)."""
    def attack(c):
        ws = RawWs(c.gw.port)
        status, hdrs, body = ws.open("/ocpp/SPLIT-9", protocols=(),
                                     headers=[("Sec-WebSocket-Protocol", "foo"), ("Sec-WebSocket-Protocol", "ocpp1.6")])
        chosen = hdrs.get("sec-websocket-protocol")
        c.expect(status == 101 and chosen == ["ocpp1.6"],
                 f"split Sec-WebSocket-Protocol answered {status} {chosen} {body[:80]!r}")
        if status == 101:
            reply = ws.call("SPLIT-9-boot", "BootNotification", BOOT16)
            c.expect(reply[0] == 3, f"boot answered {reply}")
            c.ack("SPLIT-9", "SPLIT-9-boot")
        c.note(f"answered {status} {chosen}")
        ws.shutdown()
    return light_case(work, attack)


@case
def number_out_of_range(work):
    """[2,"id-1e400","Heartbeat",{"x":1e400}] gets a CALLERROR carrying message id "id-1e400"."""
    def attack(c):
        ws, _ = boot_raw(c.gw.port, "BIGNUM-10")
        c.ack("BIGNUM-10", "BIGNUM-10-boot")
        ws.send('[2,"id-1e400","Heartbeat",{"x":1e400}]')
        try:
            reply = ws.recv_json(timeout=3)
            c.expect(reply[0] == 4 and reply[1] == "id-1e400", f"answered {json.dumps(reply)[:120]}")
            c.note(f"answered {json.dumps(reply)[:100]}")
        except (TimeoutError, ConnectionError, OSError) as e:
            c.expect(False, f"not answered within 3 s ({type(e).__name__})")
        ws.shutdown()
    return light_case(work, attack)


@case
def ids_paths_nul_transfer_encoding(work):
    """Charge point ids "." and ".." (also percent-encoded) and the path /ocpp/a/b/CP-11 are
    refused with 400; a text frame with a NUL after a valid CALL gets a CALLERROR or the
    connection closed, like trailing garbage (never a CALLRESULT); an upgrade request with
    Transfer-Encoding: xchunked gets 400 or 501."""
    def attack(c):
        port = c.gw.port
        seen = []
        for path in ("/ocpp/.", "/ocpp/..", "/ocpp/%2e", "/ocpp/%2E%2E", "/ocpp/a/b/CP-11"):
            status, _, body, _ = http_exchange(port, upgrade_request(port, path))
            c.expect(status == 400, f"{path} answered {status}")
            seen.append(f"{path} {status}")
        ws, _ = boot_raw(port, "NUL-11")
        c.ack("NUL-11", "NUL-11-boot")
        for msgid, text in (("junk-1", '[2,"junk-1","Heartbeat",{}]x'), ("nul-1", '[2,"nul-1","Heartbeat",{}]\x00')):
            try:
                ws.send(text)
                reply = ws.recv_json(timeout=3)
                outcome = f"[{reply[0]},{reply[1]!r},{reply[2] if reply[0] == 4 else '...'}]"
                c.expect(reply[0] == 4, f"{msgid} (trailing {text[-1]!r}) answered {json.dumps(reply)[:100]}")
                if reply[0] == 3:
                    c.ack("NUL-11", reply[1])
            except ConnectionError as e:
                outcome = f"closed ({e})"
            except (TimeoutError, OSError) as e:
                outcome = f"nothing ({type(e).__name__})"
                c.expect(False, f"{msgid}: no answer and no close within 3 s")
            seen.append(f"{msgid}: {outcome}")
        ws.shutdown()
        req = upgrade_request(port, "/ocpp/TE-11", headers=[("Transfer-Encoding", "xchunked")])
        status, _, _, _ = http_exchange(port, req)
        c.expect(status in (400, 501), f"Transfer-Encoding: xchunked answered {status}")
        seen.append(f"xchunked {status}")
        c.note("; ".join(seen))
    return light_case(work, attack)


# ---- runner ----

def run_case(fn, work, timeout):
    """(detail, passed, worth a repeat) of one run of a case, bounded by `timeout` seconds."""
    signal.alarm(timeout)
    try:
        return fn(work), True, False
    except P99Exceeded as e:
        return str(e), False, True
    except AssertionError as e:
        return str(e), False, False
    except Exception as e:  # noqa: BLE001 - a harness error fails the case, not the suite
        where = traceback.extract_tb(e.__traceback__)[-1]
        return f"error {type(e).__name__}: {e} (at {os.path.basename(where.filename)}:{where.lineno})", False, False
    finally:
        signal.alarm(0)


def main(argv):
    wanted = {int(a) for a in argv}
    timeout = int(os.environ.get("CASE_TIMEOUT", "45"))
    keep = bool(os.environ.get("ROBUSTNESS_KEEP"))
    tmp = os.environ.get("ROBUSTNESS_TMPDIR") or ("/dev/shm" if os.access("/dev/shm", os.W_OK) else None)
    passed = failed = 0
    t_all = time.monotonic()

    def on_alarm(*_):
        raise TimeoutError(f"case took more than {timeout} s")
    signal.signal(signal.SIGALRM, on_alarm)
    print(f"robustness: {BIN}, case folders in {tmp or tempfile.gettempdir()}", flush=True)
    for n, fn in enumerate(CASES, 1):
        if wanted and n not in wanted:
            continue
        t0 = time.monotonic()
        first = None
        for attempt in (1, 2):
            work = tempfile.mkdtemp(prefix=f"ocppgw-robust-{n:02d}-{attempt}-", dir=tmp)
            detail, ok, repeat = run_case(fn, work, timeout)
            if not keep:
                shutil.rmtree(work, ignore_errors=True)
            if not repeat or attempt == 2:
                break
            # Only the p99 rule failed: repeat the case once on a fresh gateway. A degradation
            # the attack causes fails the repeat too; both runs are printed either way.
            first = detail
        passed, failed = passed + ok, failed + (not ok)
        detail = " ".join(detail.split())
        if first:
            detail += " (repeated: the first run failed only the p99 rule: " + " ".join(first.split()) + ")"
        print(f"{'PASS' if ok else 'FAIL'} {n:2d} {fn.__name__}: {detail} [{time.monotonic() - t0:.1f} s]"
              + (f" (kept {work})" if keep else ""), flush=True)
    print(f"robustness: {time.monotonic() - t_all:.0f} s")
    print(f"{passed} passed, {failed} failed", flush=True)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
