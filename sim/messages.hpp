// sim/messages.hpp: what a simulated charge point sends, as version-neutral specs (OutMsg),
// and the one function that turns a spec into an OCPP-J CALL for 1.6 or 2.0.1. Specs are
// serialised at send time so a 1.6 frame queued before its StartTransaction was answered
// still carries the transaction id the gateway assigned.
// Pure functions and plain values; no threading concerns.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace ocppgw::sim {

enum class Version { v16, v201 };

inline std::string_view subprotocol(Version v) {
  return v == Version::v16 ? "ocpp1.6" : "ocpp2.0.1";
}
inline std::string_view version_name(Version v) { return v == Version::v16 ? "1.6" : "2.0.1"; }
// The status a connector with a session reports: 2.0.1 connector statuses have no Charging
// (whether energy flows is a TransactionEvent matter there).
inline std::string_view occupied_status(Version v) {
  return v == Version::v16 ? "Charging" : "Occupied";
}

// One charging session on one connector, shared by the frames that belong to it.
struct Session {
  int connector = 1;
  std::string tx_id;  // 1.6: assigned by the gateway (empty until answered); 2.0.1: ours
  std::string id_tag;
  int64_t meter_start = 0;
  int64_t meter = 0;          // last register value sent
  int64_t start_ts = 0;       // device time of the start
  int64_t end_steady_ms = 0;  // planned end (simulator clock)
  int64_t started_steady_ms = 0;
  int64_t seq_no = 0;  // 2.0.1 TransactionEvent sequence
  int ticks = 0;
  int reset_at_tick = -1;  // meter-reset fault: the register drops to 0 at this tick
  bool offline_start = false;
  bool minus1 = false;   // 1.6: frames after the start carry transactionId -1
  bool anomaly = false;  // a meter reset happened: the energy is not start/stop exact
  bool stop_queued = false;
  int truth_index = -1;  // row in the shard's ground truth, once known
};

enum class MsgKind { Boot, Status, Heartbeat, Authorize, Start, Meter, Stop };

enum class Injected { None, BusinessDup, Conflict, ExactResend, StormBacklog };

struct OutMsg {
  MsgKind kind = MsgKind::Heartbeat;
  int connector = 0;
  std::shared_ptr<Session> session;
  int64_t ts_ms = 0;  // device timestamp (clock skew applied)
  int64_t meter_wh = 0;
  int64_t power_w = 0;
  std::string status;    // StatusNotification
  std::string tx_event;  // 2.0.1: Started | Updated | Ended
  int64_t seq_no = 0;    // 2.0.1
  bool offline = false;  // generated while disconnected
  Injected injected = Injected::None;
  bool maybe_duplicate = false;  // re-sent after its connection dropped before the answer
  std::string message_id;        // fixed once sent (an exact re-send reuses it)
  std::string text;              // the frame as first sent
};

std::string_view action_name(MsgKind kind, Version v);
// The action of the frame m becomes (2.0.1 meter readings outside a session are MeterValues).
std::string_view call_action(const OutMsg& m, Version v);

// [2,"<id>","<Action>",{...}] for the spec.
std::string build_call(const OutMsg& m, Version v, std::string_view message_id,
                       std::string_view cp_id);
// A frame that parses as JSON and as OCPP-J but whose payload violates the official schema in
// a way neither strict nor lenient mode can handle (a string where an integer is required).
std::string build_schema_invalid_call(Version v, std::string_view message_id, int64_t ts_ms);
// Invalid JSON whose message id is still readable, so the gateway can answer a CALLERROR.
std::string build_corrupt_call(const std::string& valid_text);

}  // namespace ocppgw::sim
