// analytics/live_pipeline.hpp: runs the analytics Pipeline on its own thread, fed by the event
// sink after each commit (off the ack path).
//
// Gateway wiring (the whole API):
//   storage::Status s;
//   options.event_log_path = "data/ocppgw.db";
//   auto live = analytics::LivePipeline::start(options, &s);   // opens data/analytics.db
//   sink.add_commit_listener([&](const CommittedBatch& b) {
//     live->offer(b.events, b.first_seq, b.last_seq); });
//   ...
//   live->stop();   // on shutdown, after the sink has stopped: drains what was offered
// stats() is safe from any thread (for /metrics and the status page).
//
// Exactly-once into analytics, with the gateway's event log as the source of truth: every batch
// commits the log seq of its last event as a watermark in the same transaction. At start the
// worker reads from the log whatever lies past the watermark (events acknowledged just before a
// crash, or everything when analytics.db is new), and whenever an offer does not continue at the
// watermark it reads the gap from the log first. Offers already covered are skipped. So offer()
// never has to block the sink: when the queue is full it drops the offer, and the events come
// back from the log. Because of this the store can run with synchronous=NORMAL: a power loss
// rolls it back to an earlier consistent state whose watermark is still right.
//
// Without an event log (tests, tools) offer() blocks when `max_queued_events` are queued instead,
// because a dropped offer could not be recovered.
//
// Batching: the worker lingers up to `max_linger_ms` after the first offer so that one Pipeline
// batch (one transaction, one Gold recompute per touched key) covers many commits; under load the
// backlog makes batches bigger, not the queue longer. Gold tables therefore trail the event log
// by about the linger time. The linger is what a batch costs per event: each batch rewrites every
// index page its events touch (event ids and business keys land on different pages), so events
// that share a batch share those writes. At 5,000 CALLs/s a 1 s linger writes a third of what
// 250 ms did and takes about a third less CPU per event (BENCHMARKS.md, "the analytics batch's
// linger").
// It ends early once half of `max_queued_events` wait, so offers still find room meanwhile.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
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
  int64_t blocked_offers = 0;  // offers that had to wait for queue space (no event log)
  int64_t dropped_offers = 0;  // offers left to the event log because the queue was full
  int64_t log_batches = 0;     // batches read back from the event log (start-up, gaps)
  int64_t log_events = 0;
  int64_t event_log_seq = 0;  // watermark: last event-log seq ingested
  int64_t offered_seq = 0;    // last event-log seq offered (dropped offers included)
  int64_t data_clock_ms = 0;
  int64_t last_batch_us = 0;
  ConservationCounts totals;
  // Events committed to the log but not yet in analytics.
  int64_t lag_events() const { return std::max<int64_t>(0, offered_seq - event_log_seq); }
};

// For /health: counters, the watermark and the lag.
nlohmann::json to_json(const LivePipelineStats& s);

class LivePipeline {
 public:
  struct Options {
    PipelineOptions pipeline;
    // The gateway's SQLite event log (read-only here); empty: no watermark and no catch-up.
    std::string event_log_path;
    // About 1.5 KB per queued event; with an event log, a full queue costs nothing but a later
    // read from the log, so it stays small.
    size_t max_queued_events = 20000;
    size_t max_batch_events = 50000;
    int max_linger_ms = 1000;
    // Niceness of the worker thread (Linux: per thread). Analytics trails the acknowledged log
    // and catches up from it, so under CPU contention it should yield to the threads that
    // acknowledge frames: a positive value keeps its batch bursts off the ack latency.
    int worker_nice = 0;
    // The sweeper also runs when no events arrive, so idle sessions time out on schedule.
    int idle_sweep_ms = 30000;
    // Runs on the worker after each batch committed to the store, with the batch's events
    // (empty when they were read back from the event log, report.source EventLog, or for a
    // sweep, Maintenance) and its report. The gateway's live stream learns here what the read
    // API now answers differently. Must be cheap and must not call into this pipeline.
    std::function<void(std::span<const Event* const> events, const BatchReport& report)> on_batch;
  };

  static std::unique_ptr<LivePipeline> start(const Options& options, storage::Status* status);
  ~LivePipeline();  // calls stop()
  LivePipeline(const LivePipeline&) = delete;
  LivePipeline& operator=(const LivePipeline&) = delete;

  // `first_seq`..`last_seq`: the events' positions in the event log (0 when there is none).
  // The events are shared with the caller (the sink's commit), so offering copies nothing.
  void offer(std::shared_ptr<const std::vector<Event>> events, int64_t first_seq = 0,
             int64_t last_seq = 0);
  void offer(std::vector<Event> events, int64_t first_seq = 0, int64_t last_seq = 0) {
    offer(std::make_shared<const std::vector<Event>>(std::move(events)), first_seq, last_seq);
  }
  // Processes everything offered so far, then stops the thread. Idempotent.
  void stop();
  // Blocks until everything offered before the call has been processed (tests, rebuild).
  void flush();
  LivePipelineStats stats() const;
  // Runs `task` with the pipeline on the worker thread, between batches, and waits for it: the
  // worker is the store's single writer, so operator actions on it (quarantine repair, discard,
  // replay from the REST API) go through here. False (task not run) once stopping.
  bool with_pipeline(const std::function<void(Pipeline&)>& task);

 private:
  struct Offer {
    std::shared_ptr<const std::vector<Event>> events;
    int64_t first_seq = 0, last_seq = 0;
  };

  LivePipeline(std::unique_ptr<Pipeline> pipeline, std::unique_ptr<storage::Db> event_log,
               Options options);
  void run();
  // Takes the next batch of offers, after the linger; false when stopping and nothing is left.
  bool take(std::vector<Offer>& offers, bool& catch_up);
  // Ingests the offers in log order, reading any gap before them from the event log. These
  // return false when a batch failed (it was rolled back).
  bool process(const std::vector<Offer>& offers);
  // Reads the event log past the watermark up to `up_to` (inclusive) into the pipeline.
  bool catch_up(int64_t up_to);
  // `events` point into the offers being processed: a batch copies no event.
  bool ingest(std::span<const Event* const> events, int64_t last_seq);
  // Counts the batch and tells options_.on_batch about it (`batch`: its events, when known).
  bool record(const BatchReport& r, size_t events, bool from_log = false,
              std::span<const Event* const> batch = {});
  bool count(const BatchReport& r, size_t events, bool from_log);
  // Runs the queued with_pipeline() tasks (worker thread; REQUIRES: mu_ not held).
  void run_tasks();

  std::unique_ptr<Pipeline> pipeline_;
  std::unique_ptr<storage::Db> event_log_;  // null without an event log
  Options options_;
  mutable std::mutex mu_;
  std::condition_variable not_empty_, not_full_, drained_;
  std::deque<Offer> queue_;
  size_t queued_events_ = 0;
  std::chrono::steady_clock::time_point first_queued_;
  int64_t offered_ = 0, processed_ = 0;
  bool gap_ = false;       // an offer was dropped: read the log up to its end
  bool working_ = false;   // the worker holds a batch taken from the queue
  int flush_waiters_ = 0;  // a flush() skips the linger
  bool stopping_ = false;
  std::deque<std::function<void()>> tasks_;  // with_pipeline(); run by the worker
  LivePipelineStats stats_;
  std::thread worker_;
};

}  // namespace ocppgw::analytics
