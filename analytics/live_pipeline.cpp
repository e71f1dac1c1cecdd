// analytics/live_pipeline.cpp: the pipeline's worker thread, bounded queue and event-log
// catch-up.
#include "analytics/live_pipeline.hpp"

#include <limits>

#include <sys/resource.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include "storage/event_log.hpp"
#include "util/thread_name.hpp"

namespace ocppgw::analytics {

namespace {
constexpr size_t kLogReadBatch = 10000;
}

std::unique_ptr<LivePipeline> LivePipeline::start(const Options& options, storage::Status* status) {
  auto pipeline = Pipeline::open(options.pipeline, status);
  if (!pipeline) return nullptr;
  std::unique_ptr<storage::Db> event_log;
  if (!options.event_log_path.empty()) {
    storage::OpenOptions o;
    o.read_only = true;
    event_log = storage::Db::open(options.event_log_path, o, status);
    if (!event_log) return nullptr;
  }
  std::unique_ptr<LivePipeline> live(
      new LivePipeline(std::move(pipeline), std::move(event_log), options));
  live->worker_ = std::thread([p = live.get()] {
    util::name_this_thread("analytics");
    p->run();
  });
  return live;
}

LivePipeline::LivePipeline(std::unique_ptr<Pipeline> pipeline,
                           std::unique_ptr<storage::Db> event_log, Options options)
    : pipeline_(std::move(pipeline)),
      event_log_(std::move(event_log)),
      options_(std::move(options)) {
  stats_.totals = pipeline_->counts();
  stats_.data_clock_ms = pipeline_->data_clock_ms();
  stats_.event_log_seq = pipeline_->event_log_seq();
  // Whatever the log holds past the watermark is read before the first offer.
  gap_ = event_log_ != nullptr;
}

LivePipeline::~LivePipeline() { stop(); }

void LivePipeline::offer(std::shared_ptr<const std::vector<Event>> events, int64_t first_seq,
                         int64_t last_seq) {
  if (!events || events->empty()) return;
  std::unique_lock lock(mu_);
  stats_.offered_seq = std::max(stats_.offered_seq, last_seq);
  if (queued_events_ >= options_.max_queued_events && !stopping_) {
    if (event_log_) {
      // The events are durable in the log; the worker reads them from there.
      ++stats_.dropped_offers;
      gap_ = true;
      not_empty_.notify_one();
      return;
    }
    ++stats_.blocked_offers;
    not_full_.wait(lock, [&] { return queued_events_ < options_.max_queued_events || stopping_; });
  }
  if (queue_.empty()) first_queued_ = std::chrono::steady_clock::now();
  queued_events_ += events->size();
  ++offered_;
  queue_.push_back({std::move(events), first_seq, last_seq});
  stats_.queued_events = static_cast<int64_t>(queued_events_);
  not_empty_.notify_one();
}

void LivePipeline::flush() {
  std::unique_lock lock(mu_);
  const int64_t target = offered_;
  ++flush_waiters_;
  not_empty_.notify_one();
  drained_.wait(
      lock, [&] { return (processed_ >= target && !gap_ && !working_) || !worker_.joinable(); });
  --flush_waiters_;
}

bool LivePipeline::with_pipeline(const std::function<void(Pipeline&)>& task) {
  std::unique_lock lock(mu_);
  if (stopping_) return false;
  bool done = false;
  tasks_.push_back([&] {
    task(*pipeline_);
    std::lock_guard done_lock(mu_);
    done = true;
  });
  not_empty_.notify_one();
  // The worker runs every queued task before it exits, so `done` always comes.
  drained_.wait(lock, [&] { return done; });
  return true;
}

void LivePipeline::run_tasks() {
  std::deque<std::function<void()>> tasks;
  {
    std::lock_guard lock(mu_);
    tasks.swap(tasks_);
  }
  if (tasks.empty()) return;
  for (auto& task : tasks) task();
  drained_.notify_all();
}

void LivePipeline::stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_ && !worker_.joinable()) return;
    stopping_ = true;
  }
  not_empty_.notify_all();
  not_full_.notify_all();
  if (worker_.joinable()) worker_.join();
  drained_.notify_all();
}

