"""tests/integration/kafka/fleet.py: N simulated OCPP 1.6 charge points (PyPI `ocpp` library)
sending M frames each to the real gateway, concurrently, each waiting for every answer (the
gateway answers only after the frame's events are durable). Prints one JSON line with the number
of frames acknowledged; exits non-zero if any call failed.

    python fleet.py --url ws://127.0.0.1:PORT/ocpp --cps 20 --frames 25 --prefix A [--interval-ms 0]
"""
import argparse
import asyncio
import datetime as dt
import json
import sys

import websockets
from ocpp.v16 import ChargePoint
from ocpp.v16 import call


def iso(t):
    return t.astimezone(dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def frame(i, cp_id, base):
    """The i-th frame after the boot: status, meter values and heartbeats in turn."""
    t = base + dt.timedelta(seconds=i)
    kind = i % 3
    if kind == 0:
        status = "Available" if (i // 3) % 2 == 0 else "Preparing"
        return call.StatusNotification(connector_id=1, error_code="NoError", status=status, timestamp=iso(t))
    if kind == 1:
        return call.MeterValues(connector_id=1, meter_value=[{
            "timestamp": iso(t),
            "sampled_value": [{"value": str(1000 + 10 * i), "measurand": "Energy.Active.Import.Register",
                               "unit": "Wh"}],
        }])
    return call.Heartbeat()


async def run_cp(url, cp_id, frames, interval, base):
    acked = 0
    async with websockets.connect(f"{url}/{cp_id}", subprotocols=["ocpp1.6"], open_timeout=20) as ws:
        cp = ChargePoint(cp_id, ws, response_timeout=30)
        task = asyncio.create_task(cp.start())
        await cp.call(call.BootNotification(charge_point_vendor="KafkaIT", charge_point_model="Fleet"),
                      suppress=False)
        acked += 1
        for i in range(frames - 1):
            await cp.call(frame(i, cp_id, base), suppress=False)
            acked += 1
            if interval:
                await asyncio.sleep(interval)
        task.cancel()
    return acked


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--cps", type=int, default=10)
    ap.add_argument("--frames", type=int, default=20)
    ap.add_argument("--prefix", default="CP")
    ap.add_argument("--interval-ms", type=int, default=0)
    a = ap.parse_args()
    base = dt.datetime.now(dt.timezone.utc)
    results = await asyncio.gather(
        *(run_cp(a.url, f"{a.prefix}-{n:03d}", a.frames, a.interval_ms / 1000, base) for n in range(a.cps)),
        return_exceptions=True)
    errors = [repr(r) for r in results if isinstance(r, BaseException)]
    acked = sum(r for r in results if not isinstance(r, BaseException))
    print(json.dumps({"prefix": a.prefix, "acked": acked, "expected": a.cps * a.frames, "errors": errors[:5]}))
    return 0 if not errors and acked == a.cps * a.frames else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
