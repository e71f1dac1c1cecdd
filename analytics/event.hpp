// analytics/event.hpp: the canonical event, contract v1 (docs/event_contract.md,
// docs/event.schema.json). One flat record per fact the gateway learned from a frame; it is the
// Kafka message value, the row of the durable event log and the input of the analytics pipeline.
// Plain value type: no I/O, safe to copy between threads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

// OpenSSL's EVP_MD_CTX, declared here so that this header does not pull in OpenSSL.
struct evp_md_ctx_st;

namespace ocppgw::analytics {

inline constexpr int kSchemaVersion = 1;

// Canonical event types. Several OCPP actions may map to one type; `ocpp_action` keeps the
// original. `Notification` covers the 2.0.1 actions that carry no session/status/health meaning
// (NotifyEvent, LogStatusNotification, SignCertificate, ...): recorded, counted, not modelled.
enum class EventType {
  BootNotification,
  Heartbeat,
  StatusNotification,
  Authorize,
  StartTransaction,
  MeterValues,
  StopTransaction,
  DataTransfer,
  FirmwareStatus,
  DiagnosticsStatus,
  NotifyReport,
  SecurityEvent,
  Notification,
  Connection,
  Invalid,
  CsmsCall,  // a call the central system sent to the charge point, with its outcome
};

std::string_view to_string(EventType t);
// Exact, case-sensitive match of the canonical spelling.
std::optional<EventType> parse_event_type(std::string_view s);

// Flags the gateway sets on events when a frame was accepted but is suspicious. Analytics uses
// them to flag or quarantine; they are strings in JSON so consumers need no enum table.
namespace flag {
inline constexpr std::string_view kSchemaViolation = "SCHEMA_VIOLATION";  // lenient mode
inline constexpr std::string_view kUnknownTransaction =
    "UNKNOWN_TRANSACTION";  // stop/meter for an id we never issued
inline constexpr std::string_view kOfflineTransaction =
    "OFFLINE_TRANSACTION";  // 1.6 transactionId -1
inline constexpr std::string_view kEndedBeforeStarted = "ENDED_BEFORE_STARTED";  // 2.0.1
inline constexpr std::string_view kSeqNoRepeated = "SEQ_NO_REPEATED";            // 2.0.1
inline constexpr std::string_view kSeqNoGap = "SEQ_NO_GAP";                      // 2.0.1
inline constexpr std::string_view kOfflineReplay = "OFFLINE_REPLAY";  // 2.0.1 offline=true
inline constexpr std::string_view kUnknownChargePoint = "UNKNOWN_CHARGE_POINT";
// A sampled value that does not fit a double once scaled (e.g. 1e300 with multiplier 10): kept
// as sent in extra.sampled_values, no column filled.
inline constexpr std::string_view kValueOutOfRange = "VALUE_OUT_OF_RANGE";
// 1.6 -1 / never-issued transaction id resolved to an open transaction (extra.sent_transaction_id
// keeps the id as sent), by: the open transaction on the frame's connector (MeterValues) ...
inline constexpr std::string_view kTransactionLinkedByConnector = "TRANSACTION_LINKED_BY_CONNECTOR";
// ... the charge point's only open transaction with the Stop's idTag ...
inline constexpr std::string_view kTransactionLinkedByIdTag = "TRANSACTION_LINKED_BY_ID_TAG";
// ... its only open transaction ...
inline constexpr std::string_view kTransactionLinkedOnlyOpen = "TRANSACTION_LINKED_ONLY_OPEN";
// ... the open transaction whose start is the latest before the Stop's timestamp.
inline constexpr std::string_view kTransactionLinkedLatestStart = "TRANSACTION_LINKED_LATEST_START";
}  // namespace flag

struct Event {
  std::string event_id;
  std::string charge_point_id;
  std::optional<int64_t> connector_id;
  std::optional<int64_t> evse_id;
  EventType event_type = EventType::Invalid;
  std::string ocpp_action;                // original action ("" for gateway-made events)
  std::optional<std::string> message_id;  // OCPP-J message id, when it could be read
  int64_t event_ts_ms = 0;                // device time; ingest time when the message has none
  int64_t ingest_ts_ms = 0;               // gateway receive time
  std::optional<std::string> transaction_id;
  std::optional<int64_t> seq_no;
  std::optional<std::string> trigger_reason;
  std::optional<double> meter_wh;  // Energy.Active.Import.Register in Wh, cumulative
  std::optional<double> power_w;
  std::optional<double> current_a;
  std::optional<double> voltage_v;
  std::optional<double> soc_pct;
  std::optional<std::string> connector_status;  // normalised enum, see docs/event_contract.md
  std::optional<std::string> error_code;
  std::optional<std::string> stop_reason;
  std::optional<std::string> id_token_hash;  // HMAC-SHA256 hex; raw tokens never leave
  std::string ocpp_version;                  // "1.6" or "2.0.1"
  int schema_version = kSchemaVersion;
  std::string gateway_node;
  std::vector<std::string> flags;
  nlohmann::json extra = nlohmann::json::object();  // unknown fields, never dropped

  bool operator==(const Event&) const = default;
};

// Flat JSON with every contract field present (null when not applicable).
nlohmann::json to_json(const Event& e);
std::string to_json_string(const Event& e);
// Inverse of to_json. Returns nullopt (and sets *error) when a required field is missing or
// has the wrong type; analytics quarantines such input rather than guessing.
std::optional<Event> from_json(const nlohmann::json& j, std::string* error = nullptr);
// from_json(json::parse(text)) read straight from the text, without the tree (analytics reads
// every event back from the log while it catches up, and replays it from Kafka): the event, or
// nullopt whenever that is not certain - text beyond util/json_read.hpp's plain JSON, a required
// member missing, a member whose type from_json would convert, skip or refuse, a repeated
// member, an unknown event_type, an unparsable timestamp. The caller then goes the tree's way,
// which gives the verdict. tests/unit/analytics/event_json_test.cpp holds the two to that.
std::optional<Event> read_event_text(std::string_view text);

// Stable id: SHA-256 over charge point id, message id, action, the payload's bytes and the
// index of the event within its frame, as 32 lowercase hex chars. An exact re-send gives the
// same id; a reused message id with different bytes does not.
std::string make_event_id(std::string_view charge_point_id, std::string_view message_id,
                          std::string_view action, std::string_view payload_bytes, size_t index);

// The same ids as make_event_id for every index of one frame, with the frame's fields hashed
// once: a frame of n events then costs one pass over its payload instead of n (which made a
// large MeterValues frame quadratic). id(i) == make_event_id(..., i), byte for byte.
class EventIdHasher {
 public:
  EventIdHasher(std::string_view charge_point_id, std::string_view message_id,
                std::string_view action, std::string_view payload_bytes);
  ~EventIdHasher();
  EventIdHasher(const EventIdHasher&) = delete;
  EventIdHasher& operator=(const EventIdHasher&) = delete;
  std::string id(size_t index) const;

 private:
  ::evp_md_ctx_st* prefix_;  // digest state after the frame's fields, copied per index
};

// HMAC-SHA256(secret, token) as lowercase hex.
std::string hash_id_token(std::string_view secret, std::string_view token);

}  // namespace ocppgw::analytics
