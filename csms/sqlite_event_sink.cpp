// csms/sqlite_event_sink.cpp: group commit of frames, events, outbox rows and WriteSets
// (see sqlite_event_sink.hpp). Everything below run() executes on the sink thread, the only
// user of db_.
#include "csms/sqlite_event_sink.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>

#include "csms/sqlite_csms_state.hpp"
#include "storage/checkpointer.hpp"
#include "storage/gateway_db.hpp"
#include "util/metrics.hpp"
#include "util/thread_name.hpp"

namespace ocppgw::csms {
namespace {

using Clock = std::chrono::steady_clock;
using storage::Status;

// The group commit's shape for /metrics: entries per transaction and how long each took.
struct SinkMetrics {
  metrics::Histogram& batch_size;
  metrics::Histogram& commit_seconds;
};
const SinkMetrics& sink_metrics() {
  static const SinkMetrics m{
      metrics::process_registry()
          .histogram("ocppgw_sink_batch_size",
                     "Entries (frames and gateway events) per event log transaction.",
                     {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000})
          .get(),
      metrics::process_registry()
          .histogram("ocppgw_sink_commit_seconds",
                     "Duration of one event log transaction, writes and fsync included.",
                     metrics::latency_buckets())
          .get()};
  return m;
}

class SqliteEventSink final : public EventSink {
 public:
  SqliteEventSink(const SqliteSinkOptions& options, std::unique_ptr<storage::Db> db,
                  std::unique_ptr<storage::Checkpointer> checkpointer)
      : options_(options), db_(std::move(db)), checkpointer_(std::move(checkpointer)) {
    sink_metrics();  // listed on /metrics before the first commit
    thread_ = std::thread([this] {
      util::name_this_thread("event-sink");
      run();
    });
  }
  ~SqliteEventSink() override { stop(); }

  void submit(SinkEntry entry) override {
    // Serialise on the caller's thread (a session strand): JSON is the largest CPU cost of a
    // commit, and the sink thread is the one serial resource.
    Queued q{std::move(entry), {}};
    q.json.reserve(q.entry.events.size());
    for (const analytics::Event& e : q.entry.events) q.json.push_back(analytics::to_json_string(e));
    std::unique_lock lock(mu_);
    if (stopping_) {
      // The sink thread is gone or going: nothing will commit this entry.
      lock.unlock();
      if (q.entry.on_durable) q.entry.on_durable(false);
      return;
    }
    if (queue_.empty()) first_queued_ = Clock::now();
    queue_.push_back(std::move(q));
    lock.unlock();
    cv_.notify_one();
  }

  bool healthy() const override { return healthy_.load(std::memory_order_acquire); }

  SinkStats stats() const override {
    std::lock_guard lock(stats_mu_);
    SinkStats s = stats_;
    s.healthy = healthy();
    return s;
  }

  void add_commit_listener(CommitListener listener) override {
    std::lock_guard lock(mu_);
    listeners_.push_back(std::move(listener));
  }

  void stop() override {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    cv_.notify_one();
    std::lock_guard join_lock(join_mu_);
    if (thread_.joinable()) thread_.join();
  }

 private:
  struct Queued {
    SinkEntry entry;
    std::vector<std::string> json;  // one per event
  };

  void run();
  // Takes the next batch; false when stopping and nothing is left.
  bool take_batch(std::vector<Queued>& batch);
  Status write_batch(std::vector<Queued>& batch, std::vector<analytics::Event>& events,
                     CommittedBatch& committed);
  Status write_entry(Queued& queued, std::vector<analytics::Event>& events,
                     CommittedBatch& committed);
  void fail(const Status& s, size_t batch_size);

  const SqliteSinkOptions options_;
  std::unique_ptr<storage::Db> db_;
  // The WAL's checkpoints run on a thread of their own: inline, SQLite's automatic checkpoint
  // ran inside each commit that took the WAL past 1,000 pages, copied them into the database
  // file and fsynced it while the frames of that batch and of the next waited for their acks
  // (the p99 of paced load; BENCHMARKS.md). Declared after db_ so that it is destroyed first.
  std::unique_ptr<storage::Checkpointer> checkpointer_;

  std::mutex mu_;  // guards queue_, first_queued_, stopping_, listeners_
  std::condition_variable cv_;
  std::vector<Queued> queue_;
  Clock::time_point first_queued_;
  bool stopping_ = false;
  std::vector<CommitListener> listeners_;

  std::atomic<bool> healthy_{true};
  mutable std::mutex stats_mu_;
  SinkStats stats_;

