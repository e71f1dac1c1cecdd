// kafka/drain.hpp: the publisher's private half: Drain owns the publisher thread, its SQLite
// connection, the librdkafka producer and the drain state (what was peeked, produced, delivered
// and not yet deleted). KafkaPublisher (publisher.hpp) is a thin handle on it; the behaviour
// is described there and in docs/kafka.md.
//
// Threading: start/stop from one thread (not concurrently); notify(), stats() and
// inject_fatal_error() from any thread. Every other member runs on the publisher thread only:
// librdkafka's callbacks are served by rd_kafka_poll() there too, so the drain state needs no
// locks. Only the stats snapshot (mu_) and the wake-up pipe are shared. The thread sleeps in
// poll(2) on that pipe; librdkafka writes to it when its main queue (delivery reports, errors)
// becomes non-empty, notify() writes to it after a commit, so the loop neither spins nor waits
// longer than needed.
//
// The members are split over three files by job: drain.cpp (lifecycle, loop, outbox reads and
// deletes, rewind), producer.cpp (librdkafka handle, produce, callbacks), drain_stats.cpp (stats
// window, high-water alert, snapshot).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <librdkafka/rdkafka.h>

#include "kafka/config.hpp"
#include "kafka/publisher.hpp"
#include "storage/outbox.hpp"

namespace ocppgw::kafka {

using Clock = std::chrono::steady_clock;

// Deletes are batched: every delete transaction competes with the event sink for SQLite's write
// lock, and the sink's commits are on the charge points' ack path.
inline constexpr int kDeleteBatchRows = 10000;
inline constexpr auto kDeleteMaxDelay = std::chrono::milliseconds(100);
// The publisher never waits long for the write lock (the sink may hold it through an fsync);
// a delete that finds it busy is retried shortly.
inline constexpr int kBusyTimeoutMs = 10;
inline constexpr auto kDeleteRetry = std::chrono::milliseconds(10);
inline constexpr int kInitialBackoffMs = 250;
inline constexpr auto kClientErrorLogEvery = std::chrono::seconds(60);
inline constexpr size_t kLatencySamplesPerWindow = 100000;

// Wall clock in ms, comparable with the outbox rows' ingest_ts_ms.
int64_t wall_ms();

class Drain {
 public:
  explicit Drain(KafkaConfig c) : config_(std::move(c)) {}
  ~Drain();  // stop(), then closes the wake-up pipe
  Drain(const Drain&) = delete;
  Drain& operator=(const Drain&) = delete;

  // The KafkaPublisher operations (publisher.hpp).
  storage::Status start();
  void notify();
  void stop();
  KafkaStats stats() const;
  void inject_fatal_error(int rd_kafka_error_code);

 private:
  // ---- loop (drain.cpp) ----
  void wake();
  void drain_wake_pipe();
  void wait(std::chrono::milliseconds timeout);
  std::chrono::milliseconds next_timeout() const;
  void run();
  void step_producer();
  void drain();
  void flush_deletes(bool force);
  void rewind();
  void back_off();
  void recreate_after_fatal();
  void shutdown();

  // ---- producer (producer.cpp) ----
  bool create_producer();
  void destroy_producer();
  bool produce(const storage::OutboxRow& row);
  void serve_events();
  static void on_delivery_cb(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque);
  static void on_error_cb(rd_kafka_t* handle, int err, const char* reason, void* opaque);
  void on_delivery(const rd_kafka_message_t* m);
  void on_error(rd_kafka_t* handle, rd_kafka_resp_err_t err, const char* reason);

  // ---- stats (drain_stats.cpp) ----
  void refresh_stats(bool force);
  void check_high_water();
  void publish_snapshot();

  KafkaConfig config_;
  std::unique_ptr<storage::Db> db_;
  std::unique_ptr<storage::Outbox> outbox_;
  int wake_read_ = -1;
  int wake_write_ = -1;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> injected_fatal_{0};

  mutable std::mutex mu_;
  KafkaStats snapshot_;  // guarded by mu_

  // ---- publisher thread only ----
  rd_kafka_t* rk_ = nullptr;
  rd_kafka_topic_t* rkt_ = nullptr;
  rd_kafka_queue_t* main_queue_ = nullptr;
  KafkaStats work_;                                 // the thread's live copy of the stats
  std::deque<storage::OutboxRow> pending_;          // peeked, not yet produced
  int64_t peeked_upto_ = 0;                         // highest seq read from the outbox
  std::unordered_map<int64_t, int64_t> in_flight_;  // seq -> ingest_ts_ms
  std::vector<int64_t> to_delete_;                  // delivered, delete not yet committed
  Clock::time_point first_delivered_at_{};
  bool delivery_failed_ = false;  // drain paused until in-flight settles, then rewind
  bool fatal_ = false;
  bool queue_full_ = false;
  Clock::time_point resume_at_{};  // back-off after failures
  int backoff_ms_ = kInitialBackoffMs;
  Clock::time_point next_refresh_{};
  Clock::time_point next_log_{};
  Clock::time_point window_start_{};
  uint64_t window_delivered_ = 0;
  std::vector<double> latency_window_;      // since the last stats refresh
  std::vector<double> log_latency_window_;  // since the last kafka.stats line
  std::map<std::string, Clock::time_point> client_error_logged_;
  uint64_t delete_failures_ = 0;
  Clock::time_point last_log_at_ = Clock::now();
  uint64_t delivered_at_last_log_ = 0;
  Clock::time_point last_delete_failure_log_{};
};

}  // namespace ocppgw::kafka
