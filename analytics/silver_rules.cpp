// analytics/silver_rules.cpp: Silver validation/normalisation and business keys (pure).
// Rules: docs/analytics_rules.md (analytics/spark/ implements the same specification).
#include "analytics/silver_rules.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "util/text.hpp"
#include "util/time.hpp"

namespace ocppgw::analytics {
namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 10> kConnectorStatuses = {
    "AVAILABLE", "PREPARING", "CHARGING",    "SUSPENDED_EV", "SUSPENDED_EVSE",
    "FINISHING", "RESERVED",  "UNAVAILABLE", "FAULTED",      "OCCUPIED",
};

}  // namespace

bool is_connector_status(std::string_view status) {
  return std::find(kConnectorStatuses.begin(), kConnectorStatuses.end(), status) !=
         kConnectorStatuses.end();
}

namespace {

using util::trim;

void normalize_enum(std::optional<std::string>& v) {
  if (!v) return;
  std::string n = upper_snake(*v);
  if (n.empty())
    v.reset();
  else
    *v = std::move(n);
}

bool has_flag(const Event& e, std::string_view f) {
  return std::find(e.flags.begin(), e.flags.end(), f) != e.flags.end();
}

void add_flag(Event& e, std::string_view f) {
  if (!has_flag(e, f)) e.flags.emplace_back(f);
}

// Business-key components are joined with '|'; escaping keeps ("a|1","2") and ("a","1|2") apart.
void append_part(std::string& key, std::string_view part) {
  key.push_back('|');
  for (char c : part) {
    if (c == '|')
      key += "%7C";
    else if (c == '%')
      key += "%25";
    else
      key.push_back(c);
  }
}

std::string opt_str(const std::optional<int64_t>& v) { return v ? std::to_string(*v) : "-"; }

}  // namespace

void Verdict::add(std::string_view code, std::string why) {
  if (reason.empty()) {
    reason = std::string(code);
    detail = std::move(why);
  }
  if (std::find(violations.begin(), violations.end(), code) == violations.end())
    violations.emplace_back(code);
}

