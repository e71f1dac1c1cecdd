"""ocppgw_spark.rules: the Silver and Gold rules as pure Python functions (no Spark, no I/O).

Rules: docs/analytics_rules.md. The C++ engine (analytics/silver_rules.cpp, gold_rules.cpp)
implements the same specification; the Spark layers (silver.py, gold.py) apply these functions
per record or per key, so every rule here is one function with a unit test.
Timestamps are integer milliseconds since the Unix epoch (UTC), as in the C++ engine.
"""
import hashlib
import json
import math

SCHEMA_VERSION = 1
CLOCK_SKEW_TOLERANCE_MS = 5 * 60 * 1000
MIN_PLAUSIBLE_TS_MS = 946684800000  # 2000-01-01T00:00:00Z
SESSION_TIMEOUT_MS = 24 * 3600 * 1000
DAY_OFFSET_MINUTES = 0
DEFAULT_HEARTBEAT_INTERVAL_S = 300
MISSED_HEARTBEATS_OFFLINE = 3

# Quarantine reason codes (docs/analytics_rules.md, "Quarantine").
CORRUPT_PAYLOAD = "CORRUPT_PAYLOAD"
MISSING_CHARGE_POINT_ID = "MISSING_CHARGE_POINT_ID"
UNKNOWN_EVENT_TYPE = "UNKNOWN_EVENT_TYPE"
INVALID_TIMESTAMP = "INVALID_TIMESTAMP"
NEGATIVE_METER = "NEGATIVE_METER"
SCHEMA_MISMATCH = "SCHEMA_MISMATCH"
CONFLICT = "CONFLICT"

# Silver flags.
CLOCK_SKEW = "CLOCK_SKEW"
RECOVERED_CHARGE_POINT_ID = "RECOVERED_CHARGE_POINT_ID"

EVENT_TYPES = (
    "BootNotification", "Heartbeat", "StatusNotification", "Authorize", "StartTransaction",
    "MeterValues", "StopTransaction", "DataTransfer", "FirmwareStatus", "DiagnosticsStatus",
    "NotifyReport", "SecurityEvent", "Notification", "Connection", "Invalid", "CsmsCall")
SESSION_TYPES = ("StartTransaction", "MeterValues", "StopTransaction")
CONNECTOR_STATUSES = ("AVAILABLE", "PREPARING", "CHARGING", "SUSPENDED_EV", "SUSPENDED_EVSE",
                      "FINISHING", "RESERVED", "UNAVAILABLE", "FAULTED", "OCCUPIED")

# The canonical event's columns after Silver parsing, in table order (tables.EVENT_SCHEMA).
INT_FIELDS = ("connector_id", "evse_id", "seq_no")
FLOAT_FIELDS = ("meter_wh", "power_w", "current_a", "voltage_v", "soc_pct")
STR_FIELDS = ("message_id", "transaction_id", "trigger_reason", "connector_status", "error_code",
              "stop_reason", "id_token_hash")
ENUM_FIELDS = ("connector_status", "stop_reason", "error_code", "trigger_reason")

_SPACE = " \t\n\v\f\r"  # C isspace() in the C locale


def trim(s):
    return s.strip(_SPACE)


def _is_upper(c):
    return "A" <= c <= "Z"


def _is_lower(c):  # lower-case letters and digits, as the C++ rule
    return "a" <= c <= "z" or "0" <= c <= "9"


def upper_snake(text):
    """"SuspendedEV " -> "SUSPENDED_EV", "EVDisconnected" -> "EV_DISCONNECTED" (ASCII only)."""
    t = trim(text)
    out = []
    n = len(t)
    for i, c in enumerate(t):
        if c in " -_":
            if out and out[-1] != "_":
                out.append("_")
            continue
        # A word starts at a capital after a lower-case letter, or at the last capital of an
        # acronym that a lower-case letter follows.
        if (_is_upper(c) and i > 0 and out and out[-1] != "_"
                and (_is_lower(t[i - 1])
                     or (_is_upper(t[i - 1]) and i + 1 < n and _is_lower(t[i + 1])
                         and not "0" <= t[i + 1] <= "9"))):
            out.append("_")
        out.append(chr(ord(c) - 32) if "a" <= c <= "z" else c)
    s = "".join(out)
    return s.rstrip("_")


# ---- RFC 3339 (util/time.cpp) ----

