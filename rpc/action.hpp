// rpc/action.hpp: the contract between the version-neutral OCPP-J layer and the
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
#include "rpc/csms_state.hpp"
#include "rpc/rpc_error.hpp"
#include "rpc/write_set.hpp"
#include "util/json_tape.hpp"

namespace ocppgw::rpc {

class SchemaSet;
struct CallContext;
class EventBuilder;

enum class ValidationMode { Strict, Lenient };

// Gateway-wide settings handlers and mappers read.
// The actions that carry bulk data (meter data, reports, vendor data) and so may be larger than
// Policy::max_call_bytes.
inline std::vector<std::string> default_large_call_actions() {
  return {"DataTransfer",
          "MeterValues",
          "StopTransaction",
          "TransactionEvent",
          "NotifyReport",
          "NotifyMonitoringReport",
          "NotifyCustomerInformation",
          "NotifyEVChargingSchedule",
          "ReportChargingProfiles",
          "NotifyDisplayMessages"};
}

struct Policy {
  int heartbeat_interval_s = 300;
  std::string id_token_secret;  // HMAC key for id_token_hash
  std::string gateway_node = "node-0";
  // Most events one frame may produce; a larger CALL is refused (OccurrenceConstraintViolation)
  // so that one charge point cannot make the gateway build and store unbounded batches.
  size_t max_events_per_frame = 1000;
  // Most CALLs are a few hundred bytes; only actions that carry bulk data (large_call_actions)
  // may be larger than max_call_bytes (up to the session's max_frame_bytes). A smaller cap for
  // the rest keeps a flood of oversize Heartbeats from costing parse time and log space.
  size_t max_call_bytes = 64 * 1024;
  std::vector<std::string> large_call_actions = default_large_call_actions();
  // Read the hot actions' frames into a tape, not a tree (ActionSpec::tape_handle). Off, every
  // frame takes the tree: the reference the tape road is compared with (tests, dispatch_bench).
  bool tape_reads = true;
};

// Everything a handler or mapper knows about the frame it is working on. One per frame: it owns
// its strings (the dispatcher fills message_id and action from the parsed frame), so it stays
// valid after dispatch() returns, e.g. for an Invalid event the session builds afterwards.
struct CallContext {
  std::string charge_point_id;
  OcppVersion version = OcppVersion::v16;
  std::string message_id;
  std::string action;
  int64_t ingest_ts_ms = 0;
  ValidationMode mode = ValidationMode::Strict;
  const Policy& policy;
  CsmsState& state;
  WriteSet* writes = nullptr;
  // Set by handlers and the dispatcher; copied onto every event of the frame.
  std::vector<std::string> flags;
  nlohmann::json violations = nlohmann::json::array();  // lenient-mode schema violations
  // 1.6: the transaction a -1 / never-issued id was resolved to by the handler (linked id or
  // synthetic run id); mappers put it in transaction_id and keep the sent id in extra.
  std::optional<std::string> resolved_transaction_id = std::nullopt;
  // An accepted certificate signing request: once the answer is sent, the gateway has it signed
  // and sends CertificateSigned (handlers do no I/O; gateway/certificate_service.hpp).
  std::optional<CertificateRequest> certificate_to_sign = std::nullopt;
  // Set by a handler that refused a request for a security reason (e.g. a CSR for another
  // identity): the frame's events get a SecurityEvent (source "gateway") with these details.
  std::optional<nlohmann::json> security_finding = std::nullopt;
};

using HandleResult = std::variant<nlohmann::json, CallError>;
using HandleFn = HandleResult (*)(CallContext& ctx, const nlohmann::json& request);
// Appends the frame's canonical events; `response` is what was sent (e.g. the assigned id).
using MapFn = void (*)(const CallContext& ctx, const nlohmann::json& request,
                       const nlohmann::json& response, EventBuilder& out);

// The same handler and mapper reading the request from a tape (util/json_tape.hpp) instead of
// a tree: for the actions that make up most of the traffic (meter values, status notifications,
// heartbeats, 2.0.1 transaction events), whose handler and mapper are templates instantiated for
// both.
// rpc::dispatch takes this road for a strict-mode CALL the tape reads and the schema's fast check
// accepts; anything else, and every other action, takes the tree.
using TapeHandleFn = HandleResult (*)(CallContext& ctx, const util::JsonTape::Value& request);
using TapeMapFn = void (*)(const CallContext& ctx, const util::JsonTape::Value& request,
                           const nlohmann::json& response, EventBuilder& out);

struct ActionSpec {
  std::string_view action;
  HandleFn handle;
  MapFn to_events;
  TapeHandleFn tape_handle = nullptr;  // both set, or neither
  TapeMapFn tape_to_events = nullptr;
};

// One OCPP version: its schemas (names "<Action><request_suffix>" and "<Action>Response"), its
// table of charge point->CSMS actions and the list of CSMS->charge point actions.
struct Protocol {
  OcppVersion version;
  const SchemaSet& schemas;
  std::string_view request_suffix;  // "" for 1.6, "Request" for 2.0.1
  std::span<const ActionSpec> actions;
  // The actions the central system may send to a charge point (CSMS->CP direction).
  std::span<const std::string_view> csms_calls;

  const ActionSpec* find(std::string_view action) const;
  bool is_csms_call(std::string_view action) const;
};

}  // namespace ocppgw::rpc
