#!/usr/bin/env python3
"""bench/spark_bench_events.py: N canonical events (contract v1, docs/event.schema.json) as
"key<TAB>value" lines for `kcat -P -K '\\t'`, the traffic of bench/spark_bench.sh. A fleet of
charge points runs sessions (StatusNotification, StartTransaction, MeterValues every minute,
StopTransaction) with heartbeats, merged in ingest-time order, with the faults the analytics
handles: exact re-sends (technical duplicates), business duplicates, conflicting readings,
late arrivals and corrupt records. Deterministic for a given --seed.

    spark_bench_events.py --events 1000000 --charge-points 2000 > events.tsv
"""
import argparse
import hashlib
import heapq
import json
import random
import sys

T0 = 1_767_225_600_000  # 2026-01-01T00:00:00Z


def ts(ms):
    import datetime
    t = datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=ms)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def event(cp, n, typ, event_ms, ingest_ms, **fields):
    e = {"event_id": hashlib.sha256(f"{cp}|{n}".encode()).hexdigest()[:32],
         "charge_point_id": cp, "connector_id": None, "evse_id": None, "event_type": typ,
         "ocpp_action": typ, "message_id": str(n), "event_ts": ts(event_ms),
         "ingest_ts": ts(ingest_ms), "transaction_id": None, "seq_no": None,
         "trigger_reason": None, "meter_wh": None, "power_w": None, "current_a": None,
         "voltage_v": None, "soc_pct": None, "connector_status": None, "error_code": None,
         "stop_reason": None, "id_token_hash": None, "ocpp_version": "1.6", "schema_version": 1,
         "gateway_node": "node-0", "flags": [], "extra": {}}
    e.update(fields)
    return e


def charge_point(index, rng, per_cp):
    """(ingest_ms, key, value) of one charge point, in ingest order."""
    cp = f"BENCH-{index:05d}"
    n = 0
    clock = T0 + rng.randrange(60_000)
    meter = float(rng.randrange(10_000, 1_000_000))
    out = []

    def emit(e, ingest):
        out.append((ingest, cp, json.dumps(e, separators=(",", ":"))))

    def fact(typ, **fields):
        nonlocal n
        n += 1
        lag = 300 + rng.randrange(200)
        if rng.random() < 0.01:  # late: queued offline, delivered minutes later
            lag += rng.randrange(60_000, 600_000)
        e = event(cp, n, typ, clock, clock + lag, **fields)
        emit(e, clock + lag)
        r = rng.random()
        if r < 0.02:    # exact re-send: the same event again
            emit(e, clock + lag + 1000)
        elif r < 0.03:  # business duplicate: same fact, new message id
            n += 1
            emit(dict(e, event_id=hashlib.sha256(f"{cp}|{n}".encode()).hexdigest()[:32],
                      ingest_ts=ts(clock + lag + 2000)), clock + lag + 2000)
        elif r < 0.032 and e["meter_wh"] is not None:  # conflicting reading
            n += 1
            emit(dict(e, event_id=hashlib.sha256(f"{cp}|{n}".encode()).hexdigest()[:32],
                      meter_wh=e["meter_wh"] + 7.0), clock + lag + 3000)
        elif r < 0.033:  # corrupt record
            out.append((clock + lag + 4000, cp, '{"event_id": "x", "charge_point_id": '))

    tx = index * 100_000
    while len(out) < per_cp:
        fact("Heartbeat")
        clock += rng.randrange(60_000, 300_000)
        connector = 1 + rng.randrange(2)
        tx += 1
        fact("StatusNotification", connector_id=connector, connector_status="PREPARING")
        clock += 5_000
        fact("StartTransaction", connector_id=connector, transaction_id=str(tx),
             meter_wh=meter, id_token_hash="ab" * 32)
        fact("StatusNotification", connector_id=connector, connector_status="CHARGING")
        for _ in range(rng.randrange(10, 40)):
            clock += 60_000
            meter += rng.randrange(50, 200)
            fact("MeterValues", connector_id=connector, transaction_id=str(tx), meter_wh=meter,
                 power_w=7000.0)
        clock += 30_000
        fact("StopTransaction", connector_id=connector, transaction_id=str(tx), meter_wh=meter,
             stop_reason="Local")
        fact("StatusNotification", connector_id=connector, connector_status="AVAILABLE")
        clock += rng.randrange(60_000, 600_000)
    out.sort(key=lambda x: x[0])
    return out[:per_cp]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--events", type=int, default=1_000_000)
    p.add_argument("--charge-points", type=int, default=2000)
    p.add_argument("--seed", type=int, default=14)
    a = p.parse_args()
    per_cp = a.events // a.charge_points
    streams = [charge_point(i, random.Random(a.seed * 1_000_003 + i), per_cp)
               for i in range(a.charge_points)]
    w = sys.stdout.write
    for _, key, value in heapq.merge(*streams, key=lambda x: x[0]):
        w(key + "\t" + value + "\n")


if __name__ == "__main__":
    main()
