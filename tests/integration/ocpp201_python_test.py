#!/usr/bin/env python3
"""tests/integration/ocpp201_python_test.py: OCPP 2.0.1 against the real gateway with the PyPI
`ocpp` library's v201 ChargePoint (an independent implementation that validates our responses
against its own copy of the official schemas).

Covers every charge-point-initiated action (payloads in ocpp201_samples.json), the transaction
lifecycle, seqNo anomalies, an offline replay, bad input answered with the 2.0.1 CALLERROR
spellings (raw frames over a plain websocket), and then reads the gateway's event log (SQLite,
read-only) to check the canonical events. Env:
  OCPPGW_URL       ws://127.0.0.1:<port>/ocpp (charge point id is appended)
  OCPPGW_DB        path of the gateway's SQLite database (event log); DB checks skipped if unset
  OCPP201_ALSO_CHECK  comma-separated charge point ids driven by other clients (the ocpp-rpc
                   test) whose events get the same per-action checks
  OCPP201_TOKEN_ACCEPTED=1  the driver registered 04A2B3C4D5E680 as Accepted
Prints one [PASS]/[FAIL] line per check and ends with "N passed, M failed".
"""
import asyncio
import dataclasses
import datetime as dt
import json
import os
import pathlib
import sqlite3

import websockets
from ocpp.charge_point import camel_to_snake_case
from ocpp.v201 import ChargePoint, call

from checklist import check, iso, run  # noqa: E402  (tests/integration, beside this file)

URL = os.environ["OCPPGW_URL"].rstrip("/")
DB = os.environ.get("OCPPGW_DB")
SAMPLES = json.loads((pathlib.Path(__file__).parent / "ocpp201_samples.json").read_text())
RAW_TOKEN = "04A2B3C4D5E680"
CP_ID = "py201-1"
RAW_CP_ID = "py201-raw"



def ms(text):
    return int(dt.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000)


async def connect(cp_id):
    ws = await websockets.connect(f"{URL}/{cp_id}", subprotocols=["ocpp2.0.1"])
    cp = ChargePoint(cp_id, ws, response_timeout=10)
    task = asyncio.create_task(cp.start())
    return ws, cp, task


async def send(cp, action, payload):
    """The CALLRESULT as a camelCase-free dict; raises on CALLERROR (suppress=False)."""
    result = await cp.call(getattr(call, action)(**camel_to_snake_case(payload)), suppress=False)
    return dataclasses.asdict(result)


def tx_event(event_type, seq_no, timestamp, trigger, tx_id, **extra):
    payload = {
        "eventType": event_type,
        "timestamp": timestamp,
        "triggerReason": trigger,
        "seqNo": seq_no,
        "transactionInfo": {"transactionId": tx_id},
        "evse": {"id": 1, "connectorId": 1},
    }
    payload.update(extra)
    return payload


def energy(value, timestamp, unit="Wh", context="Sample.Periodic"):
    return {
        "timestamp": timestamp,
        "sampledValue": [
            {
                "value": value,
                "context": context,
                "measurand": "Energy.Active.Import.Register",
                "unitOfMeasure": {"unit": unit},
            }
        ],
    }


async def every_action(cp):
    for sample in SAMPLES:
        action = sample["action"]
        try:
            resp = await send(cp, action, sample["request"])
            check(f"{action}: schema-valid CALLRESULT", True)
        except Exception as e:  # noqa: BLE001 - any failure is the finding
            check(f"{action}: schema-valid CALLRESULT", False, repr(e))
            continue
        if action == "BootNotification":
            check("BootNotification: status/interval", resp["status"] in ("Accepted", "Pending", "Rejected")
                  and resp["interval"] > 0, resp)
        elif action == "Heartbeat":
            check("Heartbeat: currentTime is now", abs(ms(resp["current_time"]) - dt.datetime.now().timestamp() * 1000) < 60_000, resp)
        elif action == "Authorize":
            status = resp["id_token_info"]["status"]
            want = "Accepted" if os.environ.get("OCPP201_TOKEN_ACCEPTED") == "1" else status
            check("Authorize: idTokenInfo status", status == want, resp)
        elif action in ("SignCertificate",):
            check(f"{action}: Rejected without a CA", resp["status"] == "Rejected", resp)
        elif action in ("Get15118EVCertificate", "GetCertificateStatus"):
            check(f"{action}: Failed without a backend", resp["status"] == "Failed", resp)
        elif action == "DataTransfer":
            check("DataTransfer: UnknownVendorId", resp["status"] == "UnknownVendorId", resp)


