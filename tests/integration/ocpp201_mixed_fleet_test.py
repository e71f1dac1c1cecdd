#!/usr/bin/env python3
"""tests/integration/ocpp201_mixed_fleet_test.py: 1.6 and 2.0.1 charge points at once through one
gateway, all driven by the PyPI `ocpp` library (v16 and v201 ChargePoint) concurrently. Each
charge point boots, reports status, heartbeats, authorizes and runs one charging session; then
the gateway's event log must hold every charge point's events with the right ocpp_version and
the canonical types of its session, and the 1.6 transaction ids the gateway assigned must be
unique. Env: OCPPGW_URL, OCPPGW_DB (required), MIXED_FLEET_SIZE (charge points per version, 10).
Prints [PASS]/[FAIL] lines and "N passed, M failed".
"""
import asyncio
import datetime as dt
import json
import os
import sqlite3

import websockets
from ocpp.v16 import ChargePoint as ChargePoint16
from ocpp.v16 import call as call16
from ocpp.v201 import ChargePoint as ChargePoint201
from ocpp.v201 import call as call201

from checklist import check, iso, run  # noqa: E402  (tests/integration, beside this file)

URL = os.environ["OCPPGW_URL"].rstrip("/")
DB = os.environ["OCPPGW_DB"]
SIZE = int(os.environ.get("MIXED_FLEET_SIZE", "10"))



async def run_16(cp_id, start):
    async with websockets.connect(f"{URL}/{cp_id}", subprotocols=["ocpp1.6"]) as ws:
        assert ws.subprotocol == "ocpp1.6", ws.subprotocol
        cp = ChargePoint16(cp_id, ws, response_timeout=15)
        task = asyncio.create_task(cp.start())
        await cp.call(call16.BootNotification(charge_point_vendor="Alfen", charge_point_model="Eve Single"),
                      suppress=False)
        await cp.call(call16.StatusNotification(connector_id=1, error_code="NoError", status="Preparing",
                                                timestamp=iso(start)), suppress=False)
        await cp.call(call16.Heartbeat(), suppress=False)
        await cp.call(call16.Authorize(id_tag=f"TAG-{cp_id}"), suppress=False)
        started = await cp.call(call16.StartTransaction(connector_id=1, id_tag=f"TAG-{cp_id}", meter_start=1000,
                                                        timestamp=iso(start)), suppress=False)
        tx = started.transaction_id
        await cp.call(call16.MeterValues(connector_id=1, transaction_id=tx, meter_value=[{
            "timestamp": iso(start + dt.timedelta(minutes=5)),
            "sampled_value": [{"value": "1800", "measurand": "Energy.Active.Import.Register", "unit": "Wh"}],
        }]), suppress=False)
        await cp.call(call16.StopTransaction(meter_stop=2500, timestamp=iso(start + dt.timedelta(minutes=10)),
                                             transaction_id=tx, reason="EVDisconnected"), suppress=False)
        task.cancel()
        return tx


async def run_201(cp_id, start):
    async with websockets.connect(f"{URL}/{cp_id}", subprotocols=["ocpp2.0.1"]) as ws:
        assert ws.subprotocol == "ocpp2.0.1", ws.subprotocol
        cp = ChargePoint201(cp_id, ws, response_timeout=15)
        task = asyncio.create_task(cp.start())
        await cp.call(call201.BootNotification(
            charging_station={"vendor_name": "ABB", "model": "Terra AC W22"}, reason="PowerUp"), suppress=False)
        await cp.call(call201.StatusNotification(timestamp=iso(start), connector_status="Occupied", evse_id=1,
                                                 connector_id=1), suppress=False)
        await cp.call(call201.Heartbeat(), suppress=False)
        token = {"id_token": f"TOKEN-{cp_id}", "type": "ISO14443"}
        await cp.call(call201.Authorize(id_token=token), suppress=False)
        tx = f"{cp_id}-tx"

        def event(event_type, seq_no, minutes, trigger, wh, **extra):
            ts = iso(start + dt.timedelta(minutes=minutes))
            return call201.TransactionEvent(
                event_type=event_type, timestamp=ts, trigger_reason=trigger, seq_no=seq_no,
                transaction_info={"transaction_id": tx, **extra}, evse={"id": 1, "connector_id": 1},
                meter_value=[{"timestamp": ts, "sampled_value": [
                    {"value": wh, "measurand": "Energy.Active.Import.Register", "unit_of_measure": {"unit": "Wh"}}]}])

        await cp.call(event("Started", 0, 0, "CablePluggedIn", 1000), suppress=False)
        await cp.call(event("Updated", 1, 5, "MeterValuePeriodic", 1800), suppress=False)
        await cp.call(event("Ended", 2, 10, "EVCommunicationLost", 2500, stopped_reason="EVDisconnected"),
                      suppress=False)
        task.cancel()
        return tx