std::string upper_snake(std::string_view text) {
  std::string t = trim(text);
  std::string out;
  out.reserve(t.size() + 4);
  auto is_upper = [](char c) { return c >= 'A' && c <= 'Z'; };
  auto is_lower = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  for (size_t i = 0; i < t.size(); ++i) {
    char c = t[i];
    if (c == ' ' || c == '-' || c == '_') {
      if (!out.empty() && out.back() != '_') out.push_back('_');
      continue;
    }
    // A word starts at an upper-case letter after a lower-case one ("suspendedEV"), or at the
    // last capital of an acronym followed by lower case ("EVDisconnected" -> EV_Disconnected).
    if (is_upper(c) && i > 0 && !out.empty() && out.back() != '_' &&
        (is_lower(t[i - 1]) || (is_upper(t[i - 1]) && i + 1 < t.size() && is_lower(t[i + 1]) &&
                                !(t[i + 1] >= '0' && t[i + 1] <= '9'))))
      out.push_back('_');
    out.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

Verdict normalize_event(Event& e, const SilverRules& rules) {
  Verdict v;
  e.charge_point_id = trim(e.charge_point_id);
  e.event_id = trim(e.event_id);
  if (e.event_id.empty()) v.add(reason::kSchemaMismatch, "empty event_id");
  if (e.charge_point_id.empty())
    v.add(reason::kMissingChargePointId, "charge_point_id is empty and could not be recovered");
  if (e.event_type == EventType::Invalid) {
    std::string why = "gateway could not parse or validate the frame";
    if (auto it = e.extra.find("reason"); it != e.extra.end() && it->is_string())
      why += ": " + it->get<std::string>();
    v.add(reason::kCorruptPayload, std::move(why));
  }
  if (has_flag(e, silver_flag::kInvalidTimestamp))
    v.add(reason::kInvalidTimestamp, "device timestamp could not be parsed by the gateway");
  if (e.event_ts_ms < rules.min_plausible_ts_ms)
    v.add(reason::kInvalidTimestamp,
          "device time " + util::format_rfc3339_ms(e.event_ts_ms) + " is before 2000-01-01");
  if (e.schema_version > kSchemaVersion || e.schema_version < 1)
    v.add(reason::kSchemaMismatch,
          "schema_version " + std::to_string(e.schema_version) + " is not understood");
  if (e.transaction_id) {
    *e.transaction_id = trim(*e.transaction_id);
    if (e.transaction_id->empty()) e.transaction_id.reset();
  }
  normalize_enum(e.connector_status);
  normalize_enum(e.stop_reason);
  normalize_enum(e.error_code);
  normalize_enum(e.trigger_reason);
  switch (e.event_type) {
    case EventType::StartTransaction:
    case EventType::StopTransaction:
      if (!e.transaction_id)
        v.add(reason::kSchemaMismatch, "transaction event without transaction_id");
      break;
    case EventType::StatusNotification:
      if (!e.connector_status) {
        v.add(reason::kSchemaMismatch, "StatusNotification without connector_status");
      } else if (!is_connector_status(*e.connector_status)) {
        v.add(reason::kSchemaMismatch, "unknown connector_status '" + *e.connector_status + "'");
      }
      break;
    default:
      break;
  }
  if (e.meter_wh && (!std::isfinite(*e.meter_wh) || *e.meter_wh < 0))
    v.add(reason::kNegativeMeter, "meter_wh " + std::to_string(*e.meter_wh) + " is negative");
  if (!v.ok()) return v;
  if (e.event_ts_ms > e.ingest_ts_ms + rules.clock_skew_tolerance_ms)
    add_flag(e, silver_flag::kClockSkew);
  return v;
}

RawParse parse_raw_event(std::string_view text, const std::optional<std::string>& kafka_key,
                         const SilverRules& rules) {
  RawParse r;
  // The event as the gateway wrote it is read straight from the text (a fifth of the analytics
  // worker's time went to parsing events read back from the log, BENCHMARKS.md); everything
  // else, including a charge point id that must be recovered, goes through the tree below.
  if (std::optional<Event> e = read_event_text(text); e && !trim(e->charge_point_id).empty()) {
    r.event_id = e->event_id;
    r.charge_point_id = e->charge_point_id;
    r.verdict = normalize_event(*e, rules);
    if (r.verdict.ok()) r.event = std::move(e);
    return r;
  }
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    r.verdict.add(reason::kCorruptPayload, "payload is not a JSON object");
    return r;
  }
  if (auto it = j.find("event_id"); it != j.end() && it->is_string())
    r.event_id = it->get<std::string>();
  bool recovered = false;
  auto cp = j.find("charge_point_id");
  bool cp_missing = cp == j.end() || !cp->is_string() || trim(cp->get<std::string>()).empty();
  if (cp_missing) {
    if (kafka_key && !trim(*kafka_key).empty()) {
      j["charge_point_id"] = trim(*kafka_key);
      recovered = true;
    } else {
      r.verdict.add(reason::kMissingChargePointId,
                    "charge_point_id is missing and no Kafka key was given");
      return r;
    }
  }
  r.charge_point_id = j["charge_point_id"].get<std::string>();
  auto type = j.find("event_type");
  if (type == j.end() || !type->is_string() || !parse_event_type(trim(type->get<std::string>()))) {
    r.verdict.add(reason::kUnknownEventType,
                  "event_type " + (type == j.end() ? std::string("missing") : type->dump()));
    return r;
  }
  *type = trim(type->get<std::string>());
  for (const char* ts : {"event_ts", "ingest_ts"}) {
    auto it = j.find(ts);
    if (it == j.end() || !it->is_string() || !util::parse_rfc3339_ms(it->get<std::string>())) {
      r.verdict.add(reason::kInvalidTimestamp,
                    std::string(ts) + " " + (it == j.end() ? std::string("missing") : it->dump()));
      return r;
    }
  }
  std::string error;
  std::optional<Event> e = from_json(j, &error);
  if (!e) {
    r.verdict.add(reason::kSchemaMismatch, error);
    return r;
  }
  if (recovered) add_flag(*e, silver_flag::kRecoveredChargePointId);
  r.verdict = normalize_event(*e, rules);
  if (r.verdict.ok()) r.event = std::move(e);
  return r;
}

// Business keys (agreed per type; the winner among equal keys is the earliest event_ts, then
// ingest_ts, then event_id):
//   StartTransaction   cp, transaction_id                (one start per transaction)
//   StopTransaction    cp, transaction_id                (one stop per transaction)
//   MeterValues        cp, transaction_id, event_ts      (no transaction: evse, connector,
//   event_ts) StatusNotification cp, evse, connector, event_ts, status, error_code Heartbeat /
//   BootNotification   cp, event_ts Connection         cp, event_ts, extra.state Authorize cp,
//   event_ts, id_token_hash everything else    event_id (no business dedup: those facts are
//   recorded, not modelled)
// Meter-bearing keys conflict when their meter_wh differ (see Pipeline).
std::string business_key(const Event& e) {
  std::string key(to_string(e.event_type));
  switch (e.event_type) {
    case EventType::StartTransaction:
    case EventType::StopTransaction:
      append_part(key, e.charge_point_id);
      append_part(key, e.transaction_id.value_or(""));
      break;
    case EventType::MeterValues:
      append_part(key, e.charge_point_id);
      if (e.transaction_id) {
        append_part(key, *e.transaction_id);
      } else {
        append_part(key, "");
        append_part(key, opt_str(e.evse_id));
        append_part(key, opt_str(e.connector_id));
      }
      append_part(key, std::to_string(e.event_ts_ms));
      break;
    case EventType::StatusNotification:
      append_part(key, e.charge_point_id);
      append_part(key, opt_str(e.evse_id));
      append_part(key, opt_str(e.connector_id));
      append_part(key, std::to_string(e.event_ts_ms));
      append_part(key, e.connector_status.value_or(""));
      append_part(key, e.error_code.value_or(""));
      break;
    case EventType::Heartbeat:
    case EventType::BootNotification:
      append_part(key, e.charge_point_id);
      append_part(key, std::to_string(e.event_ts_ms));
      break;
    case EventType::Connection: {
      append_part(key, e.charge_point_id);
      append_part(key, std::to_string(e.event_ts_ms));
      auto it = e.extra.find("state");
      append_part(key, it != e.extra.end() && it->is_string() ? it->get<std::string>() : "");
      break;
    }
    case EventType::Authorize:
      append_part(key, e.charge_point_id);
      append_part(key, std::to_string(e.event_ts_ms));
      append_part(key, e.id_token_hash.value_or(""));
      break;
    default:
      append_part(key, e.event_id);
      break;
  }
  return key;
}

SessionBusinessKeys session_business_keys(std::string_view charge_point_id,
                                          std::string_view transaction_id) {
  auto key = [&](EventType type) {
    std::string k(to_string(type));
    append_part(k, charge_point_id);
    append_part(k, transaction_id);
    return k;
  };
  // A reading's key is the session's part, '|' and its event_ts; append_part escapes every '|'
  // inside a part, so the keys that start with "<part>|" are exactly the session's, and all of
  // them sort before "<part>}".
  static_assert('|' + 1 == '}');
  const std::string meter = key(EventType::MeterValues);
  return {key(EventType::StartTransaction), key(EventType::StopTransaction), meter + '|',
          meter + '}'};
}

bool is_session_event(const Event& e) {
  return e.transaction_id &&
         (e.event_type == EventType::StartTransaction || e.event_type == EventType::MeterValues ||
          e.event_type == EventType::StopTransaction);
}

bool has_unknown_fields(const Event& e) {
  switch (e.event_type) {
    // Their whole payload is kept in extra by design: nothing there is unknown.
    case EventType::DataTransfer:
    case EventType::FirmwareStatus:
    case EventType::DiagnosticsStatus:
    case EventType::NotifyReport:
    case EventType::SecurityEvent:
    case EventType::Notification:
    case EventType::CsmsCall:
    case EventType::Invalid:
      return false;
    default:
      break;
  }
  static constexpr std::array<std::string_view, 30> kKnown = {
      // gateway-made
      "raw", "reason", "raw_truncated_from", "raw_timestamp", "schema_violations", "state",
      "remote_address", "subprotocol", "close_code",
      // sampled values and responses kept by the mappers
      "sampled_values", "sampled_value_attributes", "sampledValue", "meterValue", "id_token_status",
      "id_token_expiry", "group_id_token_hash", "registration_status", "interval", "offline",
      // BootNotification (1.6 and 2.0.1)
      "chargePointVendor", "chargePointModel", "chargePointSerialNumber", "chargeBoxSerialNumber",
      "firmwareVersion", "iccid", "imsi", "meterType", "meterSerialNumber", "chargingStation",
      "evse"};
  if (!e.extra.is_object()) return false;
  for (auto it = e.extra.begin(); it != e.extra.end(); ++it) {
    if (std::find(kKnown.begin(), kKnown.end(), it.key()) == kKnown.end()) return true;
  }
  return false;
}

}  // namespace ocppgw::analytics
