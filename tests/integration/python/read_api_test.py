# tests/integration/python/read_api_test.py: the read API against the real binary, fed by PyPI
# `ocpp` 1.6 charge points that boot, heartbeat, report connector status and charge (completed
# and open sessions): the charge point view joins live connections with BootNotification data
# and analytics; sessions filter by charge point, status, day and open, and page with every
# session exactly once; status history, daily stats, data quality, quarantine, duplicates and
# lag answer; malformed filters and cursors are 400, unknown ids 404, anonymous callers 401;
# quarantined readings are discarded, repaired and replayed by an operator (audited).
import asyncio
import json
import time
from datetime import datetime, timezone

import websockets
from ocpp.v16 import ChargePoint, call

from api_client import ADMIN_PASSWORD, accounts, request, walk
from gateway_process import GatewayProcess


def now():
    return datetime.now(timezone.utc).isoformat()


async def charge(gw, cp_id, completed, stay_connected=None, bad_readings=0):
    """Boot, heartbeat, status; `completed` finished sessions on connector 1 and one open session
    on connector 2. With `stay_connected` (an asyncio.Event) the connection stays open until it
    is set."""
    async with websockets.connect(f"{gw.url}/{cp_id}", subprotocols=["ocpp1.6"]) as ws:
        cp = ChargePoint(cp_id, ws)
        listener = asyncio.create_task(cp.start())
        try:
            await cp.call(call.BootNotification(charge_point_model="Model-R",
                                                charge_point_vendor="Vendor-R",
                                                firmware_version="fw-1.2"))
            await cp.call(call.Heartbeat())
            for connector in (1, 2):
                await cp.call(call.StatusNotification(connector_id=connector, error_code="NoError",
                                                      status="Available", timestamp=now()))
            for i in range(completed):
                start = await cp.call(call.StartTransaction(connector_id=1, id_tag=f"{cp_id}-T{i}",
                                                            meter_start=1000 * i, timestamp=now()))
                await cp.call(call.StopTransaction(meter_stop=1000 * i + 700, timestamp=now(),
                                                   transaction_id=start.transaction_id))
            await cp.call(call.StatusNotification(connector_id=2, error_code="NoError",
                                                  status="Charging", timestamp=now()))
            open_tx = await cp.call(call.StartTransaction(connector_id=2, id_tag=f"{cp_id}-OPEN",
                                                          meter_start=50, timestamp=now()))
            for i in range(bad_readings):  # negative energy: quarantined by analytics
                await cp.call(call.MeterValues(
                    connector_id=2, transaction_id=open_tx.transaction_id,
                    meter_value=[{"timestamp": now(), "sampled_value": [
                        {"value": str(-100 - i), "measurand": "Energy.Active.Import.Register",
                         "unit": "Wh"}]}]))
            if stay_connected:
                await stay_connected.wait()
        finally:
            listener.cancel()


def poll(what, check, timeout=20):
    deadline = time.time() + timeout
    while True:
        value = what()
        if check(value):
            return value
        assert time.time() < deadline, f"analytics did not catch up: {value}"
        time.sleep(0.2)