async def main():
    start = dt.datetime.now(dt.timezone.utc) - dt.timedelta(minutes=15)
    ids16 = [f"mix16-{i:03d}" for i in range(SIZE)]
    ids201 = [f"mix201-{i:03d}" for i in range(SIZE)]
    outcomes = await asyncio.gather(*[run_16(i, start) for i in ids16], *[run_201(i, start) for i in ids201],
                                    return_exceptions=True)
    errors = [repr(o) for o in outcomes if isinstance(o, BaseException)]
    check(f"{2 * SIZE} charge points ({SIZE} x 1.6, {SIZE} x 2.0.1) completed their sessions", not errors, errors[:3])
    tx16 = [o for o in outcomes[:SIZE] if not isinstance(o, BaseException)]
    check("1.6 transaction ids assigned by the gateway are unique", len(set(tx16)) == len(tx16), tx16)

    db = sqlite3.connect(f"file:{DB}?mode=ro", uri=True, timeout=10)
    expected = {
        "1.6": {"BootNotification", "StatusNotification", "Heartbeat", "Authorize", "StartTransaction",
                "MeterValues", "StopTransaction"},
        "2.0.1": {"BootNotification", "StatusNotification", "Heartbeat", "Authorize", "StartTransaction",
                  "MeterValues", "StopTransaction"},
    }
    wrong_version, missing_types, bad_sessions = [], [], []
    for version, cps in (("1.6", ids16), ("2.0.1", ids201)):
        for cp_id in cps:
            rows = db.execute("SELECT ocpp_version, json FROM events WHERE charge_point_id = ?", (cp_id,)).fetchall()
            events = [json.loads(j) for _, j in rows]
            if any(v != version or e["ocpp_version"] != version for (v, _), e in zip(rows, events)):
                wrong_version.append(cp_id)
            types = {e["event_type"] for e in events}
            if not expected[version] <= types:
                missing_types.append((cp_id, sorted(expected[version] - types)))
            starts = [e for e in events if e["event_type"] == "StartTransaction"]
            stops = [e for e in events if e["event_type"] == "StopTransaction"]
            if not (len(starts) == 1 and len(stops) == 1 and starts[0]["transaction_id"] == stops[0]["transaction_id"]
                    and starts[0]["meter_wh"] == 1000 and stops[0]["meter_wh"] == 2500):
                bad_sessions.append(cp_id)
    check("every event carries its charge point's ocpp_version", not wrong_version, wrong_version[:5])
    check("every charge point's session and status events are in the log", not missing_types, missing_types[:5])
    check("every session has one Start and one Stop with start/stop meter", not bad_sessions, bad_sessions[:5])
    counts = dict(db.execute(
        "SELECT ocpp_version, COUNT(DISTINCT charge_point_id) FROM events WHERE charge_point_id LIKE 'mix%' "
        "GROUP BY ocpp_version").fetchall())
    check("both versions present in one log", counts.get("1.6") == SIZE and counts.get("2.0.1") == SIZE, counts)


if __name__ == "__main__":
    run(main)