_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _days_from_civil(y, m, d):
    y -= m <= 2
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m - 3 if m > 2 else m + 9) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def parse_rfc3339_ms(s):
    """Milliseconds since the epoch, or None. A zone is required; digits past ms truncate."""
    def digits(pos, n):
        part = s[pos:pos + n]
        if len(part) != n or not all("0" <= c <= "9" for c in part):
            return None
        return int(part)

    if not isinstance(s, str) or len(s) < 20:
        return None
    year, month, day = digits(0, 4), digits(5, 2), digits(8, 2)
    if None in (year, month, day) or s[4] != "-" or s[7] != "-" or s[10] not in "Tt ":
        return None
    hour, minute, second = digits(11, 2), digits(14, 2), digits(17, 2)
    if None in (hour, minute, second) or s[13] != ":" or s[16] != ":":
        return None
    leap = (year % 4 == 0 and year % 100 != 0) or year % 400 == 0
    dim = 29 if month == 2 and leap else (_DAYS[month - 1] if 1 <= month <= 12 else 0)
    if not 1 <= month <= 12 or day < 1 or day > dim or hour > 23 or minute > 59 or second > 60:
        return None
    pos = 19
    millis = 0
    if pos < len(s) and s[pos] == ".":
        pos += 1
        scale, count = 100, 0
        while pos < len(s) and "0" <= s[pos] <= "9":
            millis += int(s[pos]) * scale
            scale //= 10
            pos += 1
            count += 1
        if count == 0:
            return None
    offset = 0
    if pos < len(s) and s[pos] in "Zz":
        pos += 1
    elif pos < len(s) and s[pos] in "+-":
        sign = -1 if s[pos] == "-" else 1
        pos += 1
        oh = digits(pos, 2)
        if oh is None:
            return None
        pos += 2
        if pos < len(s) and s[pos] == ":":
            pos += 1
        om = digits(pos, 2)
        if om is None or oh > 23 or om > 59:
            return None
        pos += 2
        offset = sign * (oh * 60 + om)
    else:
        return None
    if pos != len(s):
        return None
    second = min(second, 59)
    secs = (_days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second
            - offset * 60)
    return secs * 1000 + millis


def day_of(ts_ms, offset_minutes=DAY_OFFSET_MINUTES):
    """YYYY-MM-DD of ts_ms shifted by a fixed offset (charging_stats_daily's day)."""
    import datetime
    t = datetime.datetime(1970, 1, 1) + datetime.timedelta(
        milliseconds=ts_ms + offset_minutes * 60000)
    return t.strftime("%Y-%m-%d")


# ---- Silver: parse, validate, normalise ----

class Verdict:
    """The first failing rule names the reason; every failing rule is in violations."""

    def __init__(self):
        self.reason, self.detail, self.violations = None, None, []

    def add(self, code, why):
        if self.reason is None:
            self.reason, self.detail = code, why
        if code not in self.violations:
            self.violations.append(code)

    @property
    def ok(self):
        return self.reason is None


def _reject_constant(name):
    raise ValueError(f"not JSON: {name}")


def _number(v):
    # nlohmann's get<int64_t>() / get<double>() take any JSON number (a float truncates to an
    # integer field); booleans, strings, arrays and objects are type errors.
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _from_json(j, verdict):
    """from_json (analytics/event.cpp): the typed event, or None with SCHEMA_MISMATCH."""
    e = {}
    for key in ("event_id", "charge_point_id", "event_type"):
        if not isinstance(j.get(key), str):
            verdict.add(SCHEMA_MISMATCH, f"missing or non-string '{key}'")
            return None
        e[key] = j[key]
    if e["event_type"] not in EVENT_TYPES:
        verdict.add(SCHEMA_MISMATCH, f"unknown event_type '{e['event_type']}'")
        return None
    for key in ("ocpp_action", "ocpp_version", "gateway_node"):
        e[key] = j[key] if isinstance(j.get(key), str) else ""
    e["event_ts"] = parse_rfc3339_ms(j["event_ts"])
    e["ingest_ts"] = parse_rfc3339_ms(j["ingest_ts"])
    sv = j.get("schema_version")
    e["schema_version"] = sv if isinstance(sv, int) and not isinstance(sv, bool) else SCHEMA_VERSION
    for key in INT_FIELDS + FLOAT_FIELDS + STR_FIELDS:
        v = j.get(key)
        if v is None:
            e[key] = None
        elif key in STR_FIELDS:
            if not isinstance(v, str):
                verdict.add(SCHEMA_MISMATCH, f"field '{key}' has the wrong type")
                return None
            e[key] = v
        else:
            if not _number(v):
                verdict.add(SCHEMA_MISMATCH, f"field '{key}' has the wrong type")
                return None
            e[key] = int(v) if key in INT_FIELDS else float(v)
    flags = j.get("flags")
    e["flags"] = [f for f in flags if isinstance(f, str)] if isinstance(flags, list) else []
    extra = j.get("extra")
    e["extra"] = extra if isinstance(extra, dict) else {}
    return e


