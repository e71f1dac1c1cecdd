"""tests/integration/kafka/verify.py: compares the Kafka topic with the gateway's event log.
Waits until the outbox is empty and the event log has stopped growing, then reads the whole
topic with kcat (an independent consumer) and checks, after dedup by event_id (first occurrence
wins):
  * the set of event ids in the topic equals the set in the events table, exactly;
  * per charge point (the message key) the order equals the order of events.seq;
  * every message's key is its event's charge_point_id.
Prints [PASS]/[FAIL] lines and exits non-zero on failure.

    python verify.py --db data/ocppgw.db --brokers 127.0.0.1:PORT --topic T --label steady
"""
import argparse
import json
import sqlite3
import subprocess
import sys
import time


def query(db, sql):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def wait_drained(db, timeout_s):
    """Outbox empty and the events table unchanged for a second."""
    deadline = time.time() + timeout_s
    last = None
    stable_since = None
    while time.time() < deadline:
        depth = query(db, "SELECT count(*) FROM outbox")[0][0]
        count = query(db, "SELECT count(*), coalesce(max(seq), 0) FROM events")[0]
        if depth == 0 and count == last:
            if stable_since and time.time() - stable_since >= 1.0:
                return True, depth
        else:
            stable_since = time.time()
        last = count
        time.sleep(0.2)
    return False, query(db, "SELECT count(*) FROM outbox")[0][0]


def read_topic(brokers, topic):
    out = subprocess.run(
        ["kcat", "-C", "-b", brokers, "-t", topic, "-o", "beginning", "-e", "-q", "-J"],
        check=True, capture_output=True, text=True, timeout=120).stdout
    msgs = [json.loads(line) for line in out.splitlines() if line.strip()]
    msgs.sort(key=lambda m: (m["partition"], m["offset"]))
    return msgs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", required=True)
    ap.add_argument("--brokers", required=True)
    ap.add_argument("--topic", required=True)
    ap.add_argument("--label", default="")
    ap.add_argument("--timeout", type=float, default=180)
    a = ap.parse_args()
    label = f"{a.label}: " if a.label else ""
    ok = True

    def check(name, cond, detail=""):
        nonlocal ok
        ok = ok and bool(cond)
        print(("[PASS] " if cond else "[FAIL] ") + label + name + ("" if cond else f": {detail}"), flush=True)

    drained, depth = wait_drained(a.db, a.timeout)
    check("outbox drained", drained, f"{depth} rows left after {a.timeout}s")

    log_order = {}
    log_ids = set()
    for seq, event_id, cp in query(a.db, "SELECT seq, event_id, charge_point_id FROM events ORDER BY seq"):
        if event_id in log_ids:
            continue  # an exact re-send: analytics counts it, the topic may carry it once
        log_ids.add(event_id)
        log_order.setdefault(cp, []).append(event_id)

    msgs = read_topic(a.brokers, a.topic)
    topic_order = {}
    topic_ids = set()
    bad_keys = []
    for m in msgs:
        event = json.loads(m["payload"])
        if m.get("key") != event["charge_point_id"]:
            bad_keys.append((m.get("key"), event["charge_point_id"]))
        if event["event_id"] in topic_ids:
            continue
        topic_ids.add(event["event_id"])
        topic_order.setdefault(m["key"], []).append(event["event_id"])

    check("keys are charge point ids", not bad_keys, str(bad_keys[:3]))
    missing = log_ids - topic_ids
    extra = topic_ids - log_ids
    check(f"topic == event log ({len(log_ids)} events, {len(msgs)} messages)",
          not missing and not extra, f"{len(missing)} missing, {len(extra)} not in the log")
    wrong = [cp for cp in log_order if topic_order.get(cp) != log_order[cp]]
    check(f"per charge point order ({len(log_order)} charge points)", not wrong,
          f"{len(wrong)} charge points out of order, e.g. {wrong[:3]}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
