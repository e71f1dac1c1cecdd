# tests/integration/python/csms_commands_test.py: the REST API's CSMS calls against the real
# binary, answered by the PyPI `ocpp` library's v16 ChargePoint: a remote start followed by the
# charge point's own StartTransaction, a remote stop, invalid payloads (400, nothing sent), a
# CP->CSMS action (404), an unknown charge point (409), a charge point that never answers (504,
# and the next call still works), a viewer (403); audit rows and CsmsCall events for each call.
import asyncio
from datetime import datetime, timezone

import websockets
from ocpp.routing import on
from ocpp.v16 import ChargePoint, call, call_result
from ocpp.v16.enums import Action, RemoteStartStopStatus

from api_client import ADMIN_ENV, ADMIN_PASSWORD, add_operator, login, request
from gateway_process import GatewayProcess


class RemoteControlled(ChargePoint):
    """Accepts remote start/stop and then acts on them like a real charge point."""

    received = []

    @on(Action.remote_start_transaction)
    def on_remote_start(self, id_tag, connector_id=None, **_):
        self.received.append(("RemoteStartTransaction", id_tag))
        return call_result.RemoteStartTransaction(status=RemoteStartStopStatus.accepted)

    @on(Action.remote_stop_transaction)
    def on_remote_stop(self, transaction_id, **_):
        self.received.append(("RemoteStopTransaction", transaction_id))
        return call_result.RemoteStopTransaction(status=RemoteStartStopStatus.accepted)

    @on(Action.clear_cache)
    async def on_clear_cache(self, **_):
        self.received.append(("ClearCache", None))
        if len([r for r in self.received if r[0] == "ClearCache"]) == 1:
            await asyncio.sleep(3)  # the first one is never answered in time
        return call_result.ClearCache(status="Accepted")


def now():
    return datetime.now(timezone.utc).isoformat()


async def scenario(gw, op, viewer):
    api = lambda *a, **k: asyncio.to_thread(request, gw, *a, **k)  # noqa: E731
    calls = "/api/v1/charge-points/PY-CMD/calls/"
    async with websockets.connect(f"{gw.url}/PY-CMD", subprotocols=["ocpp1.6"]) as ws:
        cp = RemoteControlled("PY-CMD", ws)
        listener = asyncio.create_task(cp.start())
        try:
            await cp.call(call.BootNotification(charge_point_model="M", charge_point_vendor="V"))
            status, body = await api("POST", calls + "RemoteStartTransaction",
                                     {"idTag": "CMD-TAG", "connectorId": 1}, token=op)
            assert status == 200, body
            assert body == {"result": "CallResult", "payload": {"status": "Accepted"}}
            start = await cp.call(call.StartTransaction(connector_id=1, id_tag="CMD-TAG",
                                                        meter_start=0, timestamp=now()))
            status, body = await api("POST", calls + "RemoteStopTransaction",
                                     {"transactionId": start.transaction_id}, token=op)
            assert (status, body["payload"]["status"]) == (200, "Accepted"), body
            await cp.call(call.StopTransaction(meter_stop=1200, timestamp=now(),
                                               transaction_id=start.transaction_id))

            sent_before = len(cp.received)
            status, body = await api("POST", calls + "RemoteStartTransaction", {"connectorId": 1},
                                     token=op)
            assert status == 400 and body["violations"], body  # idTag is required
            assert (await api("POST", calls + "Reset", ["Soft"], token=op))[0] == 400
            assert (await api("POST", calls + "BootNotification", {}, token=op))[0] == 404
            assert (await api("POST", "/api/v1/charge-points/NOBODY/calls/Reset",
                              {"type": "Soft"}, token=op))[0] == 409
            assert (await api("POST", calls + "Reset", {"type": "Soft"}, token=viewer))[0] == 403
            assert (await api("POST", calls + "Reset", {"type": "Soft"}))[0] == 401
            assert len(cp.received) == sent_before  # none of those reached the charge point

            status, body = await api("POST", calls + "ClearCache", {}, token=op)
            assert status == 504, body
            await asyncio.sleep(2.5)  # the late answer arrives and is recorded, not matched
            status, body = await api("POST", calls + "ClearCache", {}, token=op)
            assert (status, body["payload"]["status"]) == (200, "Accepted"), body
            return start.transaction_id
        finally:
            listener.cancel()


def test_csms_calls_through_the_api(tmp_path):
    gw = GatewayProcess(tmp_path, args=["--csms-call-timeout", "1"],
                        env=ADMIN_ENV)
    gw.start()
    try:
        admin = login(gw, "admin", ADMIN_PASSWORD)["token"]
        op = add_operator(gw, admin, "op", "operator")
        viewer = add_operator(gw, admin, "vic", "viewer")
        tx = asyncio.run(scenario(gw, op, viewer))

        status, audit = request(gw, "GET", "/api/v1/audit?limit=100", token=admin)
        assert status == 200
        calls = [(a["action"], a["outcome"]) for a in audit["items"] if a["action"].startswith("call.")]
        assert ("call.RemoteStartTransaction", "ok") in calls
        assert ("call.RemoteStopTransaction", "ok") in calls
        assert ("call.ClearCache", "Timeout") in calls
        assert ("call.RemoteStartTransaction", "InvalidRequest") in calls
        assert all(a["actor"] == "op" for a in audit["items"] if a["action"].startswith("call."))
    finally:
        assert gw.stop() == 0

    events = gw.events("PY-CMD")
    csms_calls = [e for e in events if e["event_type"] == "CsmsCall"]
    by_action = {(e["ocpp_action"], e["extra"]["outcome"]) for e in csms_calls}
    assert ("RemoteStartTransaction", "result") in by_action
    assert ("ClearCache", "timeout") in by_action
    assert all(e["extra"]["requested_by"] == "op" for e in csms_calls)
    # The remote start was followed by the charge point's own transaction, as usual.
    types = [e["event_type"] for e in events]
    assert "StartTransaction" in types and "StopTransaction" in types
    assert any(e["event_type"] == "StopTransaction" and e["transaction_id"] == str(tx) for e in events)
