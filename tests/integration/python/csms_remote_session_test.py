# tests/integration/python/csms_remote_session_test.py: a charging session started and stopped
# through the REST API, end to end against the real binary, with the PyPI `ocpp` charge points:
#   1.6    RemoteStartTransaction -> StartTransaction -> MeterValues -> RemoteStopTransaction
#          -> StopTransaction
#   2.0.1  RequestStartTransaction -> TransactionEvent Started (remoteStartId) -> Updated
#          -> RequestStopTransaction -> TransactionEvent Ended
# The charge point acts on what the CALL carried (id token, connector, transaction id). Checked
# afterwards: the event log holds the calls (CsmsCall) and the session's events in order, and
# the sessions API (GET /api/v1/sessions) shows the completed session with its final energy.
# With OCPPGW_IT_KAFKA_BROKERS set (the Kafka suite, tests/integration/kafka/run.sh, runs this
# file against its real broker) the gateway publishes to a topic of its own, and the same events
# must arrive there, in the same order, read back with kcat.
import asyncio
import json
import os
import subprocess
import time
import uuid
import urllib.parse
from datetime import datetime, timedelta, timezone

import websockets
from ocpp import v16, v201

from api_client import ADMIN_ENV, csms_call, operator_token, request
from gateway_process import BIN, GatewayProcess
from scripted_charge_point import answer_with, scripted_charge_point

ID_TAG = "E2E-TAG-1"


def at(minutes):
    """An RFC 3339 timestamp `minutes` from now (negative: in the past)."""
    return (datetime.now(timezone.utc) + timedelta(minutes=minutes)).isoformat().replace("+00:00", "Z")


def energy16(wh):
    return {"measurand": "Energy.Active.Import.Register", "unit": "Wh", "value": str(wh)}


def energy201(wh):
    return {"measurand": "Energy.Active.Import.Register", "unitOfMeasure": {"unit": "Wh"}, "value": wh}


def completed_session(gw, cp_id, transaction_id):
    """The session as GET /api/v1/sessions shows it once it is COMPLETED (analytics trails the
    event log); None if it does not get there within 10 s."""
    deadline = time.monotonic() + 10
    path = f"/api/v1/sessions?charge_point_id={urllib.parse.quote(cp_id)}&status=COMPLETED"
    while time.monotonic() < deadline:
        status, body = request(gw, "GET", path, token=gw.token)
        assert status == 200, body
        found = [s for s in body["items"] if s["transaction_id"] == transaction_id]
        if found:
            return found[0]
        time.sleep(0.1)
    return None


def start_gateway(tmp_path):
    subprocess.run([BIN, "--data-dir", str(tmp_path), "tokens", "add", ID_TAG, "--status", "Accepted"], check=True,
                   capture_output=True)
    subprocess.run([BIN, "--data-dir", str(tmp_path), "tokens", "add", "E2E-TOKEN-201", "--status", "Accepted"],
                   check=True, capture_output=True)
    brokers = os.environ.get("OCPPGW_IT_KAFKA_BROKERS")
    topic = f"remote-sessions-{uuid.uuid4().hex[:8]}"
    args = ["--kafka-brokers", brokers, "--kafka-topic", topic] if brokers else []
    gw = GatewayProcess(tmp_path, args=args, env=ADMIN_ENV).start()
    gw.token = operator_token(gw)
    gw.kafka = (brokers, topic) if brokers else None
    return gw


def kafka_session_events(gw, cp_id, want):
    """session_events() as read from the gateway's Kafka topic once `want` of them arrived
    (None without a broker)."""
    if not gw.kafka:
        return None
    brokers, topic = gw.kafka
    deadline = time.monotonic() + 30
    while True:
        out = subprocess.run(["kcat", "-C", "-b", brokers, "-t", topic, "-o", "beginning", "-e", "-q",
                              "-f", "%s\n"], capture_output=True, text=True, timeout=60).stdout
        events = [json.loads(line) for line in out.splitlines() if line.strip()]
        mine = [(e["event_type"], e["ocpp_action"], e.get("transaction_id")) for e in events
                if e["charge_point_id"] == cp_id and e["event_type"] in SESSION_KINDS]
        if len(mine) >= want or time.monotonic() > deadline:
            return mine
        time.sleep(0.5)


async def connected(gw, cp_id, subprotocol, charge_point_class, answers, body):
    async with websockets.connect(f"{gw.url}/{cp_id}", subprotocols=[subprotocol]) as ws:
        cp = scripted_charge_point(charge_point_class, cp_id, ws, answers)
        listener = asyncio.create_task(cp.start())
        try:
            return await body(cp, lambda action, payload: asyncio.to_thread(csms_call, gw, gw.token, cp_id, action,
                                                                            payload))
        finally:
            listener.cancel()


SESSION_KINDS = {"CsmsCall", "StartTransaction", "MeterValues", "StopTransaction"}


def session_events(gw, cp_id):
    """(event_type, ocpp_action, transaction_id) of the charge point's events that matter here."""
    return [(e["event_type"], e["ocpp_action"], e["transaction_id"]) for e in gw.events(cp_id)
            if e["event_type"] in SESSION_KINDS]