def normalize_event(e, verdict):
    """normalize_event (analytics/silver_rules.cpp), in place."""
    e["charge_point_id"] = trim(e["charge_point_id"])
    e["event_id"] = trim(e["event_id"])
    if not e["event_id"]:
        verdict.add(SCHEMA_MISMATCH, "empty event_id")
    if not e["charge_point_id"]:
        verdict.add(MISSING_CHARGE_POINT_ID, "charge_point_id is empty and could not be recovered")
    if e["event_type"] == "Invalid":
        why = "gateway could not parse or validate the frame"
        if isinstance(e["extra"].get("reason"), str):
            why += ": " + e["extra"]["reason"]
        verdict.add(CORRUPT_PAYLOAD, why)
    if INVALID_TIMESTAMP in e["flags"]:
        verdict.add(INVALID_TIMESTAMP, "device timestamp could not be parsed by the gateway")
    if e["event_ts"] < MIN_PLAUSIBLE_TS_MS:
        verdict.add(INVALID_TIMESTAMP, "device time is before 2000-01-01")
    if e["schema_version"] != SCHEMA_VERSION:
        verdict.add(SCHEMA_MISMATCH, f"schema_version {e['schema_version']} is not understood")
    if e["transaction_id"] is not None:
        e["transaction_id"] = trim(e["transaction_id"]) or None
    for key in ENUM_FIELDS:
        if e[key] is not None:
            e[key] = upper_snake(e[key]) or None
    t = e["event_type"]
    if t in ("StartTransaction", "StopTransaction") and e["transaction_id"] is None:
        verdict.add(SCHEMA_MISMATCH, "transaction event without transaction_id")
    if t == "StatusNotification":
        if e["connector_status"] is None:
            verdict.add(SCHEMA_MISMATCH, "StatusNotification without connector_status")
        elif e["connector_status"] not in CONNECTOR_STATUSES:
            verdict.add(SCHEMA_MISMATCH, f"unknown connector_status '{e['connector_status']}'")
    m = e["meter_wh"]
    if m is not None and (not math.isfinite(m) or m < 0):
        verdict.add(NEGATIVE_METER, f"meter_wh {m} is negative")
    if verdict.ok and e["event_ts"] > e["ingest_ts"] + CLOCK_SKEW_TOLERANCE_MS:
        if CLOCK_SKEW not in e["flags"]:
            e["flags"].append(CLOCK_SKEW)


def parse_raw_event(text, kafka_key=None):
    """parse_raw_event (analytics/silver_rules.cpp): (event dict or None, Verdict, event_id,
    charge_point_id). On failure the ids carry whatever could be read, for the quarantine row."""
    v = Verdict()
    try:
        j = json.loads(text, parse_constant=_reject_constant) if text is not None else None
    except ValueError:
        j = None
    if not isinstance(j, dict):
        v.add(CORRUPT_PAYLOAD, "payload is not a JSON object")
        return None, v, None, None
    event_id = j["event_id"] if isinstance(j.get("event_id"), str) else None
    recovered = False
    cp = j.get("charge_point_id")
    if not isinstance(cp, str) or not trim(cp):
        if kafka_key is not None and trim(kafka_key):
            j["charge_point_id"] = trim(kafka_key)
            recovered = True
        else:
            v.add(MISSING_CHARGE_POINT_ID, "charge_point_id is missing and no Kafka key was given")
            return None, v, event_id, None
    cp = j["charge_point_id"]
    t = j.get("event_type")
    if not isinstance(t, str) or trim(t) not in EVENT_TYPES:
        v.add(UNKNOWN_EVENT_TYPE, "event_type " + ("missing" if t is None else json.dumps(t)))
        return None, v, event_id, cp
    j["event_type"] = trim(t)
    for ts in ("event_ts", "ingest_ts"):
        if parse_rfc3339_ms(j.get(ts)) is None:
            v.add(INVALID_TIMESTAMP, f"{ts} " + json.dumps(j.get(ts, "missing")))
            return None, v, event_id, cp
    e = _from_json(j, v)
    if e is None:
        return None, v, event_id, cp
    if recovered:
        e["flags"].append(RECOVERED_CHARGE_POINT_ID)
    normalize_event(e, v)
    return (e if v.ok else None), v, event_id, cp


def _key_part(part):
    return "|" + part.replace("%", "%25").replace("|", "%7C")


def _opt(v):
    return "-" if v is None else str(v)