def reads(gw, t):
    viewer = t["viewer"]
    get = lambda path: request(gw, "GET", path, token=viewer)  # noqa: E731

    # Analytics trails the acks by its linger: poll until every session is there.
    poll(lambda: get("/api/v1/sessions?limit=500")[1]["items"], lambda items: len(items) == 6)
    sessions = walk(gw, "/api/v1/sessions", viewer, 4, "session_id")
    assert len(sessions) == 6
    r1 = walk(gw, "/api/v1/sessions?charge_point_id=PY-R1", viewer, 2, "session_id")
    assert len(r1) == 4 and {s["charge_point_id"] for s in r1} == {"PY-R1"}
    completed = walk(gw, "/api/v1/sessions?status=COMPLETED", viewer, 500, "session_id")
    assert len(completed) == 4
    assert all(s["energy_is_final"] and abs(s["energy_kwh"] - 0.7) < 1e-9 for s in completed)
    open_ = walk(gw, "/api/v1/sessions?open=true", viewer, 500, "session_id")
    assert len(open_) == 2 and all(not s["energy_is_final"] and s["is_open"] for s in open_)
    today = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    assert len(walk(gw, f"/api/v1/sessions?day={today}", viewer, 5, "session_id")) == 6
    for bad in ["status=DONE", "day=2026-02-30", "day=today", "open=yes", "colour=red",
                "cursor=zz", "limit=0", "limit=501", "limit=x", "charge_point_id=A&charge_point_id=B"]:
        status, body = get(f"/api/v1/sessions?{bad}")
        assert status == 400 and body["error"], (bad, body)
    # A cursor of one list is refused by another.
    status, first = get("/api/v1/sessions?limit=1")
    assert get(f"/api/v1/duplicates?cursor={first['next_cursor']}")[0] == 400

    status, detail = get(f"/api/v1/sessions/{completed[0]['session_id']}")
    assert status == 200 and detail["events"] and detail["session_status"] == "COMPLETED"
    assert get("/api/v1/sessions/" + "0" * 32)[0] == 404

    # Charge points: live (connected or not) joined with boot data and analytics.
    cp = poll(lambda: get("/api/v1/charge-points/PY-R1")[1],
              lambda b: b.get("health") and b["health"]["last_heartbeat_ts"] and
              len(b["connectors"]) == 2)
    assert cp["connected"] is True and cp["connection"]["ocpp_version"] == "ocpp1.6"
    assert (cp["vendor"], cp["model"], cp["firmware_version"]) == ("Vendor-R", "Model-R", "fw-1.2")
    assert {c["connector_id"]: c["status"] for c in cp["connectors"]} == {1: "AVAILABLE",
                                                                          2: "CHARGING"}
    cps = walk(gw, "/api/v1/charge-points", viewer, 1, "id")
    assert {c["id"]: c["connected"] for c in cps} == {"PY-R1": True, "PY-R2": False}
    assert get("/api/v1/charge-points/NOPE")[0] == 404
    # Filters run on the server (the page never loads a whole fleet to filter it).
    ids = lambda query: [c["id"] for c in walk(gw, f"/api/v1/charge-points?{query}", viewer, 1, "id")]  # noqa: E731
    assert ids("online=true") == ["PY-R1"] and ids("online=false") == ["PY-R2"]
    assert ids("version=1.6") == ["PY-R1", "PY-R2"] and ids("version=2.0.1") == []
    assert ids("q=r2") == ["PY-R2"] and ids("q=py-r&online=true") == ["PY-R1"]
    poll(lambda: ids("status=CHARGING"), lambda found: found == ["PY-R1", "PY-R2"])
    assert ids("status=FAULTED") == []
    for bad in ["online=yes", "version=2.0", "status=Charging", "q=", "q=" + "x" * 65]:
        status, body = get(f"/api/v1/charge-points?{bad}")
        assert status == 400 and body["error"], (bad, body)
    status, fleet = get("/api/v1/fleet")
    assert status == 200, fleet
    assert fleet["charge_points"] == {"total": 2, "online": 1, "offline": 1, "by_version": {"1.6": 2}}, fleet
    assert fleet["connectors"].get("CHARGING") == 2 and fleet["open_sessions"] == 2, fleet

    # PY-R2 connected and went: its connection history has both, newest first.
    conns = poll(lambda: walk(gw, "/api/v1/charge-points/PY-R2/connections", viewer, 1, "silver_id"),
                 lambda items: len(items) == 2)
    assert [c["state"] for c in conns] == ["disconnected", "connected"], conns
    assert conns[1]["subprotocol"] == "ocpp1.6" and conns[0]["event_ts"] >= conns[1]["event_ts"]
    assert get("/api/v1/charge-points/PY-R2/connections?limit=0")[0] == 400

    history = walk(gw, "/api/v1/status-history?charge_point_id=PY-R1", viewer, 2, "event_id")
    assert {(h["connector_id"], h["status"]) for h in history} >= {(1, "AVAILABLE"),
                                                                    (2, "CHARGING")}
    assert len(walk(gw, "/api/v1/status-history?charge_point_id=PY-R1&connector_id=2", viewer,
                    10, "event_id")) == 2
    assert get("/api/v1/status-history")[0] == 400
    assert get("/api/v1/status-history?charge_point_id=PY-R1&connector_id=-1")[0] == 400

    days = walk(gw, "/api/v1/daily-stats", viewer, 10, "day")
    assert [(d["day"], d["sessions_total"], d["charge_points"]) for d in days] == [(today, 6, 2)]
    mine = walk(gw, "/api/v1/daily-stats?charge_point_id=PY-R2", viewer, 10, "day")
    assert [(d["charge_point_id"], d["sessions_completed"]) for d in mine] == [("PY-R2", 1)]
    assert get("/api/v1/daily-stats?from=2026-1-1")[0] == 400

    status, dq = get("/api/v1/data-quality")
    assert status == 200 and dq["conservation"]["conservation_ok"] is True
    assert dq["totals"]["raw"] > 0
    assert get("/api/v1/quarantine?status=LOST")[0] == 400
    quarantine_review(gw, t)
    status, dups = get("/api/v1/duplicates?type=TECHNICAL")
    assert status == 200 and isinstance(dups["items"], list)
    assert get("/api/v1/duplicates?type=SIMILAR")[0] == 400
    status, lag = get("/api/v1/lag")
    assert status == 200 and lag["analytics"]["lag_events"] >= 0 and "kafka" in lag

    # Reads need a login; every role may read.
    assert request(gw, "GET", "/api/v1/sessions")[0] == 401
    assert request(gw, "GET", "/api/v1/charge-points", token=t["operator"])[0] == 200


