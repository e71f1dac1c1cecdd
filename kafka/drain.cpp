// kafka/drain.cpp: the publisher thread's loop (see drain.hpp): start/stop, waiting on the
// wake-up pipe, reading the outbox in seq order, batched deletes of delivered rows, and the
// rewind to the lowest undelivered row after a failed delivery or a fatal producer error.
#include "kafka/drain.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <iterator>

#include "util/logging.hpp"
#include "util/thread_name.hpp"

namespace ocppgw::kafka {

using storage::Status;

int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Drain::~Drain() {
  stop();
  if (wake_read_ >= 0) ::close(wake_read_);
  if (wake_write_ >= 0) ::close(wake_write_);
}

Status Drain::start() {
  if (thread_.joinable()) return Status::error("kafka publisher already started");
  if (Status v = config_.validate(); !v.ok()) return v;
  storage::OpenOptions options;
  // Losing a delete on power failure only means a re-send, which consumers dedup; the outbox
  // rows themselves are written durably by the sink.
  options.synchronous_full = false;
  options.busy_timeout_ms = kBusyTimeoutMs;
  Status st;
  db_ = storage::Db::open(config_.db_path, options, &st);
  if (!db_) return Status::error("kafka publisher: " + st.message());
  outbox_ = std::make_unique<storage::Outbox>(*db_);
  if (wake_read_ < 0) {
    int fds[2];
    if (::pipe2(fds, O_NONBLOCK | O_CLOEXEC) != 0)
      return Status::error("kafka publisher: pipe2 failed");
    wake_read_ = fds[0];
    wake_write_ = fds[1];
  }
  work_ = KafkaStats{};
  delivered_at_last_log_ = 0;
  last_log_at_ = Clock::now();
  work_.enabled = config_.enabled();
  work_.running = true;
  work_.topic = config_.topic;
  work_.outbox_high_water = config_.outbox_high_water;
  if (work_.enabled) {
    auto it = config_.properties.find("enable.idempotence");
    if (it != config_.properties.end() && it->second != "true") {
      log::warn("kafka.idempotence_disabled", "",
                {{"note", "per charge point order is not guaranteed across retries"}});
    }
    if (!create_producer()) return Status::error("kafka publisher: " + work_.last_error);
  } else {
    log::warn("kafka.disabled", "",
              {{"reason", "no kafka bootstrap.servers configured; events stay in the outbox"}});
  }
  stopping_ = false;
  refresh_stats(true);
  publish_snapshot();
  thread_ = std::thread([this] {
    util::name_this_thread("kafka-drain");
    run();
  });
  return Status();
}

void Drain::notify() {
  if (wake_write_ >= 0) wake();
}

void Drain::stop() {
  if (!thread_.joinable()) return;
  stopping_ = true;
  wake();
  thread_.join();
  outbox_.reset();
  db_.reset();
}

KafkaStats Drain::stats() const {
  std::lock_guard lock(mu_);
  return snapshot_;
}

void Drain::inject_fatal_error(int rd_kafka_error_code) {
  injected_fatal_ = rd_kafka_error_code;
  notify();
}

void Drain::wake() {
  char b = 1;
  // A full pipe already guarantees a wake-up; the write may fail then.
  [[maybe_unused]] ssize_t n = ::write(wake_write_, &b, 1);
}

void Drain::drain_wake_pipe() {
  char buf[256];
  while (::read(wake_read_, buf, sizeof buf) > 0) {
  }
}

void Drain::wait(std::chrono::milliseconds timeout) {
  pollfd p{wake_read_, POLLIN, 0};
  ::poll(&p, 1, static_cast<int>(std::max<int64_t>(0, timeout.count())));
  drain_wake_pipe();
}

// force: delete now, retrying a busy database for up to a second (before a rewind and at
// shutdown); otherwise only once the batch is big or old enough.
void Drain::flush_deletes(bool force) {
  if (to_delete_.empty()) return;
  if (!force && to_delete_.size() < static_cast<size_t>(kDeleteBatchRows) &&
      Clock::now() - first_delivered_at_ < kDeleteMaxDelay) {
    return;
  }
  Status s;
  for (int attempt = 0; attempt < (force ? 100 : 1); ++attempt) {
    s = outbox_->remove(to_delete_);
    if (s.ok()) {
      to_delete_.clear();
      return;
    }
  }
  // The rows stay; retried shortly, and at worst sent again (consumers dedup by event_id).
  first_delivered_at_ = Clock::now() - kDeleteMaxDelay + kDeleteRetry;
  ++delete_failures_;
  work_.last_error = "outbox delete: " + s.message();
  auto now = Clock::now();
  // A busy lock now and then is normal under load; only a growing backlog is worth a line.
  if (to_delete_.size() >= 10 * static_cast<size_t>(kDeleteBatchRows) &&
      now - last_delete_failure_log_ >= kClientErrorLogEvery) {
    last_delete_failure_log_ = now;
    log::warn("kafka.outbox_delete_retry", "",
              {{"error", s.message()},
               {"pending_deletes", std::to_string(to_delete_.size())},
               {"failures", std::to_string(delete_failures_)}});
  }
}

// Start over from the lowest undelivered row. Called only when nothing is in flight, after
// the delivered rows were deleted: every row left in the outbox is undelivered.
void Drain::rewind() {
  pending_.clear();
  peeked_upto_ = 0;
  queue_full_ = false;
}

void Drain::back_off() {
  resume_at_ = Clock::now() + std::chrono::milliseconds(backoff_ms_);
  backoff_ms_ =
      std::min(backoff_ms_ * 2, std::max(config_.retry_backoff_max_ms, kInitialBackoffMs));
}

void Drain::recreate_after_fatal() {
  ++work_.fatal_errors;
  log::error("kafka.fatal_error", "",
             {{"error", work_.last_error},
              {"in_flight", std::to_string(in_flight_.size())},
              {"action", "recreating producer"}});
  destroy_producer();
  flush_deletes(true);
  fatal_ = false;
  delivery_failed_ = false;
  rewind();
  back_off();
  create_producer();
}

void Drain::drain() {
  while (!stopping_.load(std::memory_order_relaxed) && in_flight_.size() < config_.max_in_flight &&
         !queue_full_ && !fatal_ && !delivery_failed_) {
    if (pending_.empty()) {
      Status s;
      auto rows = outbox_->peek(peeked_upto_, config_.batch_rows, &s);
      if (!s.ok()) {
        work_.last_error = "outbox read: " + s.message();
        log::error("kafka.outbox_read_failed", "", {{"error", s.message()}});
        back_off();
        return;
      }
      if (rows.empty()) return;
      peeked_upto_ = rows.back().seq;
      pending_.assign(std::make_move_iterator(rows.begin()), std::make_move_iterator(rows.end()));
    }
    if (!produce(pending_.front())) return;
    pending_.pop_front();
  }
}

std::chrono::milliseconds Drain::next_timeout() const {
  using std::chrono::milliseconds;
  auto now = Clock::now();
  auto until = [&](Clock::time_point t) {
    return std::chrono::duration_cast<milliseconds>(t - now) + milliseconds(1);
  };
  milliseconds t(config_.poll_interval_ms);
  t = std::min(t, until(next_refresh_));
  if (!to_delete_.empty()) t = std::min(t, until(first_delivered_at_ + kDeleteMaxDelay));
  if (resume_at_ > now) t = std::min(t, until(resume_at_));
  return std::max(t, milliseconds(0));
}

void Drain::run() {
  window_start_ = Clock::now();
  while (true) {
    wait(next_timeout());
    serve_events();
    if (stopping_.load()) break;
    if (int code = injected_fatal_.exchange(0); code != 0 && rk_) {
      rd_kafka_test_fatal_error(rk_, static_cast<rd_kafka_resp_err_t>(code), "injected by test");
      serve_events();
    }
    flush_deletes(false);
    if (config_.enabled()) step_producer();
    refresh_stats(false);
    publish_snapshot();
  }
  shutdown();
}

void Drain::step_producer() {
  if (Clock::now() < resume_at_) return;
  if (!rk_) {
    if (!create_producer()) back_off();
    return;
  }
  if (fatal_) {
    recreate_after_fatal();
    return;
  }
  if (delivery_failed_) {
    // Stop feeding, let librdkafka report what it holds, then start over from the lowest
    // undelivered row after a back-off.
    rd_kafka_purge(rk_, RD_KAFKA_PURGE_F_QUEUE);
    serve_events();
    if (!in_flight_.empty()) return;
    flush_deletes(true);
    delivery_failed_ = false;
    rewind();
    back_off();
    return;
  }
  drain();
}

void Drain::shutdown() {
  if (rk_) {
    auto deadline = Clock::now() + std::chrono::milliseconds(config_.shutdown_flush_ms);
    while (!in_flight_.empty() && !fatal_ && Clock::now() < deadline) {
      rd_kafka_poll(rk_, 50);
    }
    destroy_producer();
  }
  flush_deletes(true);
  refresh_stats(true);
  work_.running = false;
  publish_snapshot();
  log::info("kafka.publisher_stopped", "",
            {{"delivered", std::to_string(work_.delivered)},
             {"outbox_depth", std::to_string(work_.outbox_depth)}});
}

}  // namespace ocppgw::kafka