async def transactions(cp, now):
    t = lambda minutes: iso(now + dt.timedelta(minutes=minutes))  # noqa: E731
    tx = f"{CP_ID}-tx1"
    token = {"idToken": RAW_TOKEN, "type": "ISO14443"}
    r = await send(cp, "TransactionEvent", tx_event(
        "Started", 0, t(-30), "Authorized", tx, idToken=token,
        meterValue=[energy(1000, t(-30), context="Transaction.Begin")]))
    check("TransactionEvent Started: idTokenInfo answered", "id_token_info" in r and r["id_token_info"], r)
    await send(cp, "TransactionEvent", tx_event(
        "Updated", 1, t(-10), "MeterValuePeriodic", tx,
        meterValue=[energy(1.5, t(-20), "kWh"), energy(2.0, t(-10), "kWh")]))
    # The same seqNo again (a retry after a lost CALLRESULT, new message id).
    await send(cp, "TransactionEvent", tx_event(
        "Updated", 1, t(-10), "MeterValuePeriodic", tx, meterValue=[energy(2.0, t(-10), "kWh")]))
    # seqNo 2 never arrives: a gap.
    ended = tx_event("Ended", 3, t(-1), "EVCommunicationLost", tx,
                     meterValue=[energy(2600, t(-1), context="Transaction.End")])
    ended["transactionInfo"]["stoppedReason"] = "EVDisconnected"
    await send(cp, "TransactionEvent", ended)
    # An Updated for a transaction never started.
    await send(cp, "TransactionEvent", tx_event("Updated", 7, t(-1), "MeterValuePeriodic", f"{CP_ID}-ghost"))
    # An offline queue replayed after reconnecting: hours old, out of order.
    old = lambda minutes: iso(now - dt.timedelta(hours=3) + dt.timedelta(minutes=minutes))  # noqa: E731
    off = f"{CP_ID}-offline"
    await send(cp, "TransactionEvent", tx_event("Started", 0, old(0), "CablePluggedIn", off, offline=True,
                                                meterValue=[energy(500, old(0), context="Transaction.Begin")]))
    await send(cp, "TransactionEvent", tx_event("Ended", 2, old(40), "EVCommunicationLost", off, offline=True,
                                                meterValue=[energy(4500, old(40), context="Transaction.End")]))
    await send(cp, "TransactionEvent", tx_event("Updated", 1, old(20), "MeterValuePeriodic", off, offline=True,
                                                meterValue=[energy(2500, old(20))]))
    check("transactions: every TransactionEvent answered", True)
    return {"tx": tx, "ghost": f"{CP_ID}-ghost", "offline": off, "old0": old(0), "old20": old(20), "old40": old(40),
            "t20": t(-20), "t10": t(-10)}


BAD_FRAMES = [
    ('[2,"bad-1","BootNotification",{"chargingStation":{"model":"X","vendorName":"Y"}}]', "OccurrenceConstraintViolation"),
    ('[2,"bad-2","StatusNotification",{"timestamp":"2024-06-01T10:00:00Z","connectorStatus":"Available","evseId":"1","connectorId":1}]', "TypeConstraintViolation"),
    ('[2,"bad-3","Heartbeat",{"uptime":12}]', "FormatViolation"),
    ('[2,"bad-4","StatusNotification",{"timestamp":"2024-06-01T10:00:00Z","connectorStatus":"Charging","evseId":1,"connectorId":1}]', "PropertyConstraintViolation"),
    ('[2,"bad-5","StartTransaction",{"connectorId":1}]', "NotImplemented"),
    ('[2,"bad-6","Heartbeat"]', "FormatViolation"),
]


async def bad_input():
    async with websockets.connect(f"{URL}/{RAW_CP_ID}", subprotocols=["ocpp2.0.1"]) as ws:
        check("raw client negotiated ocpp2.0.1", ws.subprotocol == "ocpp2.0.1", ws.subprotocol)
        for frame, code in BAD_FRAMES:
            await ws.send(frame)
            reply = json.loads(await asyncio.wait_for(ws.recv(), 10))
            ok = reply[0] == 4 and reply[1] == json.loads(frame)[1] and reply[2] == code
            check(f"bad input -> {code}", ok, reply)
        # The connection survives bad input.
        await ws.send('[2,"ok-1","Heartbeat",{}]')
        reply = json.loads(await asyncio.wait_for(ws.recv(), 10))
        check("connection usable after bad input", reply[0] == 3 and reply[1] == "ok-1", reply)


def events_of(db, cp_id):
    """(ocpp_version column, event JSON plus the table's event_ts_ms/ingest_ts_ms columns)."""
    rows = db.execute("SELECT ocpp_version, event_ts_ms, ingest_ts_ms, json FROM events "
                      "WHERE charge_point_id = ? ORDER BY seq", (cp_id,)).fetchall()
    return [(v, json.loads(j) | {"event_ts_ms": ts, "ingest_ts_ms": its}) for v, ts, its, j in rows]