def quarantine_review(gw, t):
    """Discard one quarantined reading, repair and replay the other; roles, 400/404/409, audit."""
    quarantined = poll(lambda: request(gw, "GET", "/api/v1/quarantine?status=NEW&limit=1",
                                       token=t["viewer"])[1],
                       lambda b: b["items"] and b["next_cursor"])  # two: a second page exists
    items = walk(gw, "/api/v1/quarantine?status=NEW", t["viewer"], 1, "quarantine_id")
    assert len(items) == 2 and {i["charge_point_id"] for i in items} == {"PY-R2"}
    assert quarantined["items"][0]["quarantine_id"] == items[0]["quarantine_id"]
    first, second = (i["quarantine_id"] for i in items)
    q = "/api/v1/quarantine/"
    post = lambda path, body=None, who="operator": request(gw, "POST", q + path, body,  # noqa
                                                          token=t[who])
    assert post(f"{first}/discard", who="viewer")[0] == 403
    status, body = post(f"{first}/discard")
    assert status == 200 and body["status"] == "DISCARDED", body
    assert post(f"{first}/discard")[0] == 409
    assert post(f"{first}/repair", {"payload": "{}"})[0] == 409
    assert post("999999/discard")[0] == 404
    assert post("abc/replay")[0] == 400
    assert post(f"{second}/repair", {"payload": "not json"})[0] == 400
    assert post(f"{second}/repair", {})[0] == 400
    fixed = json.loads(items[1]["raw_payload"])
    fixed["meter_wh"] = 100.0
    status, body = post(f"{second}/repair", {"payload": json.dumps(fixed)})
    assert status == 200 and body["status"] == "REPAIRED", body
    status, body = post(f"{second}/replay")
    assert status == 200 and body["status"] == "REPLAYED" and body["report"], body
    status, rows = request(gw, "GET", "/api/v1/quarantine", token=t["viewer"])
    by_id = {r["quarantine_id"]: r for r in rows["items"]}
    assert by_id[first]["status"] == "DISCARDED" and by_id[first]["reviewed_by"] == "op"
    assert by_id[second]["status"] == "REPLAYED" and by_id[second]["replay_outcome"]
    status, audit = request(gw, "GET", "/api/v1/audit?limit=100", token=t["admin"])
    actions = {(a["action"], a["outcome"], a["target"]) for a in audit["items"]}
    assert {("quarantine.discard", "ok", str(first)), ("quarantine.discard", "conflict", str(first)),
            ("quarantine.repair", "ok", str(second)),
            ("quarantine.replay", "ok", str(second))} <= actions


def test_read_api_over_live_charge_points(tmp_path):
    gw = GatewayProcess(tmp_path, args=["--unknown-tokens", "Accepted"],
                        env={"OCPPGW_ADMIN_PASSWORD": ADMIN_PASSWORD})
    gw.start()
    try:
        t = accounts(gw)

        async def scenario():
            done = asyncio.Event()
            r1 = asyncio.create_task(charge(gw, "PY-R1", 3, stay_connected=done))
            await charge(gw, "PY-R2", 1, bad_readings=2)
            try:
                await asyncio.to_thread(reads, gw, t)
            finally:
                done.set()
                await r1

        asyncio.run(scenario())
    finally:
        assert gw.stop() == 0
