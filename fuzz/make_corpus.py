#!/usr/bin/env python3
"""fuzz/make_corpus.py GATEWAY_DB: writes the seed corpora of the fuzz targets (fuzz/corpus/).

The OCPP seeds are real traffic: the frames a gateway stored in its event log (GATEWAY_DB, the
`frames` table) while `ocppsim --all-faults` drove a mixed 1.6/2.0.1 fleet against it, so they
include the simulator's corrupt, schema-invalid and duplicate frames. At most a few frames per
action and kind are kept, enough for coverage without slowing every run. The HTTP seeds are
the requests a charge point and an operator send (upgrades with each profile's headers, REST
calls with queries and bodies). Regenerate after the protocol tables grow:
  build/gateway/ocppgw --listen 127.0.0.1:18991 --data-dir /tmp/c &
  build/sim/ocppsim -n 12 --fraction-201 0.5 --url ws://127.0.0.1:18991/ocpp --all-faults \
      --fault-scale 3 --heartbeat 2 --meter-interval 1 --sessions-per-hour 600 \
      --session-duration 8 -d 20 --seed 7
  python3 fuzz/make_corpus.py /tmp/c/ocppgw.db
"""
import base64
import collections
import hashlib
import json
import pathlib
import sqlite3
import sys

HERE = pathlib.Path(__file__).resolve().parent
PER_KIND = 4


def write(target, data):
    d = HERE / "corpus" / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()).write_bytes(data)


def ocpp_seeds(db):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    versions = dict(con.execute("SELECT id, ocpp_version FROM charge_points"))
    kept = collections.Counter()
    for cp, text in con.execute("SELECT charge_point_id, text FROM frames ORDER BY seq"):
        v201 = "2.0.1" in (versions.get(cp) or "")
        try:
            frame = json.loads(text)
            kind = (frame[0], frame[2] if frame[0] == 2 else "")
            ok = True
        except (ValueError, IndexError, KeyError, TypeError):
            kind, ok = ("unreadable",), False
        if kept[(v201, kind)] >= PER_KIND:
            continue
        kept[(v201, kind)] += 1
        raw = text.encode()
        write("frame_fuzz", raw)
        target = "dispatch201_fuzz" if v201 else "dispatch16_fuzz"
        write(target, b"\x02" + raw)  # the frame as sent, strict
        if ok and frame[0] == 2 and isinstance(frame[3], dict):
            body = json.dumps(frame[3]).encode()
            write(target, b"\x00" + frame[2].encode() + b"\n" + body)  # CALL of that action
            write(target, b"\x01" + frame[2].encode() + b"\n" + body)  # lenient
            suffix = "Request" if v201 else ""
            write("schema_fuzz", (b"201:" if v201 else b"16:") + frame[2].encode() + suffix.encode() + b"\n" + body)


def http_seeds():
    basic = base64.b64encode(b"CP-1:a-password-of-16").decode()
    upgrade = ("GET /ocpp/{id} HTTP/1.1\r\nHost: 127.0.0.1:8180\r\nUpgrade: websocket\r\n"
               "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
               "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: {proto}\r\n{extra}\r\n")
    for cp, proto, extra in [
        ("CP-1", "ocpp1.6", ""),
        ("CP%2D01", "ocpp2.0.1, ocpp1.6", f"Authorization: Basic {basic}\r\n"),
        ("a%2Fb", "ocpp2.0.1", "Authorization: Bearer x\r\n"),
        ("..", "ocpp3", ""),
    ]:
        write("http_fuzz", upgrade.format(id=cp, proto=proto, extra=extra).encode())
    for request in [
        "GET /api/v1/charge-points?limit=10&status=Available HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /api/v1/sessions?since=2026-01-01T00:00:00Z&limit=1000 HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /health HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /ui/index.html HTTP/1.0\r\n\r\n",
        "DELETE /api/v1/charge-points/CP-1 HTTP/1.1\r\nHost: x\r\n\r\n",
    ]:
        write("http_fuzz", request.encode())
    body = json.dumps({"name": "alice", "password": "a-password-of-16", "role": "admin"})
    write("http_fuzz", (f"POST /api/v1/operators HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        f"Content-Length: {len(body)}\r\n\r\n{body}").encode())
    chunked = "POST /api/v1/charge-points/CP-1/commands/Reset HTTP/1.1\r\nHost: x\r\n" \
              "Transfer-Encoding: chunked\r\n\r\n5\r\n{\"a\":\r\n3\r\n\"b\"}\r\n0\r\n\r\n"
    write("http_fuzz", chunked.encode())


if __name__ == "__main__":
    ocpp_seeds(sys.argv[1])
    http_seeds()
    for d in sorted((HERE / "corpus").iterdir()):
        print(f"{d.name}: {len(list(d.iterdir()))} seeds")
