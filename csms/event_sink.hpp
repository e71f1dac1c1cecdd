// csms/event_sink.hpp: the durable event log's single writer. Sessions submit one entry per
// inbound frame (raw text, its canonical events, the state writes its handler made); a sink
// thread group-commits everything waiting into one SQLite transaction (frames, events, outbox
// rows, state writes), fsyncs, and only then runs each entry's completion, which posts the
// reply to the session's strand (ack-after-durable). A failed commit is sticky: every later
// submission completes with committed=false and healthy() turns false; nothing is acknowledged
// that was not stored. After each commit the committed events go to the listeners (analytics,
// publisher wake-up), off the ack path.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "analytics/event.hpp"
#include "rpc/write_set.hpp"

namespace ocppgw::csms {

struct SinkEntry {
  std::string charge_point_id;
  std::string raw_frame;  // inbound text as received (may be empty for gateway-made events)
  int64_t received_ms = 0;
  std::vector<analytics::Event> events;
  std::unique_ptr<rpc::WriteSet> writes;  // may be null
  // Runs on the sink thread after the commit (or failure); must only post, never block.
  std::function<void(bool committed)> on_durable;
};

struct SinkStats {
  uint64_t frames_committed = 0;
  uint64_t events_committed = 0;
  uint64_t batches = 0;
  uint64_t last_batch_size = 0;
  double last_commit_ms = 0;
  bool healthy = true;
  std::string last_error;
};

// One commit's events and their positions in the event log (events.seq first_seq..last_seq,
// consecutive).
// The events are shared, not copied: a listener that keeps them (analytics) holds the pointer
// and the sink thread moves on to its next commit at once.
struct CommittedBatch {
  std::shared_ptr<const std::vector<analytics::Event>> events;
  int64_t first_seq = 0;
  int64_t last_seq = 0;
};

class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void submit(SinkEntry entry) = 0;
  virtual bool healthy() const = 0;
  virtual SinkStats stats() const = 0;
  // Called on the sink thread after every successful commit with the batch's events in commit
  // order (event log seq ascending). Register before start.
  using CommitListener = std::function<void(const CommittedBatch&)>;
  virtual void add_commit_listener(CommitListener listener) = 0;
  // Commits everything submitted so far, then stops the thread. Idempotent.
  virtual void stop() = 0;
};

}  // namespace ocppgw::csms
