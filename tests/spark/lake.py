# tests/spark/lake.py: reading the Spark pipeline's Delta tables (delta-rs, independent of Spark)
# and the nodes' in-process analytics tables (SQLite) into comparable rows.
import json
import os

from deltalake import DeltaTable

from conftest import sqlite_rows

SESSION_KEY = ("charge_point_id", "transaction_id")
CONNECTOR_KEY = ("charge_point_id", "evse_id", "connector_id")


def delta_rows(root, table):
    return DeltaTable(os.path.join(root, table)).to_pyarrow_table().to_pylist()


def by_key(rows, key):
    out = {}
    for r in rows:
        k = tuple(r[c] for c in key)
        assert k not in out, f"duplicate key {k}"
        out[k] = r
    return out


def session_view(r):
    """The columns both engines must agree on for a session."""
    flags = r["quality_flags"]
    if isinstance(flags, str):
        flags = json.loads(flags)
    return {"energy_kwh": r["energy_kwh"], "energy_is_final": bool(r["energy_is_final"]),
            "session_status": r["session_status"], "quality_flags": sorted(flags),
            "connector_id": r["connector_id"], "start_ts": r["start_ts"], "stop_ts": r["stop_ts"],
            "meter_start_wh": r["meter_start_wh"], "meter_stop_wh": r["meter_stop_wh"],
            "event_count": r["event_count"], "stop_reason": r["stop_reason"],
            "stats_day": r["stats_day"]}


def spark_sessions(root):
    return {k: session_view(r) for k, r in by_key(delta_rows(root, "charging_sessions"),
                                                     SESSION_KEY).items()}


def node_sessions(analytics_dbs):
    out = {}
    for db in analytics_dbs:
        for k, r in by_key(sqlite_rows(db, "SELECT * FROM charging_sessions"),
                           SESSION_KEY).items():
            assert k not in out, f"session {k} on two nodes"
            out[k] = session_view(r)
    return out


def current_view(r):
    return {"status": r["status"], "error_code": r["error_code"],
            "status_since": r["status_since"], "event_id": r["event_id"]}


def spark_current(root):
    return {k: current_view(r) for k, r in by_key(delta_rows(root, "connector_current_status"),
                                                     CONNECTOR_KEY).items()}


def node_current(analytics_dbs):
    out = {}
    for db in analytics_dbs:
        out.update({k: current_view(r) for k, r in by_key(
            sqlite_rows(db, "SELECT * FROM connector_current_status"), CONNECTOR_KEY).items()})
    return out


def energy_equal(a, b):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= 0.001


def diff_sessions(expected, actual):
    """Human-readable differences between two {key: session_view} maps (empty: equal)."""
    problems = []
    for k in sorted(set(expected) | set(actual), key=str):
        if k not in actual:
            problems.append(f"{k}: missing on the Spark side")
        elif k not in expected:
            problems.append(f"{k}: only on the Spark side {actual[k]}")
        else:
            e, a = expected[k], actual[k]
            for col in e:
                same = energy_equal(e[col], a[col]) if col == "energy_kwh" else e[col] == a[col]
                if not same:
                    problems.append(f"{k}.{col}: in-process {e[col]!r} spark {a[col]!r}")
    return problems


def gold_snapshot(root):
    """Every Gold table as sorted rows (for run-to-run identity)."""
    keys = {"charging_sessions": SESSION_KEY, "connector_current_status": CONNECTOR_KEY,
            "connector_status_history": CONNECTOR_KEY + ("valid_from", "event_id"),
            "charge_point_health": ("charge_point_id",),
            "charging_stats_daily": ("charge_point_id", "day")}
    return {t: sorted((tuple(str(r[c]) for c in key), sorted(r.items()))
                      for r in delta_rows(root, t)) for t, key in keys.items()}