nlohmann::json to_json(const LivePipelineStats& s) {
  return {{"events", s.events},
          {"batches", s.batches},
          {"failed_batches", s.failed_batches},
          {"conservation_violations", s.conservation_violations},
          {"queued_events", s.queued_events},
          {"blocked_offers", s.blocked_offers},
          {"dropped_offers", s.dropped_offers},
          {"log_batches", s.log_batches},
          {"log_events", s.log_events},
          {"event_log_seq", s.event_log_seq},
          {"lag_events", s.lag_events()},
          {"data_clock_ms", s.data_clock_ms},
          {"last_batch_us", s.last_batch_us},
          {"totals",
           {{"raw", s.totals.raw},
            {"silver", s.totals.silver},
            {"duplicates", s.totals.duplicates},
            {"quarantine", s.totals.quarantine}}}};
}

LivePipelineStats LivePipeline::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

bool LivePipeline::take(std::vector<Offer>& offers, bool& catch_up) {
  std::unique_lock lock(mu_);
  const bool woken =
      not_empty_.wait_for(lock, std::chrono::milliseconds(options_.idle_sweep_ms), [&] {
        return !queue_.empty() || gap_ || stopping_ || flush_waiters_ > 0 || !tasks_.empty();
      });
  if (queue_.empty() && !gap_ && stopping_) return false;
  if (!woken) return true;  // idle: sweep only
  if (!queue_.empty() && options_.max_linger_ms > 0) {
    // Half the queue, not all of it: the offers that come while this batch runs need room, or
    // they are dropped to the event log and read back from it.
    const size_t enough =
        std::min(options_.max_batch_events, std::max<size_t>(1, options_.max_queued_events / 2));
    not_empty_.wait_until(
        lock, first_queued_ + std::chrono::milliseconds(options_.max_linger_ms), [&] {
          return stopping_ || flush_waiters_ > 0 || !tasks_.empty() || queued_events_ >= enough;
        });
  }
  // Drain into one batch (one transaction): the bigger the backlog, the bigger the batch.
  size_t events = 0;
  while (!queue_.empty() &&
         (events == 0 || events + queue_.front().events->size() <= options_.max_batch_events)) {
    events += queue_.front().events->size();
    queued_events_ -= queue_.front().events->size();
    offers.push_back(std::move(queue_.front()));
    queue_.pop_front();
  }
  if (!queue_.empty()) first_queued_ = std::chrono::steady_clock::now();
  stats_.queued_events = static_cast<int64_t>(queued_events_);
  catch_up = gap_ && event_log_;
  gap_ = false;
  working_ = true;
  return true;
}

void LivePipeline::run() {
  if (options_.worker_nice != 0 &&
      setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), options_.worker_nice) != 0)
    spdlog::warn("analytics: could not set the worker's niceness to {}", options_.worker_nice);
  for (;;) {
    std::vector<Offer> offers;
    bool catch_up_all = false;
    if (!take(offers, catch_up_all)) {
      run_tasks();  // with_pipeline() callers wait for theirs
      return;
    }
    run_tasks();
    not_full_.notify_all();
    bool ok = true;
    if (catch_up_all) ok = catch_up(std::numeric_limits<int64_t>::max());
    if (ok && offers.empty() && !catch_up_all)
      ok = record(pipeline_->sweep(), 0);
    else if (ok)
      ok = process(offers);
    std::unique_lock lock(mu_);
    processed_ += static_cast<int64_t>(offers.size());
    working_ = false;
    if (!ok && event_log_ && !stopping_) {
      // Whatever failed is still in the log; retry from the watermark after a pause, so a
      // persistent failure (disk full) does not spin.
      gap_ = true;
      not_empty_.wait_for(lock, std::chrono::seconds(1), [&] { return stopping_; });
    }
    drained_.notify_all();
  }
}

