// rpc/dispatcher.hpp: one inbound text frame -> the reply to send after commit and the
// canonical events to commit. The same code serves every action of every version: parse, look
// up the action, validate the request (strict: CALLERROR; lenient: record and go on), run the
// handler, validate our response, map to events. Pure apart from the CsmsState it calls.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analytics/event.hpp"
#include "rpc/action.hpp"
#include "rpc/frame.hpp"

namespace ocppgw::rpc {

struct InboundResult {
  std::string reply;                     // CALLRESULT/CALLERROR text; empty: send nothing
  std::vector<analytics::Event> events;  // always >= 1 for a CALL or a bad frame
  std::optional<Frame> response;         // a CALLRESULT/CALLERROR from the charge point
  std::string error;                     // why the frame was refused (for the log), if it was
  // The frame as it may be stored: set when the text held id tokens, which are replaced by
  // their HMAC (raw tokens are never stored), or when a refused frame is cut to its first
  // 64 KiB. Unset: store the text as received.
  std::optional<std::string> stored_frame;
  // What the frame was, for the frame and CALLERROR counters (rpc/frame_metrics.hpp): its
  // message type (nullopt: unreadable), the action of a CALL when the version's table has it
  // (null otherwise), and the code when `reply` is a CALLERROR.
  std::optional<MessageType> type;
  const ActionSpec* spec = nullptr;
  std::optional<RpcError> error_code;
  // An accepted SignCertificate: the session has it signed once `reply` is sent.
  std::optional<CertificateRequest> certificate_to_sign;
  // The frame was read into a tape, not a tree (rpc/action.hpp, TapeHandleFn): for the tests
  // and benchmarks that hold the two roads to the same result.
  bool from_tape = false;
};

// `caller` is the connection's context (who, when, mode, state, write set); the frame's own
// message id, action, flags and violations live in a copy, so the caller's context comes back
// unchanged and nothing of one frame leaks into the next.
InboundResult dispatch(const Protocol& protocol, const CallContext& caller, std::string_view text);

// An Invalid event for something that never became a CALL (binary or oversize frame, reply to
// an unknown message id, ...). The raw text (truncated to 64 KiB) is kept in extra.raw.
analytics::Event invalid_event(const CallContext& ctx, std::string_view raw,
                               std::string_view reason);

// A Connection event made by the gateway ("connected"/"disconnected" in extra.state).
analytics::Event connection_event(const CallContext& ctx, std::string_view state,
                                  const nlohmann::json& details);

// A CsmsCall event: a call the gateway sent (ctx.action, ctx.message_id) and how it ended
// (`details` becomes extra; see docs/event_contract.md).
analytics::Event csms_call_event(const CallContext& ctx, const nlohmann::json& details);

// A SecurityEvent made by the gateway when it refused a charge point's handshake with 401 or
// 403 (`details`: source "gateway", type, remote_address, listener, status, reason; see
// docs/event_contract.md).
analytics::Event refusal_security_event(const CallContext& ctx, const nlohmann::json& details);

}  // namespace ocppgw::rpc
