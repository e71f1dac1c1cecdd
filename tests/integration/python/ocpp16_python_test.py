# tests/integration/python/ocpp16_python_test.py: the PyPI `ocpp` library's v16 ChargePoint
# (over `websockets`) against the real binary: a boot and a short session, and the log.
import asyncio
from datetime import datetime, timezone

import websockets
from ocpp.routing import on  # noqa: F401  (the library's own message routing is in play)
from ocpp.v16 import ChargePoint, call
from ocpp.v16.enums import RegistrationStatus


def now():
    return datetime.now(timezone.utc).isoformat()


async def run_session(url, identity):
    async with websockets.connect(f"{url}/{identity}", subprotocols=["ocpp1.6"]) as ws:
        assert ws.subprotocol == "ocpp1.6"
        cp = ChargePoint(identity, ws)
        listener = asyncio.create_task(cp.start())
        try:
            boot = await cp.call(call.BootNotification(charge_point_model="PyModel", charge_point_vendor="PyVendor"))
            assert boot.status == RegistrationStatus.accepted
            assert boot.interval == 300
            hb = await cp.call(call.Heartbeat())
            assert hb.current_time
            await cp.call(call.StatusNotification(connector_id=1, error_code="NoError", status="Available", timestamp=now()))
            start = await cp.call(call.StartTransaction(connector_id=1, id_tag="PY-TAG", meter_start=0, timestamp=now()))
            assert start.transaction_id > 0
            await cp.call(call.MeterValues(connector_id=1, transaction_id=start.transaction_id, meter_value=[
                {"timestamp": now(), "sampledValue": [{"value": "2.5", "measurand": "Energy.Active.Import.Register", "unit": "kWh"}]}]))
            stop = await cp.call(call.StopTransaction(meter_stop=2500, timestamp=now(), transaction_id=start.transaction_id))
            assert stop is not None
            return start.transaction_id
        finally:
            listener.cancel()


def test_python_ocpp_v16_session(gateway):
    tx = asyncio.run(run_session(gateway.url, "PY-CP1"))
    events = [e for e in gateway.events("PY-CP1") if e["event_type"] != "Connection"]
    assert [e["event_type"] for e in events] == [
        "BootNotification", "Heartbeat", "StatusNotification", "StartTransaction", "MeterValues", "StopTransaction"]
    assert events[4]["meter_wh"] == 2500
    assert all(e["ocpp_version"] == "1.6" for e in events)
    assert events[5]["transaction_id"] == str(tx)


def test_python_ocpp_refused_without_subprotocol(gateway):
    async def attempt():
        try:
            async with websockets.connect(f"{gateway.url}/PY-CP2"):
                return None
        except websockets.exceptions.InvalidStatusCode as e:
            return e.status_code

    assert asyncio.run(attempt()) == 400


async def security_extension(url, identity):
    async with websockets.connect(f"{url}/{identity}", subprotocols=["ocpp1.6"]) as ws:
        cp = ChargePoint(identity, ws)
        listener = asyncio.create_task(cp.start())
        try:
            await cp.call(call.BootNotification(charge_point_model="PyModel", charge_point_vendor="PyVendor"))
            await cp.call(call.SecurityEventNotification(type="FirmwareUpdated", timestamp=now(),
                                                         tech_info="v2 installed"))
            await cp.call(call.LogStatusNotification(status="Uploaded", request_id=5))
            await cp.call(call.SignedFirmwareStatusNotification(status="SignatureVerified", request_id=6))
            signed = await cp.call(call.SignCertificate(
                csr="-----BEGIN CERTIFICATE REQUEST-----\nMIIB\n-----END CERTIFICATE REQUEST-----"))
            return signed.status
        finally:
            listener.cancel()


def test_python_ocpp_v16_security_extension_notifications(gateway):
    """The charge point side of the 1.6 security whitepaper: each is answered and kept as the
    event its 2.0.1 counterpart becomes."""
    status = asyncio.run(security_extension(gateway.url, "PY-CP-SEC"))
    assert status == "Rejected", "no certificate authority is configured"
    events = {e["ocpp_action"]: e for e in gateway.events("PY-CP-SEC") if e["event_type"] != "Connection"}
    assert events["SecurityEventNotification"]["event_type"] == "SecurityEvent"
    assert events["SecurityEventNotification"]["extra"]["techInfo"] == "v2 installed"
    assert events["LogStatusNotification"]["event_type"] == "DiagnosticsStatus"
    assert events["LogStatusNotification"]["extra"]["requestId"] == 5
    assert events["SignedFirmwareStatusNotification"]["event_type"] == "FirmwareStatus"
    assert events["SignCertificate"]["event_type"] == "Notification"
