// rpc/frame_metrics.hpp: the counters of one OCPP version's frames, resolved once so that
// counting a frame is one atomic increment (util/metrics.hpp):
//   ocppgw_frames_received_total{version, type, action}  type call|callresult|callerror|malformed;
//       action: the CALL's action when the version's table has it, "other" for any other CALL
//       (bounded labels whatever a charge point sends), "" for frames that are not a CALL
//   ocppgw_callerrors_sent_total{version, code}          the code as sent on the wire
//   ocppgw_ack_latency_seconds{version}                  frame read -> its reply queued on the
//       socket, after the commit (ack-after-durable), CALLRESULT and CALLERROR alike
//   ocppgw_ws_writes_total{version}, ocppgw_ws_messages_sent_total{version}  socket writes to
//       charge points and the text messages they carried (a write carries one or more)
// Thread-safety: every method may be called from any thread.
#pragma once

#include <cstddef>
#include <vector>

#include "rpc/action.hpp"
#include "rpc/dispatcher.hpp"
#include "util/metrics.hpp"

namespace ocppgw::rpc {

class FrameMetrics {
 public:
  // The counters of `protocol`'s version, created on the first call for that version (the
  // call takes a lock: resolve once per connection, not per frame).
  static FrameMetrics& of(const Protocol& protocol);

  // A frame dispatch() handled: received by type and action, and the CALLERROR it answers with.
  void count(const InboundResult& result);
  // A frame refused before dispatch (binary, oversize): malformed, never answered.
  void count_malformed() { malformed_.inc(); }
  void observe_ack(double seconds) { ack_latency_.observe(seconds); }
  // One write to a charge point's socket carrying `messages` text messages (replies and CSMS
  // calls): their ratio says how many replies a commit's acknowledgements put in one send.
  void count_write(size_t messages) {
    writes_.inc();
    messages_sent_.inc(messages);
  }

 private:
  explicit FrameMetrics(const Protocol& protocol);
  const Protocol& protocol_;
  std::vector<metrics::Counter*> calls_;  // per entry of protocol_.actions
  metrics::Counter& other_call_;
  metrics::Counter& call_results_;
  metrics::Counter& call_errors_;
  metrics::Counter& malformed_;
  std::vector<metrics::Counter*> errors_sent_;  // per RpcError
  metrics::Histogram& ack_latency_;
  metrics::Counter& writes_;
  metrics::Counter& messages_sent_;
};

}  // namespace ocppgw::rpc