def check_actions_recorded(db, cp_id):
    events = events_of(db, cp_id)
    check(f"{cp_id}: events recorded", len(events) > 0, "no events")
    check(f"{cp_id}: every event is ocpp_version 2.0.1",
          all(v == "2.0.1" and e["ocpp_version"] == "2.0.1" for v, e in events),
          {v for v, _ in events})
    by_action = {}
    for _, e in events:
        by_action.setdefault(e["ocpp_action"], []).append(e)
    for sample in SAMPLES:
        got = [e["event_type"] for e in by_action.get(sample["action"], [])]
        check(f"{cp_id}: {sample['action']} -> {sample['event_type']} event",
              sample["event_type"] in got, got)
    leaked = [e["event_id"] for _, e in events if RAW_TOKEN in json.dumps(e) and e["event_type"] != "Invalid"]
    check(f"{cp_id}: no raw id token in any event", not leaked, leaked)


def check_transactions(db, ids):
    events = [e for _, e in events_of(db, CP_ID) if e["ocpp_action"] == "TransactionEvent"]
    tx = [e for e in events if e["transaction_id"] == ids["tx"]]
    starts = [e for e in tx if e["event_type"] == "StartTransaction"]
    stops = [e for e in tx if e["event_type"] == "StopTransaction"]
    check("tx: one StartTransaction with meter_wh and token hash",
          len(starts) == 1 and starts[0]["meter_wh"] == 1000 and starts[0]["id_token_hash"], starts)
    check("tx: StopTransaction with stop_reason and meter",
          len(stops) == 1 and stops[0]["stop_reason"] == "EVDisconnected" and stops[0]["meter_wh"] == 2600, stops)
    updated = sorted((e["event_ts_ms"], e["meter_wh"]) for e in tx if e["event_type"] == "MeterValues" and e["seq_no"] == 1)
    check("tx: multi-timestamp Updated gave one MeterValues event per timestamp, kWh -> Wh",
          (ms(ids["t20"]), 1500) in updated and (ms(ids["t10"]), 2000) in updated, updated)
    check("tx: repeated seqNo flagged", any("SEQ_NO_REPEATED" in e["flags"] for e in tx), [e["flags"] for e in tx])
    check("tx: seqNo gap flagged", any("SEQ_NO_GAP" in e["flags"] for e in stops), [e["flags"] for e in stops])
    ghost = [e for e in events if e["transaction_id"] == ids["ghost"]]
    check("tx: unknown transaction answered and flagged",
          len(ghost) == 1 and any(f in ghost[0]["flags"] for f in ("UNKNOWN_TRANSACTION",)), ghost)
    off = [e for e in events if e["transaction_id"] == ids["offline"]]
    check("offline replay: three events, all flagged OFFLINE_REPLAY",
          len(off) == 3 and all("OFFLINE_REPLAY" in e["flags"] for e in off), [e["flags"] for e in off])
    device_times = {e["event_type"]: e["event_ts_ms"] for e in off}
    check("offline replay: device timestamps kept",
          device_times == {"StartTransaction": ms(ids["old0"]), "MeterValues": ms(ids["old20"]),
                           "StopTransaction": ms(ids["old40"])}, device_times)
    check("offline replay: ingest time is later than device time by hours",
          all(e["ingest_ts_ms"] - e["event_ts_ms"] > 2 * 3600 * 1000 for e in off), off)


def check_bad_input(db):
    invalid = [e for _, e in events_of(db, RAW_CP_ID) if e["event_type"] == "Invalid"]
    codes = sorted(e["error_code"] for e in invalid)
    check("bad input: one Invalid event per bad frame with its 2.0.1 code",
          codes == sorted(code for _, code in BAD_FRAMES), codes)
    check("bad input: raw text kept", all(e["extra"].get("raw") for e in invalid), invalid)


async def main():
    now = dt.datetime.now(dt.timezone.utc)
    ws, cp, task = await connect(CP_ID)
    check("ocpp v201 ChargePoint negotiated ocpp2.0.1", ws.subprotocol == "ocpp2.0.1", ws.subprotocol)
    await every_action(cp)
    ids = await transactions(cp, now)
    task.cancel()
    await ws.close()
    await bad_input()
    if DB:
        db = sqlite3.connect(f"file:{DB}?mode=ro", uri=True, timeout=10)
        check_actions_recorded(db, CP_ID)
        for other in filter(None, os.environ.get("OCPP201_ALSO_CHECK", "").split(",")):
            check_actions_recorded(db, other)
        check_transactions(db, ids)
        check_bad_input(db)
    else:
        print("OCPPGW_DB not set: event-log checks skipped")


if __name__ == "__main__":
    run(main)
