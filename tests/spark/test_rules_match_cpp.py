# tests/spark/test_rules_match_cpp.py: the Silver validation rules of both engines on the same
# crafted records (every quarantine reason code, normalisation, flags, type leniency). The
# records go through a real topic into the real C++ engine (`ocppgw kafka-replay`, the
# in-process Silver on SQLite) and through ocppgw_spark.rules (what the Spark Silver applies to
# every Bronze record); each record's outcome must be the same. docs/analytics_rules.md.
import json
import os
import subprocess
import sys

from conftest import ROOT, sqlite_rows

sys.path.insert(0, os.path.join(ROOT, "analytics/spark"))
from ocppgw_spark import rules  # noqa: E402

OCPPGW = os.environ.get("OCPPGW_BIN", os.path.join(ROOT, "build/gateway/ocppgw"))


def base(i, **over):
    e = {"event_id": f"rule-{i:03d}", "charge_point_id": "CP-RULES", "connector_id": 1,
         "evse_id": None, "event_type": "Heartbeat", "ocpp_action": "Heartbeat",
         "message_id": str(i), "event_ts": f"2026-03-01T10:{i % 60:02d}:00.000Z",
         "ingest_ts": f"2026-03-01T10:{i % 60:02d}:00.500Z", "transaction_id": None,
         "seq_no": None, "trigger_reason": None, "meter_wh": None, "power_w": None,
         "current_a": None, "voltage_v": None, "soc_pct": None, "connector_status": None,
         "error_code": None, "stop_reason": None, "id_token_hash": None, "ocpp_version": "1.6",
         "schema_version": 1, "gateway_node": "node-0", "flags": [], "extra": {}}
    for k, v in over.items():
        if v is DROP:
            e.pop(k, None)
        else:
            e[k] = v
    return json.dumps(e)


DROP = object()
STATUS = {"event_type": "StatusNotification", "ocpp_action": "StatusNotification"}
START = {"event_type": "StartTransaction", "ocpp_action": "StartTransaction"}
METER = {"event_type": "MeterValues", "ocpp_action": "MeterValues", "transaction_id": "77"}

# (kafka key, value): one record per rule and edge.
RECORDS = [
    ("CP-RULES", "not json at all"),
    ("CP-RULES", "[1, 2, 3]"),
    ("CP-RULES", '{"event_id": "rule-nan", "meter_wh": NaN}'),
    ("CP-KEY", base(1, charge_point_id=DROP)),                    # recovered from the key
    ("", base(2, charge_point_id="   ")),                          # nothing to recover from
    ("CP-RULES", base(3, event_type="Bogus")),
    ("CP-RULES", base(4, event_type=DROP)),
    ("CP-RULES", base(5, event_type=" Heartbeat ")),               # trimmed: valid
    ("CP-RULES", base(6, event_ts="2026-03-01T10:06:00")),         # no zone
    ("CP-RULES", base(7, ingest_ts=12345)),
    ("CP-RULES", base(8, event_ts="1999-12-31T23:59:59.000Z")),    # before 2000
    ("CP-RULES", base(9, event_ts="2026-03-01T12:09:00.123456+02:00")),  # offset, truncated
    ("CP-RULES", base(10, connector_id="1")),                     # wrong type
    ("CP-RULES", base(11, **{**START, "transaction_id": 5})),
    ("CP-RULES", base(12, schema_version=2)),
    ("CP-RULES", base(13, **START)),                               # start without transaction
    ("CP-RULES", base(14, **{**STATUS, "connector_status": "Sleeping"})),
    ("CP-RULES", base(15, **{**STATUS, "connector_status": " suspendedEV", "error_code": "NoError"})),
    ("CP-RULES", base(16, **{**STATUS, "connector_status": None})),
    ("CP-RULES", base(17, **{**METER, "meter_wh": -1.5})),
    ("CP-RULES", base(18, event_type="Invalid", extra={"reason": "bad frame", "raw": "[2"})),
    ("CP-RULES", base(19, flags=["INVALID_TIMESTAMP"])),
    ("CP-RULES", base(20, event_ts="2026-03-01T10:40:00.000Z")),   # 20 min ahead: CLOCK_SKEW
    ("CP-RULES", base(21, **{**METER, "meter_wh": 1200, "seq_no": 3.0})),    # integers and floats
    ("CP-RULES", base(22, event_id="   ")),
    ("CP-RULES", base(23, **{**METER, "transaction_id": "  "})),          # blank tx -> null
    ("CP-RULES", base(24, stop_reason="EVDisconnected", event_type="StopTransaction",
                      ocpp_action="StopTransaction", transaction_id="77", meter_wh=1500.0)),
    ("CP-RULES", base(25, **{**METER, "schema_version": 0, "meter_wh": -3.0})),  # two violations
    ("CP-RULES", base(26, flags="not a list", extra=[1])),
    ("CP-RULES", base(27, event_ts="2026-02-30T10:00:00Z")),        # no such day
    ("CP-RULES", base(28, **{**METER, "meter_wh": True})),          # a boolean is no number
    ("CP-RULES", base(29, connector_id=2.9)),                       # a float truncates
]