bool LivePipeline::process(const std::vector<Offer>& offers) {
  if (!event_log_) {
    std::vector<const Event*> batch;
    for (const Offer& o : offers)
      for (const Event& e : *o.events) batch.push_back(&e);
    return ingest(batch, 0);
  }
  // Offers that continue one another form one batch; a gap before an offer is read from the
  // log first. `pos`: the last log seq ingested or in `batch`.
  std::vector<const Event*> batch;
  int64_t pos = pipeline_->event_log_seq();
  auto flush_batch = [&] {
    if (batch.empty()) return true;
    const bool ok = ingest(batch, pos);
    batch.clear();
    return ok;
  };
  for (const Offer& o : offers) {
    if (o.first_seq > pos + 1) {
      if (!flush_batch() || !catch_up(o.first_seq - 1)) return false;
      pos = pipeline_->event_log_seq();
    }
    if (o.last_seq <= pos) continue;  // already read from the log
    // A commit is read from the log whole or not at all, so `pos` inside an offer only happens
    // if the log's rows were not contiguous; skip the part already covered.
    const auto skip = std::min(static_cast<size_t>(std::max<int64_t>(0, pos + 1 - o.first_seq)),
                               o.events->size());
    for (size_t i = skip; i < o.events->size(); ++i) batch.push_back(&(*o.events)[i]);
    pos = o.last_seq;
  }
  return flush_batch();
}

bool LivePipeline::catch_up(int64_t up_to) {
  int64_t after = pipeline_->event_log_seq();
  while (after < up_to) {
    storage::Status s;
    auto rows = storage::read_event_log(*event_log_, after, kLogReadBatch, &s);
    if (!s.ok()) {
      spdlog::error("analytics: reading the event log after seq {} failed: {}", after, s.message());
      return false;
    }
    std::vector<RawInput> inputs;
    inputs.reserve(rows.size());
    for (auto& row : rows) {
      if (row.seq > up_to) break;
      inputs.push_back({std::move(row.json), std::nullopt});
      after = row.seq;
    }
    if (inputs.empty()) return true;
    if (!record(pipeline_->ingest_raw(inputs, Source::EventLog, after), inputs.size(), true))
      return false;
    if (rows.size() < kLogReadBatch) return true;
  }
  return true;
}

bool LivePipeline::ingest(std::span<const Event* const> events, int64_t last_seq) {
  return record(pipeline_->ingest(events, Source::Live, last_seq), events.size(), false, events);
}

bool LivePipeline::record(const BatchReport& r, size_t events, bool from_log,
                          std::span<const Event* const> batch) {
  const bool ok = count(r, events, from_log);
  if (ok && options_.on_batch) options_.on_batch(batch, r);
  return ok;
}

bool LivePipeline::count(const BatchReport& r, size_t events, bool from_log) {
  if (!r.status.ok()) spdlog::error("analytics live batch failed: {}", r.status.message());
  const int64_t watermark = event_log_ && r.status.ok() ? pipeline_->event_log_seq() : 0;
  std::lock_guard lock(mu_);
  if (events > 0) {
    ++stats_.batches;
    stats_.events += static_cast<int64_t>(events);
    if (from_log) {
      ++stats_.log_batches;
      stats_.log_events += static_cast<int64_t>(events);
    }
  }
  // A failed batch was rolled back. With an event log its events are read again from the
  // watermark; without one, `ocppgw rebuild` restores them. The counter and the error log make
  // the failure visible either way.
  if (!r.status.ok()) {
    ++stats_.failed_batches;
    return false;
  }
  if (!r.conservation_ok) ++stats_.conservation_violations;
  stats_.totals = r.totals;
  stats_.data_clock_ms = r.data_clock_ms;
  stats_.last_batch_us = r.duration_us;
  if (event_log_) stats_.event_log_seq = watermark;
  return true;
}

}  // namespace ocppgw::analytics
