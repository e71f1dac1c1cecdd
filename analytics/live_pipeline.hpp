// analytics/live_pipeline.hpp: runs the analytics Pipeline on its own thread, fed by the event
// sink after each commit (off the ack path).
//
// Gateway wiring (the whole API):
//   storage::Status s;
//   auto live = analytics::LivePipeline::start(options, &s);   // opens data/analytics.db
//   sink.set_commit_listener([&](std::vector<analytics::Event> batch) {
//   live->offer(std::move(batch)); });
//   ...
//   live->stop();   // on shutdown, after the sink has stopped: drains what was offered
// stats() is safe from any thread (for /metrics and the status page).
//
// offer() only moves the batch into a bounded queue and returns. When the queue already holds
// `max_queued_events`, offer() blocks until the worker has taken a batch: analytics must not
// silently miss events (a gap would break the conservation law until a rebuild), so back-
// pressure on the sink is preferred to dropping. The worker drains everything queued into one
// Pipeline batch (one transaction), so a slow commit makes the next batch bigger, not the
// queue longer; in practice the wait is bounded by one batch's processing time.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "analytics/pipeline.hpp"

namespace ocppgw::analytics {

struct LivePipelineStats {
  int64_t batches = 0;
  int64_t events = 0;
  int64_t failed_batches = 0;
  int64_t conservation_violations = 0;
  int64_t queued_events = 0;
  int64_t blocked_offers = 0;  // offers that had to wait for queue space
  int64_t data_clock_ms = 0;
  int64_t last_batch_us = 0;
  ConservationCounts totals;
};

class LivePipeline {
 public:
  struct Options {
    PipelineOptions pipeline;
    size_t max_queued_events = 200000;
    size_t max_batch_events = 50000;
    // The sweeper also runs when no events arrive, so idle sessions time out on schedule.
    int idle_sweep_ms = 30000;
  };

  static std::unique_ptr<LivePipeline> start(const Options& options, storage::Status* status);
  ~LivePipeline();  // calls stop()
  LivePipeline(const LivePipeline&) = delete;
  LivePipeline& operator=(const LivePipeline&) = delete;

  void offer(std::vector<Event> events);
  // Processes everything offered so far, then stops the thread. Idempotent.
  void stop();
  // Blocks until everything offered before the call has been processed (tests, rebuild).
  void flush();
  LivePipelineStats stats() const;

 private:
  LivePipeline(std::unique_ptr<Pipeline> pipeline, Options options);
  void run();

  std::unique_ptr<Pipeline> pipeline_;
  Options options_;
  mutable std::mutex mu_;
  std::condition_variable not_empty_, not_full_, drained_;
  std::deque<std::vector<Event>> queue_;
  size_t queued_events_ = 0;
  int64_t offered_ = 0, processed_ = 0;
  bool stopping_ = false;
  LivePipelineStats stats_;
  std::thread worker_;
};

}  // namespace ocppgw::analytics