def business_key(e):
    """The natural identity of the fact, per event type (docs/analytics_rules.md)."""
    t, cp, ts = e["event_type"], e["charge_point_id"], str(e["event_ts"])
    if t in ("StartTransaction", "StopTransaction"):
        parts = [cp, e["transaction_id"] or ""]
    elif t == "MeterValues":
        if e["transaction_id"] is not None:
            parts = [cp, e["transaction_id"], ts]
        else:
            parts = [cp, "", _opt(e["evse_id"]), _opt(e["connector_id"]), ts]
    elif t == "StatusNotification":
        parts = [cp, _opt(e["evse_id"]), _opt(e["connector_id"]), ts,
                 e["connector_status"] or "", e["error_code"] or ""]
    elif t in ("Heartbeat", "BootNotification"):
        parts = [cp, ts]
    elif t == "Connection":
        state = e["extra"].get("state")
        parts = [cp, ts, state if isinstance(state, str) else ""]
    elif t == "Authorize":
        parts = [cp, ts, e["id_token_hash"] or ""]
    else:
        parts = [e["event_id"]]
    return t + "".join(_key_part(p) for p in parts)


def meters_differ(a, b):
    if (a is None) != (b is None):
        return True
    return a is not None and abs(a - b) > 1e-9


def winner_order(e):
    """Business dedup: the earliest event_ts, then ingest_ts, then event_id wins."""
    return (e["event_ts"], e["ingest_ts"], e["event_id"])


def resolve_business_key(events):
    """Silver's outcome for the distinct events (by event_id) of one business key:
    ("CONFLICT", None) when their meter values differ (every one goes to quarantine), else
    ("WINNER", winner) and the others are BUSINESS duplicates of it. Order-independent."""
    first = events[0]["meter_wh"]
    if any(meters_differ(first, e["meter_wh"]) for e in events[1:]):
        return CONFLICT, None
    return "WINNER", min(events, key=winner_order)


def validated_clock(e):
    """The event's contribution to the data clock: min(event_ts, ingest_ts + tolerance)."""
    return min(e["event_ts"], e["ingest_ts"] + CLOCK_SKEW_TOLERANCE_MS)


# ---- Gold ----

def round_kwh(kwh):
    # std::round: half away from zero
    x = kwh * 1e6
    return math.floor(x + 0.5) / 1e6 if x >= 0 else -math.floor(-x + 0.5) / 1e6


def session_id(cp, tx):
    return hashlib.sha256(f"{cp}|{tx}".encode()).hexdigest()[:32]


def session_sort_key(e):
    seq = e["seq_no"] if e["seq_no"] is not None else -1
    meter = e["meter_wh"] if e["meter_wh"] is not None else -1.0
    return (e["event_ts"], seq, meter, e["ingest_ts"], e["event_id"])


def compute_session(cp, tx, events, conflict, data_clock_ms, timeout_ms=SESSION_TIMEOUT_MS):
    """One charging_sessions row from all Silver session events of (cp, tx): a fold in
    (event_ts, seq_no, meter_wh, ingest_ts, event_id) order (gold_rules.cpp, SessionFold)."""
    events = sorted(events, key=session_sort_key)
    start = stop = None
    first_connector = None
    skew = anomaly = False
    positive_wh, prev = 0.0, None
    for i, e in enumerate(events):
        if e["event_type"] == "StartTransaction" and start is None:
            start = e
        if e["event_type"] == "StopTransaction" and stop is None:
            stop = e
        if i == 0:
            first_connector = e["connector_id"]
        skew = skew or e["clock_skew"]
        m = e["meter_wh"]
        if m is not None:
            if prev is not None:
                if m < prev:
                    anomaly = True
                else:
                    positive_wh += m - prev
            prev = m
    r = {"session_id": session_id(cp, tx), "charge_point_id": cp, "transaction_id": tx,
         "event_count": len(events), "first_event_ts": events[0]["event_ts"],
         "last_event_ts": events[-1]["event_ts"]}
    r["connector_id"] = (start["connector_id"] if start and start["connector_id"] is not None
                         else first_connector)
    r["start_ts"] = start["event_ts"] if start else None
    r["meter_start_wh"] = start["meter_wh"] if start else None
    r["stop_ts"] = stop["event_ts"] if stop else None
    r["meter_stop_wh"] = stop["meter_wh"] if stop else None
    r["stop_reason"] = stop["stop_reason"] if stop else None
    r["duration_seconds"] = (max(0, int((r["stop_ts"] - r["start_ts"]) / 1000))
                             if start and stop else None)
    r["last_meter_wh"] = prev
    if r["meter_start_wh"] is not None and r["meter_stop_wh"] is not None \
            and r["meter_stop_wh"] < r["meter_start_wh"]:
        anomaly = True
    r["energy_kwh"], r["energy_is_final"] = None, False
    if start and stop and r["meter_start_wh"] is not None and r["meter_stop_wh"] is not None \
            and not anomaly:
        r["energy_kwh"] = round_kwh((r["meter_stop_wh"] - r["meter_start_wh"]) / 1000.0)
        r["energy_is_final"] = True
    elif prev is not None:
        r["energy_kwh"] = round_kwh(positive_wh / 1000.0)
    timed_out = stop is None and data_clock_ms - r["last_event_ts"] > timeout_ms
    if start and stop:
        r["session_status"] = "COMPLETED"
    elif not start:
        r["session_status"] = "START_MISSING"
    elif timed_out:
        r["session_status"] = "TIMED_OUT"
    else:
        r["session_status"] = "IN_PROGRESS"
    r["is_open"] = stop is None and not timed_out
    flags = []
    if not start:
        flags.append("START_MISSING")
    if timed_out:
        flags.append("STOP_MISSING")
    if anomaly:
        flags.append("METER_ANOMALY")
    if conflict:
        flags.append("CONFLICT")
    if skew:
        flags.append("CLOCK_SKEW")
    r["quality_flags"] = sorted(flags)
    r["stats_day"] = day_of(r["start_ts"] if r["start_ts"] is not None else r["first_event_ts"])
    return r