  std::mutex join_mu_;
  std::thread thread_;
};

bool SqliteEventSink::take_batch(std::vector<Queued>& batch) {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
  if (queue_.empty()) return false;  // stopping, drained
  if (options_.max_linger_us > 0 && !stopping_) {
    cv_.wait_until(lock, first_queued_ + std::chrono::microseconds(options_.max_linger_us),
                   [&] { return stopping_ || queue_.size() >= options_.max_batch_entries; });
  }
  if (queue_.size() <= options_.max_batch_entries) {
    batch.swap(queue_);
  } else {
    auto end = queue_.begin() + static_cast<std::ptrdiff_t>(options_.max_batch_entries);
    batch.assign(std::make_move_iterator(queue_.begin()), std::make_move_iterator(end));
    queue_.erase(queue_.begin(), end);
    first_queued_ = Clock::now();
  }
  return true;
}

void SqliteEventSink::run() {
  std::vector<Queued> batch;
  std::vector<analytics::Event> events;
  std::vector<CommitListener> listeners;
  CommittedBatch committed_batch;
  while (true) {
    batch.clear();
    if (!take_batch(batch)) break;
    bool committed = false;
    if (healthy()) {
      events.clear();
      committed_batch = {};
      const auto t0 = Clock::now();
      Status s = write_batch(batch, events, committed_batch);
      const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      if (s.ok()) {
        committed = true;
        std::lock_guard lock(stats_mu_);
        stats_.frames_committed += batch.size();
        stats_.events_committed += events.size();
        stats_.batches += 1;
        stats_.last_batch_size = batch.size();
        stats_.last_commit_ms = ms;
        sink_metrics().batch_size.observe(static_cast<double>(batch.size()));
        sink_metrics().commit_seconds.observe(ms / 1000);
      } else {
        fail(s, batch.size());
      }
    }
    for (Queued& q : batch) {
      if (q.entry.on_durable) q.entry.on_durable(committed);
    }
    if (committed && !events.empty()) {
      {
        std::lock_guard lock(mu_);
        listeners = listeners_;
      }
      committed_batch.events =
          std::make_shared<const std::vector<analytics::Event>>(std::move(events));
      events = {};
      for (const auto& listener : listeners) listener(committed_batch);
      committed_batch.events.reset();
    }
  }
}

Status SqliteEventSink::write_batch(std::vector<Queued>& batch,
                                    std::vector<analytics::Event>& events,
                                    CommittedBatch& committed) {
  Status s = db_->begin_immediate();
  if (!s.ok()) return Status::error("BEGIN IMMEDIATE: " + s.message());
  for (Queued& queued : batch) {
    s = write_entry(queued, events, committed);
    if (!s.ok()) break;
  }
  if (s.ok()) {
    s = db_->commit();
    if (!s.ok()) s = Status::error("COMMIT: " + s.message());
  }
  if (!s.ok()) db_->rollback();
  return s;
}

Status SqliteEventSink::write_entry(Queued& queued, std::vector<analytics::Event>& events,
                                    CommittedBatch& committed) {
  SinkEntry& entry = queued.entry;
  std::optional<int64_t> frame_seq;
  Status s;
  if (!entry.raw_frame.empty()) {
    s = db_->cached("INSERT INTO frames (charge_point_id, received_ms, text) VALUES (?, ?, ?)")
            .bind_borrowed(1, entry.charge_point_id)
            .bind(2, entry.received_ms)
            .bind_borrowed(3, entry.raw_frame)
            .run();
    if (!s.ok()) return Status::error("insert frame: " + s.message());
    frame_seq = db_->last_insert_rowid();
  }
  storage::Statement& insert_event = db_->cached(
      "INSERT INTO events (event_id, charge_point_id, event_type, ocpp_version, event_ts_ms, "
      "ingest_ts_ms, frame_seq, json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  storage::Statement& insert_outbox = db_->cached("INSERT INTO outbox (event_seq) VALUES (?)");
  for (size_t i = 0; i < entry.events.size(); ++i) {
    analytics::Event& e = entry.events[i];
    s = insert_event.bind_borrowed(1, e.event_id)
            .bind_borrowed(2, e.charge_point_id)
            .bind_borrowed(3, analytics::to_string(e.event_type))
            .bind_borrowed(4, e.ocpp_version)
            .bind(5, e.event_ts_ms)
            .bind(6, e.ingest_ts_ms)
            .bind(7, frame_seq)
            .bind_borrowed(8, queued.json[i])
            .run();
    if (!s.ok()) return Status::error("insert event: " + s.message());
    const int64_t seq = db_->last_insert_rowid();
    if (committed.first_seq == 0) committed.first_seq = seq;
    committed.last_seq = seq;
    s = insert_outbox.bind(1, seq).run();
    if (!s.ok()) return Status::error("insert outbox: " + s.message());
    events.push_back(std::move(e));
  }
  if (entry.writes) {
    for (const rpc::WriteSet::Write& w : entry.writes->writes) {
      storage::Statement* st = db_->cached(w.sql, &s);
      if (st) {
        int index = 1;
        for (const storage::Value& v : w.values) st->bind(index++, v);
        s = st->run();
      }
      if (!s.ok()) return Status::error("state write: " + s.message() + " in: " + w.sql);
    }
  }
  return Status();
}

void SqliteEventSink::fail(const Status& s, size_t batch_size) {
  healthy_.store(false, std::memory_order_release);
  {
    std::lock_guard lock(stats_mu_);
    stats_.last_error = s.message();
  }
  spdlog::error(
      "event sink: commit of {} frames failed, no further frames will be acknowledged: {}",
      batch_size, s.message());
}

}  // namespace

std::unique_ptr<EventSink> make_sqlite_event_sink(const SqliteSinkOptions& options,
                                                  Status* status) {
  storage::OpenOptions open_options;
  open_options.busy_timeout_ms = options.busy_timeout_ms;
  open_options.synchronous_full = options.synchronous_full;
  Status s;
  std::unique_ptr<storage::Db> db = storage::open_gateway_db(options.db_path, &s, open_options);
  if (status) *status = s;
  if (!db) return nullptr;
  if (options.on_open) options.on_open(*db);
  auto checkpointer = storage::Checkpointer::attach(*db, open_options, {}, &s);
  if (!checkpointer) {
    if (status)
      *status = storage::Status::error("event log " + options.db_path + ": " + s.message());
    return nullptr;
  }
  SqliteSinkOptions copy = options;
  if (copy.max_batch_entries == 0) copy.max_batch_entries = 1;
  return std::make_unique<SqliteEventSink>(copy, std::move(db), std::move(checkpointer));
}

}  // namespace ocppgw::csms
