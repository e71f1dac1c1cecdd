"""bench/baselines/ocpp_py_csms.py: a minimal OCPP 1.6 central system on PyPI `ocpp` (with
`websockets`). It answers the messages ocppsim sends and persists nothing: the second throughput
baseline. Usage: python ocpp_py_csms.py PORT"""
import asyncio
import itertools
import sys
from datetime import datetime, timezone

import websockets
from ocpp.routing import on
from ocpp.v16 import ChargePoint, call_result
from ocpp.v16.enums import Action, AuthorizationStatus, RegistrationStatus

_tx = itertools.count(1)
_ACCEPTED = {"status": AuthorizationStatus.accepted}


def _now():
    return datetime.now(timezone.utc).isoformat()


class Csms(ChargePoint):
    @on(Action.boot_notification)
    def boot(self, **_):
        return call_result.BootNotification(current_time=_now(), interval=300,
                                            status=RegistrationStatus.accepted)

    @on(Action.heartbeat)
    def heartbeat(self, **_):
        return call_result.Heartbeat(current_time=_now())

    @on(Action.status_notification)
    def status(self, **_):
        return call_result.StatusNotification()

    @on(Action.authorize)
    def authorize(self, **_):
        return call_result.Authorize(id_tag_info=_ACCEPTED)

    @on(Action.start_transaction)
    def start_transaction(self, **_):
        return call_result.StartTransaction(transaction_id=next(_tx), id_tag_info=_ACCEPTED)

    @on(Action.meter_values)
    def meter(self, **_):
        return call_result.MeterValues()

    @on(Action.stop_transaction)
    def stop_transaction(self, **_):
        return call_result.StopTransaction(id_tag_info=_ACCEPTED)


async def _serve(ws, path=None):
    path = path or getattr(ws, "path", None) or ws.request.path
    cp = Csms(path.rstrip("/").rsplit("/", 1)[-1], ws)
    try:
        await cp.start()
    except websockets.exceptions.ConnectionClosed:
        pass


async def main(port):
    async with websockets.serve(_serve, "127.0.0.1", port, subprotocols=["ocpp1.6"],
                                ping_interval=None, max_queue=None):
        print(f"ocpp (python) CSMS listening on {port}", file=sys.stderr, flush=True)
        await asyncio.Future()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 8182))