def test_remote_start_and_stop_ocpp16(tmp_path):
    gw = start_gateway(tmp_path)
    cp_id = "E2E-16"
    accepted = answer_with({"status": "Accepted"})

    async def body(cp, api):
        await cp.call(v16.call.BootNotification(charge_point_model="M", charge_point_vendor="V"))
        status, answer = await api("RemoteStartTransaction", {"connectorId": 1, "idTag": ID_TAG})
        assert (status, answer) == (200, {"result": "CallResult", "payload": {"status": "Accepted"}})
        asked = cp.received[-1][1]
        start = await cp.call(v16.call.StartTransaction(connector_id=asked["connectorId"], id_tag=asked["idTag"],
                                                        meter_start=1000, timestamp=at(-10)))
        assert start.id_tag_info["status"] == "Accepted"
        for minutes, wh in ((-8, 1500), (-5, 2200)):
            await cp.call(v16.call.MeterValues(connector_id=1, transaction_id=start.transaction_id,
                                               meter_value=[{"timestamp": at(minutes), "sampledValue": [energy16(wh)]}]))
        status, answer = await api("RemoteStopTransaction", {"transactionId": start.transaction_id})
        assert (status, answer["payload"]) == (200, {"status": "Accepted"})
        await cp.call(v16.call.StopTransaction(meter_stop=3000, timestamp=at(-1),
                                               transaction_id=cp.received[-1][1]["transactionId"], reason="Remote"))
        return str(start.transaction_id)

    try:
        tx = asyncio.run(connected(gw, cp_id, "ocpp1.6", v16.ChargePoint,
                                   {"RemoteStartTransaction": accepted, "RemoteStopTransaction": accepted}, body))
        session = completed_session(gw, cp_id, tx)
        published = kafka_session_events(gw, cp_id, 6)
    finally:
        assert gw.stop() == 0
    expected = [
        ("CsmsCall", "RemoteStartTransaction", None),
        ("StartTransaction", "StartTransaction", tx),
        ("MeterValues", "MeterValues", tx),
        ("MeterValues", "MeterValues", tx),
        ("CsmsCall", "RemoteStopTransaction", None),
        ("StopTransaction", "StopTransaction", tx),
    ]
    assert session_events(gw, cp_id) == expected
    assert published in (None, expected), published
    assert session is not None, "no completed session in GET /api/v1/sessions"
    assert (session["connector_id"], session["meter_start_wh"], session["meter_stop_wh"]) == (1, 1000, 3000)
    assert abs(session["energy_kwh"] - 2.0) < 1e-9 and session["energy_is_final"] and session["stop_reason"] == "REMOTE"


def test_request_start_and_stop_ocpp201(tmp_path):
    gw = start_gateway(tmp_path)
    cp_id = "E2E-201"
    tx = "E2E-201-TX-1"
    id_token = {"idToken": "E2E-TOKEN-201", "type": "ISO14443"}

    def event(event_type, seq_no, minutes, trigger, wh, **extra):
        # One timestamp for the event and its reading: a reading taken at another instant is a
        # sample of its own, and the gateway records it as a MeterValues event besides.
        ts = at(minutes)
        return v201.call.TransactionEvent(
            event_type=event_type, timestamp=ts, trigger_reason=trigger, seq_no=seq_no,
            evse={"id": 1, "connectorId": 1},
            meter_value=[{"timestamp": ts, "sampledValue": [energy201(wh)]}], **extra)

    async def body(cp, api):
        await cp.call(v201.call.BootNotification(charging_station={"model": "M", "vendorName": "V"},
                                                 reason="PowerUp"))
        status, answer = await api("RequestStartTransaction", {"idToken": id_token, "remoteStartId": 77, "evseId": 1})
        assert (status, answer) == (200, {"result": "CallResult", "payload": {"status": "Accepted"}})
        asked = cp.received[-1][1]
        started = await cp.call(event("Started", 0, -10, "RemoteStart", 1000, id_token=asked["idToken"],
                                      transaction_info={"transactionId": tx,
                                                        "remoteStartId": asked["remoteStartId"]}))
        assert started.id_token_info["status"] == "Accepted"
        await cp.call(event("Updated", 1, -5, "MeterValuePeriodic", 1800, transaction_info={"transactionId": tx}))
        status, answer = await api("RequestStopTransaction", {"transactionId": tx})
        assert (status, answer["payload"]) == (200, {"status": "Accepted"})
        stop_id = cp.received[-1][1]["transactionId"]
        await cp.call(event("Ended", 2, -1, "RemoteStop", 3000,
                            transaction_info={"transactionId": stop_id, "stoppedReason": "Remote"}))

    try:
        asyncio.run(connected(gw, cp_id, "ocpp2.0.1", v201.ChargePoint,
                              {"RequestStartTransaction": answer_with({"status": "Accepted"}),
                               "RequestStopTransaction": answer_with({"status": "Accepted"})}, body))
        session = completed_session(gw, cp_id, tx)
        published = kafka_session_events(gw, cp_id, 5)
    finally:
        assert gw.stop() == 0
    expected = [
        ("CsmsCall", "RequestStartTransaction", None),
        ("StartTransaction", "TransactionEvent", tx),
        ("MeterValues", "TransactionEvent", tx),
        ("CsmsCall", "RequestStopTransaction", None),
        ("StopTransaction", "TransactionEvent", tx),
    ]
    assert session_events(gw, cp_id) == expected
    assert published in (None, expected), published
    assert session is not None, "no completed session in GET /api/v1/sessions"
    assert (session["meter_start_wh"], session["meter_stop_wh"]) == (1000, 3000)
    assert abs(session["energy_kwh"] - 2.0) < 1e-9 and session["energy_is_final"] and session["stop_reason"] == "REMOTE"
