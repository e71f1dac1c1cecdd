// analytics/silver_rules.hpp: the Silver validation and normalisation rules, as pure functions
// (no SQL, no state), so every rule has a unit test and replays apply exactly the same rules.
//
// Per-event rules, applied in this order; the first failing rule names the quarantine reason,
// every failing rule is listed in `violations`:
//   - raw text that is not a JSON object ........................ CORRUPT_PAYLOAD
//   - charge_point_id missing/blank: recovered from the Kafka key when one is given (a
//     deterministic fix: the gateway keys messages by charge point), else MISSING_CHARGE_POINT_ID
//   - event_type not a canonical type .......................... UNKNOWN_EVENT_TYPE
//   - event_type Invalid (the gateway could not parse/validate the frame; raw kept) CORRUPT_PAYLOAD
//   - event_ts/ingest_ts unparsable, the gateway's INVALID_TIMESTAMP flag, or a device time
//     before 2000-01-01 (a reset clock, not a plausible reading) ... INVALID_TIMESTAMP
//   - schema_version newer than this build knows, a required field missing or of the wrong
//     type, or a per-type rule (below) failing ..................... SCHEMA_MISMATCH
//   - meter_wh negative or not finite ........................... NEGATIVE_METER
// Per-type required fields: StartTransaction/StopTransaction need transaction_id;
// StatusNotification needs connector_status (one of the OCPP 1.6/2.0.1 statuses).
// Normalisation: text enums (connector_status, stop_reason, error_code, trigger_reason) are
// trimmed and written UPPER_SNAKE ("SuspendedEV " -> "SUSPENDED_EV"); ids are trimmed;
// timestamps are UTC milliseconds; meter values are already Wh by contract.
// Kept with a flag (not quarantined):
//   - SCHEMA_VIOLATION (gateway lenient mode): the event passed every rule above, so its core
//     fields are trustworthy; it stays in Silver carrying the gateway's flag. If a core field is
//     what broke the schema, one of the rules above fires (SCHEMA_MISMATCH etc.).
//   - CLOCK_SKEW: device time ahead of the gateway's receive time by more than the tolerance.
//   Late data (device time far behind receive time) is never flagged or rejected.
// Rules: docs/analytics_rules.md (analytics/spark/ implements the same specification).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analytics/event.hpp"

namespace ocppgw::analytics {

namespace reason {
inline constexpr std::string_view kCorruptPayload = "CORRUPT_PAYLOAD";
inline constexpr std::string_view kMissingChargePointId = "MISSING_CHARGE_POINT_ID";
inline constexpr std::string_view kUnknownEventType = "UNKNOWN_EVENT_TYPE";
inline constexpr std::string_view kInvalidTimestamp = "INVALID_TIMESTAMP";
inline constexpr std::string_view kNegativeMeter = "NEGATIVE_METER";
inline constexpr std::string_view kSchemaMismatch = "SCHEMA_MISMATCH";
inline constexpr std::string_view kConflict = "CONFLICT";
}  // namespace reason

namespace silver_flag {
inline constexpr std::string_view kClockSkew = "CLOCK_SKEW";
inline constexpr std::string_view kInvalidTimestamp = "INVALID_TIMESTAMP";  // set by the gateway
inline constexpr std::string_view kRecoveredChargePointId = "RECOVERED_CHARGE_POINT_ID";
}  // namespace silver_flag

struct SilverRules {
  int64_t clock_skew_tolerance_ms = 5 * 60 * 1000;
  int64_t min_plausible_ts_ms = 946684800000;  // 2000-01-01T00:00:00Z
};

struct Verdict {
  std::string reason;  // empty: valid
  std::string detail;
  std::vector<std::string> violations;
  bool ok() const { return reason.empty(); }
  void add(std::string_view code, std::string why);
};

// Validates and normalises `e` in place (see the rules above).
Verdict normalize_event(Event& e, const SilverRules& rules);

// Raw JSON text (event-log row, Kafka value, JSON-lines line) to a normalised event. On
// failure `event` is empty and `verdict` names the reason; `charge_point_id`/`event_id` carry
// whatever could be read, for the quarantine row.
struct RawParse {
  std::optional<Event> event;
  Verdict verdict;
  std::optional<std::string> event_id;
  std::optional<std::string> charge_point_id;
};
RawParse parse_raw_event(std::string_view text, const std::optional<std::string>& kafka_key,
                         const SilverRules& rules);

// Per-type business key (the natural identity of the fact; see the table in silver_rules.cpp).
std::string business_key(const Event& e);

// Event types that feed charging_sessions (and only when transaction_id is set).
bool is_session_event(const Event& e);

// The business keys of one session's events: its StartTransaction and StopTransaction keys,
// and the range [meter_from, meter_to) that holds exactly the keys of its MeterValues. Silver's
// unique index on business_key finds a session's rows through them, so Silver keeps no index
// by transaction (migrations/0004_silver_sessions_through_business_keys.sql).
struct SessionBusinessKeys {
  std::string start, stop, meter_from, meter_to;
};
SessionBusinessKeys session_business_keys(std::string_view charge_point_id,
                                          std::string_view transaction_id);
// The WHERE that selects a session's Silver rows, with start, stop, meter_from and meter_to
// bound to ?1 .. ?4 (a multi-index OR on silver_business_key).
inline constexpr const char* kSessionRowsWhere =
    "WHERE business_key IN (?1, ?2) OR (business_key >= ?3 AND business_key < ?4)";

// "SuspendedEV " -> "SUSPENDED_EV", "charging" -> "CHARGING", "EVDisconnected" ->
// "EV_DISCONNECTED".
std::string upper_snake(std::string_view text);

// The connector statuses Silver accepts, as upper_snake() makes them (AVAILABLE, CHARGING,
// SUSPENDED_EV, ...); the API's views show these.
bool is_connector_status(std::string_view status);

// True when `extra` holds a member this pipeline does not know for the event's type (the
// unknown-field rate: early warning of schema drift).
bool has_unknown_fields(const Event& e);

}  // namespace ocppgw::analytics
