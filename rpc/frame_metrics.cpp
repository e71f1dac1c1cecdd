// rpc/frame_metrics.cpp: see frame_metrics.hpp.
#include "rpc/frame_metrics.hpp"

#include <map>
#include <memory>
#include <mutex>

namespace ocppgw::rpc {
namespace {

// Every RpcError, to resolve the CALLERROR counters up front.
constexpr RpcError kAllErrors[] = {
    RpcError::FormationViolation,
    RpcError::ProtocolError,
    RpcError::NotImplemented,
    RpcError::NotSupported,
    RpcError::MessageTypeNotSupported,
    RpcError::RpcFrameworkError,
    RpcError::InternalError,
    RpcError::SecurityError,
    RpcError::PropertyConstraintViolation,
    RpcError::OccurrenceConstraintViolation,
    RpcError::TypeConstraintViolation,
    RpcError::GenericError,
};

metrics::Family<metrics::Counter>& frames() {
  return metrics::process_registry().counter(
      "ocppgw_frames_received_total",
      "OCPP-J frames received from charge points, by version, message type (call, callresult, "
      "callerror, malformed) and, for a CALL, its action (\"other\": not in the version's table).",
      {"version", "type", "action"});
}

// The child of a counter family labelled by version alone.
metrics::Counter& per_version(const Protocol& protocol, const char* name, const char* help) {
  return metrics::process_registry()
      .counter(name, help, {"version"})
      .with({std::string(to_string(protocol.version))});
}

}  // namespace

FrameMetrics& FrameMetrics::of(const Protocol& protocol) {
  static std::mutex mu;
  static std::map<const Protocol*, std::unique_ptr<FrameMetrics>> all;
  std::lock_guard lock(mu);
  auto& slot = all[&protocol];
  if (!slot) slot.reset(new FrameMetrics(protocol));
  return *slot;
}

FrameMetrics::FrameMetrics(const Protocol& protocol)
    : protocol_(protocol),
      other_call_(frames().with({std::string(to_string(protocol.version)), "call", "other"})),
      call_results_(frames().with({std::string(to_string(protocol.version)), "callresult", ""})),
      call_errors_(frames().with({std::string(to_string(protocol.version)), "callerror", ""})),
      malformed_(frames().with({std::string(to_string(protocol.version)), "malformed", ""})),
      ack_latency_(metrics::process_registry()
                       .histogram("ocppgw_ack_latency_seconds",
                                  "From reading a charge point's frame to queueing its reply on "
                                  "the socket, after the frame is durable.",
                                  metrics::latency_buckets(), {"version"})
                       .with({std::string(to_string(protocol.version))})),
      writes_(per_version(protocol, "ocppgw_ws_writes_total",
                          "Writes (sends) to charge points' sockets, by version; each carries one "
                          "or more text messages.")),
      messages_sent_(per_version(
          protocol, "ocppgw_ws_messages_sent_total",
          "Text messages (replies and CSMS calls) sent to charge points, by version.")) {
  const std::string version(to_string(protocol.version));
  for (const auto& spec : protocol.actions)
    calls_.push_back(&frames().with({version, "call", std::string(spec.action)}));
  auto& sent = metrics::process_registry().counter(
      "ocppgw_callerrors_sent_total", "CALLERRORs sent to charge points, by version and code.",
      {"version", "code"});
  errors_sent_.resize(std::size(kAllErrors));
  for (RpcError e : kAllErrors)
    errors_sent_[static_cast<size_t>(e)] =
        &sent.with({version, std::string(wire_name(e, protocol.version))});
}

void FrameMetrics::count(const InboundResult& result) {
  if (!result.type) {
    malformed_.inc();
  } else if (*result.type == MessageType::Call) {
    if (result.spec)
      calls_[static_cast<size_t>(result.spec - protocol_.actions.data())]->inc();
    else
      other_call_.inc();
  } else {
    (*result.type == MessageType::CallResult ? call_results_ : call_errors_).inc();
  }
  if (result.error_code && !result.reply.empty())
    errors_sent_[static_cast<size_t>(*result.error_code)]->inc();
}

}  // namespace ocppgw::rpc