def status_sort_key(e):
    return (e["event_ts"], e["seq_no"] if e["seq_no"] is not None else -1, e["event_id"])


def compute_health(last_heartbeat_ts, last_seen_ts, connection_state, connection_ts, boot_ts,
                   boot_extra, data_clock_ms):
    """charge_point_health (gold_rules.cpp compute_health)."""
    b = boot_extra if isinstance(boot_extra, dict) else {}

    def text(*path):
        cur = b
        for k in path:
            if not isinstance(cur, dict) or k not in cur:
                return None
            cur = cur[k]
        return cur if isinstance(cur, str) else None

    interval = b.get("interval")
    hb = interval if isinstance(interval, int) and not isinstance(interval, bool) and interval > 0 \
        else DEFAULT_HEARTBEAT_INTERVAL_S
    deadline = last_seen_ts + MISSED_HEARTBEATS_OFFLINE * hb * 1000
    if connection_state == "disconnected" and connection_ts is not None \
            and connection_ts >= last_seen_ts:
        liveness = "DISCONNECTED"
    elif data_clock_ms > deadline:
        liveness = "OFFLINE"
    else:
        liveness = "ONLINE"
    return {"last_heartbeat_ts": last_heartbeat_ts, "last_seen_ts": last_seen_ts,
            "connection_state": connection_state, "connection_changed_ts": connection_ts,
            "last_boot_ts": boot_ts,
            "vendor": text("chargePointVendor") or text("chargingStation", "vendorName"),
            "model": text("chargePointModel") or text("chargingStation", "model"),
            "firmware_version": text("firmwareVersion") or text("chargingStation",
                                                                "firmwareVersion"),
            "heartbeat_interval_s": hb, "offline_deadline_ts": deadline, "liveness": liveness}


def compute_daily(sessions):
    """charging_stats_daily for the sessions of one charge point and day (compute_daily)."""
    d = {"sessions_total": 0, "sessions_started": 0, "sessions_completed": 0,
         "sessions_timed_out": 0, "sessions_in_progress": 0, "sessions_start_missing": 0}
    final = provisional = duration_sum = 0.0
    durations = 0
    for s in sorted(sessions, key=lambda s: s["transaction_id"]):
        d["sessions_total"] += 1
        d["sessions_started"] += s["start_ts"] is not None
        st = s["session_status"]
        if st == "COMPLETED":
            d["sessions_completed"] += 1
            if s["duration_seconds"] is not None:
                duration_sum += s["duration_seconds"]
                durations += 1
        elif st == "TIMED_OUT":
            d["sessions_timed_out"] += 1
        elif st == "IN_PROGRESS":
            d["sessions_in_progress"] += 1
        else:
            d["sessions_start_missing"] += 1
        if s["energy_kwh"] is not None:
            if s["energy_is_final"]:
                final += s["energy_kwh"]
            else:
                provisional += s["energy_kwh"]
    d["energy_kwh_final"] = round_kwh(final)
    d["energy_kwh_provisional"] = round_kwh(provisional)
    d["avg_duration_seconds"] = (math.floor(duration_sum / durations * 1000 + 0.5) / 1000
                                 if durations else None)
    return d
