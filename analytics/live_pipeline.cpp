// analytics/live_pipeline.cpp: the pipeline's worker thread and bounded queue.
#include "analytics/live_pipeline.hpp"

#include <chrono>

#include <spdlog/spdlog.h>

namespace ocppgw::analytics {

std::unique_ptr<LivePipeline> LivePipeline::start(const Options& options, storage::Status* status) {
  auto pipeline = Pipeline::open(options.pipeline, status);
  if (!pipeline) return nullptr;
  std::unique_ptr<LivePipeline> live(new LivePipeline(std::move(pipeline), options));
  live->worker_ = std::thread([p = live.get()] { p->run(); });
  return live;
}

LivePipeline::LivePipeline(std::unique_ptr<Pipeline> pipeline, Options options)
    : pipeline_(std::move(pipeline)), options_(std::move(options)) {
  stats_.totals = pipeline_->counts();
  stats_.data_clock_ms = pipeline_->data_clock_ms();
}

LivePipeline::~LivePipeline() { stop(); }

void LivePipeline::offer(std::vector<Event> events) {
  if (events.empty()) return;
  std::unique_lock lock(mu_);
  if (queued_events_ >= options_.max_queued_events && !stopping_) {
    ++stats_.blocked_offers;
    not_full_.wait(lock, [&] { return queued_events_ < options_.max_queued_events || stopping_; });
  }
  queued_events_ += events.size();
  ++offered_;
  queue_.push_back(std::move(events));
  stats_.queued_events = static_cast<int64_t>(queued_events_);
  not_empty_.notify_one();
}

void LivePipeline::flush() {
  std::unique_lock lock(mu_);
  const int64_t target = offered_;
  drained_.wait(lock, [&] { return processed_ >= target || !worker_.joinable(); });
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

LivePipelineStats LivePipeline::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

void LivePipeline::run() {
  for (;;) {
    std::vector<Event> batch;
    int64_t taken = 0;
    {
      std::unique_lock lock(mu_);
      bool ready = not_empty_.wait_for(lock, std::chrono::milliseconds(options_.idle_sweep_ms),
                                       [&] { return !queue_.empty() || stopping_; });
      if (queue_.empty() && stopping_) return;
      if (ready || !queue_.empty()) {
        // Drain into one batch (one transaction): the bigger the backlog, the bigger the batch.
        while (!queue_.empty() && (batch.empty() || batch.size() + queue_.front().size() <=
                                                        options_.max_batch_events)) {
          auto& front = queue_.front();
          queued_events_ -= front.size();
          if (batch.empty())
            batch = std::move(front);
          else
            batch.insert(batch.end(), std::make_move_iterator(front.begin()),
                         std::make_move_iterator(front.end()));
          queue_.pop_front();
          ++taken;
        }
        stats_.queued_events = static_cast<int64_t>(queued_events_);
      }
    }
    not_full_.notify_all();
    BatchReport r = batch.empty() ? pipeline_->sweep() : pipeline_->ingest(batch, Source::Live);
    if (!r.status.ok()) spdlog::error("analytics live batch failed: {}", r.status.message());
    std::lock_guard lock(mu_);
    processed_ += taken;
    if (!batch.empty()) {
      ++stats_.batches;
      stats_.events += static_cast<int64_t>(batch.size());
    }
    // A failed batch was rolled back: its events are still in the gateway's durable log and
    // come back with `ocppgw rebuild`; the counter and the error log make the gap visible.
    if (!r.status.ok()) {
      ++stats_.failed_batches;
    } else {
      if (!r.conservation_ok) ++stats_.conservation_violations;
      stats_.totals = r.totals;
      stats_.data_clock_ms = r.data_clock_ms;
      stats_.last_batch_us = r.duration_us;
    }
    drained_.notify_all();
  }
}

}  // namespace ocppgw::analytics
