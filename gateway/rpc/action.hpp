// gateway/rpc/action.hpp: the contract between the version-neutral OCPP-J layer and the
// version packages (ocpp16/, ocpp201/). A version is one table of ActionSpec rows: action name,
// handler (request -> response), mapper (request + response -> canonical events). Schemas are
// looked up by name, so a row carries no boilerplate. Handlers and mappers are pure functions of
// their inputs and of CsmsState; they do no I/O and never block.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "analytics/event.hpp"
#include "gateway/rpc/rpc_error.hpp"

namespace ocppgw::rpc {

class SchemaSet;
class CsmsState;
struct CallContext;
class EventBuilder;

enum class ValidationMode { Strict, Lenient };

// Gateway-wide settings handlers and mappers read.
struct Policy {
  int heartbeat_interval_s = 300;
  std::string id_token_secret;  // HMAC key for id_token_hash
  std::string gateway_node = "node-0";
};

// ---- Decisions of the CSMS state (implemented over SQLite in gateway/, faked in tests) ----

struct IdTokenInfo {
  std::string status =
      "Invalid";  // Accepted | Blocked | Expired | Invalid | ConcurrentTx | Unknown
  std::optional<int64_t> expiry_ms;
  std::optional<std::string> parent_id;  // 1.6 parentIdTag / 2.0.1 groupIdToken
};

struct BootInfo {
  std::string vendor;
  std::string model;
  std::optional<std::string> serial_number;
  std::optional<std::string> firmware_version;
  std::optional<std::string> reason;  // 2.0.1
};

struct BootDecision {
  std::string status = "Accepted";  // Accepted | Pending | Rejected
  int interval_s = 300;
};

struct StartTransaction16 {
  int64_t connector_id = 0;
  std::string id_tag;
  int64_t timestamp_ms = 0;
  int64_t meter_start_wh = 0;
  std::optional<int64_t> reservation_id;
};

struct StartTransaction16Result {
  int32_t transaction_id = 0;
  IdTokenInfo id_tag_info;
  bool replay = false;  // an identical StartTransaction was seen before: same id returned
};

struct StopTransaction16 {
  int64_t transaction_id = 0;
  std::optional<std::string> id_tag;
  int64_t timestamp_ms = 0;
  int64_t meter_stop_wh = 0;
  std::optional<std::string> reason;
};

struct StopTransaction16Result {
  bool known = false;  // false: never issued (or -1); answered anyway, flagged on the events
  std::optional<IdTokenInfo> id_tag_info;
};

struct TransactionEvent201 {
  std::string transaction_id;
  std::string event_type;  // Started | Updated | Ended
  int64_t seq_no = 0;
  int64_t timestamp_ms = 0;
  bool offline = false;
  std::optional<int64_t> evse_id;
  std::optional<int64_t> connector_id;
  std::optional<std::string> id_token;
  std::optional<std::string> stopped_reason;
};

struct TransactionEvent201Result {
  std::vector<std::string> flags;  // analytics::flag values (unknown tx, seq gaps, ...)
  std::optional<IdTokenInfo> id_token_info;
};

// What handlers may ask. Methods run on the calling session's strand, must be thread-safe
// across sessions, and record what must be persisted into ctx (committed with the frame).
class CsmsState {
 public:
  virtual ~CsmsState() = default;
  virtual BootDecision boot(CallContext& ctx, const BootInfo& info) = 0;
  virtual IdTokenInfo authorize(CallContext& ctx, std::string_view id_token) = 0;
  virtual StartTransaction16Result start_transaction(CallContext& ctx,
                                                     const StartTransaction16& req) = 0;
  virtual StopTransaction16Result stop_transaction(CallContext& ctx,
                                                   const StopTransaction16& req) = 0;
  // 1.6 MeterValues: is this id one we issued to this charge point?
  virtual bool transaction_known(CallContext& ctx, int64_t transaction_id) = 0;
  virtual TransactionEvent201Result transaction_event(CallContext& ctx,
                                                      const TransactionEvent201& req) = 0;
  // 2.0.1 NotifyReport: device-model report data stored per charge point.
  virtual void store_report(CallContext& ctx, int64_t request_id, int64_t seq_no,
                            const nlohmann::json& report_data) = 0;
  // False once the state could not decide something it had to (e.g. no transaction id could
  // be reserved); /health reports it so operators learn before charge points do.
  virtual bool healthy() const { return true; }
  virtual std::string last_error() const { return {}; }
};

// Opaque per-frame set of storage writes (defined by the gateway); handlers only pass it on.
struct WriteSet;

// Everything a handler or mapper knows about the frame it is working on.
struct CallContext {
  std::string_view charge_point_id;
  OcppVersion version = OcppVersion::v16;
  std::string_view message_id;
  std::string_view action;
  int64_t ingest_ts_ms = 0;
  ValidationMode mode = ValidationMode::Strict;
  const Policy& policy;
  CsmsState& state;
  WriteSet* writes = nullptr;
  // Set by handlers and the dispatcher; copied onto every event of the frame.
  std::vector<std::string> flags;
  nlohmann::json violations = nlohmann::json::array();  // lenient-mode schema violations
};

using HandleResult = std::variant<nlohmann::json, CallError>;
using HandleFn = HandleResult (*)(CallContext& ctx, const nlohmann::json& request);
// Appends the frame's canonical events; `response` is what was sent (e.g. the assigned id).
using MapFn = void (*)(const CallContext& ctx, const nlohmann::json& request,
                       const nlohmann::json& response, EventBuilder& out);

struct ActionSpec {
  std::string_view action;
  HandleFn handle;
  MapFn to_events;
};

// One OCPP version: its schemas (names "<Action><request_suffix>" and "<Action>Response") and
// its action table.
struct Protocol {
  OcppVersion version;
  const SchemaSet& schemas;
  std::string_view request_suffix;  // "" for 1.6, "Request" for 2.0.1
  std::span<const ActionSpec> actions;

  const ActionSpec* find(std::string_view action) const;
};

}  // namespace ocppgw::rpc