def python_outcome(key, value):
    e, v, _, _ = rules.parse_raw_event(value, key or None)
    if not v.ok:
        return {"quarantine": v.reason, "violations": sorted(v.violations)}
    return {"silver": {"charge_point_id": e["charge_point_id"], "connector_id": e["connector_id"],
                       "event_ts": e["event_ts"],
                       "ingest_ts": e["ingest_ts"], "connector_status": e["connector_status"],
                       "error_code": e["error_code"], "stop_reason": e["stop_reason"],
                       "transaction_id": e["transaction_id"], "seq_no": e["seq_no"],
                       "meter_wh": e["meter_wh"], "flags": sorted(e["flags"])}}


def cpp_outcomes(db):
    out = {}
    for r in sqlite_rows(db, "SELECT raw_payload, reason, violations FROM quarantine_events"):
        out[r["raw_payload"]] = {"quarantine": r["reason"],
                                 "violations": sorted(json.loads(r["violations"]))}
    for r in sqlite_rows(db, "SELECT * FROM silver_events"):
        out[r["event_id"]] = {"silver": {
            "charge_point_id": r["charge_point_id"], "connector_id": r["connector_id"],
            "event_ts": r["event_ts"],
            "ingest_ts": r["ingest_ts"], "connector_status": r["connector_status"],
            "error_code": r["error_code"], "stop_reason": r["stop_reason"],
            "transaction_id": r["transaction_id"], "seq_no": r["seq_no"],
            "meter_wh": r["meter_wh"], "flags": sorted(json.loads(r["flags"]))}}
    return out


def test_every_rule_gives_the_same_outcome_in_both_engines(fleet):
    topic = "ocpp-events-rules-it"
    lines = "".join(f"{k}\t{v}\n" for k, v in RECORDS)
    subprocess.run(["kcat", "-P", "-b", fleet["brokers"], "-t", topic, "-K", "\t"],
                   input=lines, text=True, check=True, timeout=60)
    data = os.path.join(fleet["work"], "rules-replay")
    p = subprocess.run([OCPPGW, "--data-dir", data, "kafka-replay", "-b", fleet["brokers"],
                        "-t", topic, "--until-end", "--timeout", "30"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["messages"] == len(RECORDS)
    cpp = cpp_outcomes(os.path.join(data, "analytics.db"))
    assert len(cpp) == len(RECORDS)
    reasons = set()
    for key, value in RECORDS:
        mine = python_outcome(key, value)
        if "silver" in mine:
            theirs = cpp.get(json.loads(value)["event_id"].strip())
        else:
            theirs = cpp.get(value)
            reasons.add(mine["quarantine"])
        assert theirs == mine, f"record {value[:120]!r}: C++ {theirs} python {mine}"
    assert reasons == {rules.CORRUPT_PAYLOAD, rules.MISSING_CHARGE_POINT_ID,
                       rules.UNKNOWN_EVENT_TYPE, rules.INVALID_TIMESTAMP, rules.SCHEMA_MISMATCH,
                       rules.NEGATIVE_METER}
