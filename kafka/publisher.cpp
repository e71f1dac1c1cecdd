// kafka/publisher.cpp: the outbox drain loop (see publisher.hpp).
// Everything below State::run() happens on the publisher thread: librdkafka callbacks are
// served by rd_kafka_poll() there too, so the drain state needs no locks. Only the stats
// snapshot (mutex) and the wake-up pipe are shared with other threads. The thread sleeps in
// poll(2) on that pipe; librdkafka writes to it when its main queue (delivery reports, errors)
// becomes non-empty, notify() writes to it after a commit, so the loop neither spins nor waits
// longer than needed.
#include "kafka/publisher.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include <librdkafka/rdkafka.h>

#include "analytics/event.hpp"
#include "storage/outbox.hpp"
#include "util/logging.hpp"

namespace ocppgw::kafka {
namespace {

using Clock = std::chrono::steady_clock;
using storage::Status;

// Deletes are batched: every delete transaction competes with the event sink for SQLite's write
// lock, and the sink's commits are on the charge points' ack path.
constexpr int kDeleteBatchRows = 10000;
constexpr auto kDeleteMaxDelay = std::chrono::milliseconds(100);
// The publisher never waits long for the write lock (the sink may hold it through an fsync);
// a delete that finds it busy is retried shortly.
constexpr int kBusyTimeoutMs = 10;
constexpr auto kDeleteRetry = std::chrono::milliseconds(10);
constexpr int kInitialBackoffMs = 250;
constexpr auto kClientErrorLogEvery = std::chrono::seconds(60);
constexpr size_t kLatencySamplesPerWindow = 100000;

int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Defaults applied before the user's properties; the user may override any of them.
const std::map<std::string, std::string>& default_properties() {
  static const std::map<std::string, std::string> kDefaults = {
      {"enable.idempotence", "true"},
      {"acks", "all"},
      // Infinite: a message never times out locally, so an outage of any length only queues
      // (and pauses the drain) instead of turning into failures that would need re-sending.
      {"message.timeout.ms", "0"},
      // An error that could leave a gap in a partition becomes fatal: we recreate the producer
      // and re-send from the lowest undelivered row, which keeps per-key order.
      {"enable.gapless.guarantee", "true"},
      // Same key -> partition mapping as the Java client (Databricks, Event Hubs tooling).
      {"partitioner", "murmur2_random"},
      {"linger.ms", "5"},
  };
  return kDefaults;
}

const std::map<std::string_view, size_t KafkaConfig::*>& size_keys() {
  static const std::map<std::string_view, size_t KafkaConfig::*> kKeys = {
      {"batch_rows", &KafkaConfig::batch_rows}, {"max_in_flight", &KafkaConfig::max_in_flight}};
  return kKeys;
}

const std::map<std::string_view, int KafkaConfig::*>& int_keys() {
  static const std::map<std::string_view, int KafkaConfig::*> kKeys = {
      {"poll_interval_ms", &KafkaConfig::poll_interval_ms},
      {"stats_refresh_ms", &KafkaConfig::stats_refresh_ms},
      {"stats_log_interval_s", &KafkaConfig::stats_log_interval_s},
      {"retry_backoff_max_ms", &KafkaConfig::retry_backoff_max_ms},
      {"shutdown_flush_ms", &KafkaConfig::shutdown_flush_ms}};
  return kKeys;
}

std::optional<int64_t> parse_int(std::string_view v) {
  if (v.empty()) return std::nullopt;
  std::string s(v);
  char* end = nullptr;
  errno = 0;
  long long n = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || end != s.c_str() + s.size()) return std::nullopt;
  return static_cast<int64_t>(n);
}

// Builds a librdkafka config from defaults + user properties. On error returns null and sets
// *error naming the property.
rd_kafka_conf_t* build_conf(const KafkaConfig& c, std::string* error) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char errstr[512];
  auto apply = [&](const std::map<std::string, std::string>& props) {
    for (const auto& [k, v] : props) {
      if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), errstr, sizeof errstr) !=
          RD_KAFKA_CONF_OK) {
        *error = "kafka." + k + ": " + errstr;
        return false;
      }
    }
    return true;
  };
  if (!apply(default_properties()) || !apply(c.properties)) {
    rd_kafka_conf_destroy(conf);
    return nullptr;
  }
  return conf;
}

// The event's own schema_version (the outbox may still hold rows written by an older gateway
// version after an upgrade). The JSON is our compact dump, so a text search is exact enough and
// avoids parsing every message; falls back to the current version.
std::string schema_version_of(std::string_view json) {
  constexpr std::string_view kKey = "\"schema_version\":";
  size_t p = json.find(kKey);
  if (p == std::string_view::npos) return std::to_string(analytics::kSchemaVersion);
  p += kKey.size();
  while (p < json.size() && json[p] == ' ') ++p;
  size_t e = p;
  while (e < json.size() && json[e] >= '0' && json[e] <= '9') ++e;
  if (e == p) return std::to_string(analytics::kSchemaVersion);
  return std::string(json.substr(p, e - p));
}

// librdkafka's own log lines (connection failures, config warnings) join ours; called from its
// internal threads, which spdlog allows.
void forward_librdkafka_log(const rd_kafka_t*, int level, const char* fac, const char* buf) {
  spdlog::level::level_enum l = level <= 3   ? spdlog::level::err
                                : level == 4 ? spdlog::level::warn
                                : level <= 6 ? spdlog::level::info
                                             : spdlog::level::debug;
  log::line(l, "kafka.librdkafka", "", {{"facility", fac}, {"message", buf}});
}

std::string fmt_opt(const std::optional<double>& v) {
  return v ? std::to_string(static_cast<int64_t>(*v)) : "-";
}

std::optional<double> percentile(std::vector<double>& v, double q) {
  if (v.empty()) return std::nullopt;
  size_t idx = static_cast<size_t>(q * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(idx), v.end());
  return v[idx];
}

}  // namespace

bool KafkaConfig::enabled() const {
  for (const char* key : {"bootstrap.servers", "metadata.broker.list"}) {
    auto it = properties.find(key);
    if (it != properties.end() && !it->second.empty()) return true;
  }
  return false;
}

Status KafkaConfig::set(std::string_view key, std::string_view value) {
  std::string v(value);
  if (value.starts_with("env:")) {
    std::string name(value.substr(4));
    const char* env = std::getenv(name.c_str());
    if (!env)
      return Status::error("kafka." + std::string(key) + ": environment variable " + name +
                           " is not set");
    v = env;
  }
  if (key == "topic") {
    if (v.empty()) return Status::error("kafka.topic: must not be empty");
    topic = v;
    return Status();
  }
  if (key == "brokers") {
    properties["bootstrap.servers"] = v;
    return Status();
  }
  if (key == "outbox_high_water") {
    auto n = parse_int(v);
    if (!n || *n < 0)
      return Status::error("kafka.outbox_high_water: expected a count >= 0, got '" + v + "'");
    outbox_high_water = *n;
    return Status();
  }
  if (auto it = size_keys().find(key); it != size_keys().end()) {
    auto n = parse_int(v);
    if (!n || *n < 1)
      return Status::error("kafka." + std::string(key) + ": expected a count >= 1, got '" + v +
                           "'");
    this->*(it->second) = static_cast<size_t>(*n);
    return Status();
  }
  if (auto it = int_keys().find(key); it != int_keys().end()) {
    auto n = parse_int(v);
    if (!n || *n < 0 || *n > 86400000) {
      return Status::error("kafka." + std::string(key) + ": expected a number >= 0, got '" + v +
                           "'");
    }
    this->*(it->second) = static_cast<int>(*n);
    return Status();
  }
  if (key.empty()) return Status::error("kafka: empty property name");
  properties[std::string(key)] = v;
  return Status();
}

Status KafkaConfig::validate() const {
  if (topic.empty()) return Status::error("kafka.topic: must not be empty");
  if (batch_rows == 0 || max_in_flight == 0)
    return Status::error("kafka: batch_rows and max_in_flight must be >= 1");
  std::string error;
  rd_kafka_conf_t* conf = build_conf(*this, &error);
  if (!conf) return Status::error(error);
  rd_kafka_conf_destroy(conf);
  return Status();
}

nlohmann::json to_json(const KafkaStats& s) {
  nlohmann::json j = {
      {"enabled", s.enabled},
      {"running", s.running},
      {"topic", s.topic},
      {"outbox_depth", s.outbox_depth},
      {"oldest_unpublished_age_ms", nullptr},
      {"in_flight", s.in_flight},
      {"produced", s.produced},
      {"delivered", s.delivered},
      {"publish_rate", s.publish_rate},
      {"delivery_errors", s.delivery_errors},
      {"delivery_errors_by_code", s.delivery_errors_by_code},
      {"client_errors_by_code", s.client_errors_by_code},
      {"fatal_errors", s.fatal_errors},
      {"producer_generation", s.producer_generation},
      {"queue_full_pauses", s.queue_full_pauses},
      {"last_error", s.last_error},
      {"outbox_high_water", s.outbox_high_water},
      {"high_water_alert", s.high_water_alert},
      {"latency_p50_ms", nullptr},
      {"latency_p99_ms", nullptr},
  };
  if (s.oldest_unpublished_age_ms) j["oldest_unpublished_age_ms"] = *s.oldest_unpublished_age_ms;
  if (s.latency_p50_ms) j["latency_p50_ms"] = *s.latency_p50_ms;
  if (s.latency_p99_ms) j["latency_p99_ms"] = *s.latency_p99_ms;
  return j;
}

struct KafkaPublisher::State {
  explicit State(KafkaConfig c) : config(std::move(c)) {}

  KafkaConfig config;
  std::unique_ptr<storage::Db> db;
  std::unique_ptr<storage::Outbox> outbox;
  int wake_read = -1;
  int wake_write = -1;
  std::thread thread;
  std::atomic<bool> stopping{false};
  std::atomic<int> injected_fatal{0};

  mutable std::mutex mu;
  KafkaStats snapshot;  // guarded by mu

  // ---- publisher thread only ----
  rd_kafka_t* rk = nullptr;
  rd_kafka_topic_t* rkt = nullptr;
  rd_kafka_queue_t* main_queue = nullptr;
  KafkaStats work;                                 // the thread's live copy of the stats
  std::deque<storage::OutboxRow> pending;          // peeked, not yet produced
  int64_t peeked_upto = 0;                         // highest seq read from the outbox
  std::unordered_map<int64_t, int64_t> in_flight;  // seq -> ingest_ts_ms
  std::vector<int64_t> to_delete;                  // delivered, delete not yet committed
  Clock::time_point first_delivered_at{};
  bool delivery_failed = false;  // drain paused until in-flight settles, then rewind
  bool fatal = false;
  bool queue_full = false;
  Clock::time_point resume_at{};  // back-off after failures
  int backoff_ms = kInitialBackoffMs;
  Clock::time_point next_refresh{};
  Clock::time_point next_log{};
  Clock::time_point window_start{};
  uint64_t window_delivered = 0;
  std::vector<double> latency_window;      // since the last stats refresh
  std::vector<double> log_latency_window;  // since the last kafka.stats line
  std::map<std::string, Clock::time_point> client_error_logged;
  uint64_t delete_failures = 0;
  Clock::time_point last_log_at = Clock::now();
  uint64_t delivered_at_last_log = 0;
  Clock::time_point last_delete_failure_log{};

  void wake() {
    char b = 1;
    // A full pipe already guarantees a wake-up; the write may fail then.
    [[maybe_unused]] ssize_t n = ::write(wake_write, &b, 1);
  }

  // ---- producer lifecycle ----
  bool create_producer() {
    std::string error;
    rd_kafka_conf_t* conf = build_conf(config, &error);
    if (!conf) {
      work.last_error = error;
      return false;
    }
    rd_kafka_conf_set_opaque(conf, this);
    rd_kafka_conf_set_dr_msg_cb(conf, &State::on_delivery_cb);
    rd_kafka_conf_set_error_cb(conf, &State::on_error_cb);
    rd_kafka_conf_set_log_cb(conf, &forward_librdkafka_log);
    char errstr[512];
    rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
    if (!rk) {
      rd_kafka_conf_destroy(conf);
      work.last_error = std::string("rd_kafka_new: ") + errstr;
      log::error("kafka.producer_create_failed", "", {{"error", errstr}});
      return false;
    }
    rkt = rd_kafka_topic_new(rk, config.topic.c_str(), nullptr);
    main_queue = rd_kafka_queue_get_main(rk);
    static const char kByte = 1;
    rd_kafka_queue_io_event_enable(main_queue, wake_write, &kByte, 1);
    ++work.producer_generation;
    log::info("kafka.producer_started", "",
              {{"topic", config.topic}, {"generation", std::to_string(work.producer_generation)}});
    return true;
  }

  // Purges what librdkafka still holds (its reports arrive as __PURGE_* errors and leave the
  // rows in the outbox), then destroys the handle.
  void destroy_producer() {
    if (!rk) return;
    rd_kafka_purge(rk, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
    serve_events();
    rd_kafka_queue_io_event_enable(main_queue, -1, nullptr, 0);
    rd_kafka_queue_destroy(main_queue);
    rd_kafka_topic_destroy(rkt);
    rd_kafka_destroy(rk);
    rk = nullptr;
    rkt = nullptr;
    main_queue = nullptr;
    in_flight.clear();
  }

  // ---- librdkafka callbacks (publisher thread, inside rd_kafka_poll) ----
  static void on_delivery_cb(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
    static_cast<State*>(opaque)->on_delivery(m);
  }
  static void on_error_cb(rd_kafka_t* rk, int err, const char* reason, void* opaque) {
    static_cast<State*>(opaque)->on_error(rk, static_cast<rd_kafka_resp_err_t>(err), reason);
  }

  void on_delivery(const rd_kafka_message_t* m) {
    const auto seq = static_cast<int64_t>(reinterpret_cast<intptr_t>(m->_private));
    int64_t ingest_ms = 0;
    if (auto it = in_flight.find(seq); it != in_flight.end()) {
      ingest_ms = it->second;
      in_flight.erase(it);
    }
    queue_full = false;
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      if (to_delete.empty()) first_delivered_at = Clock::now();
      to_delete.push_back(seq);
      ++work.delivered;
      ++window_delivered;
      backoff_ms = kInitialBackoffMs;
      const auto latency = static_cast<double>(wall_ms() - ingest_ms);
      if (latency_window.size() < kLatencySamplesPerWindow) latency_window.push_back(latency);
      if (log_latency_window.size() < kLatencySamplesPerWindow) {
        log_latency_window.push_back(latency);
      }
    } else if (m->err != RD_KAFKA_RESP_ERR__PURGE_QUEUE &&
               m->err != RD_KAFKA_RESP_ERR__PURGE_INFLIGHT) {
      // Purges are ours (rewind/recreate/stop); anything else is a real failure: the row
      // stays and the drain rewinds once everything in flight has settled.
      ++work.delivery_errors;
      ++work.delivery_errors_by_code[rd_kafka_err2name(m->err)];
      if (!delivery_failed) {
        log::warn("kafka.delivery_failed", "",
                  {{"seq", std::to_string(seq)},
                   {"error", rd_kafka_err2name(m->err)},
                   {"reason", rd_kafka_err2str(m->err)}});
      }
      work.last_error = std::string(rd_kafka_err2name(m->err)) + ": " + rd_kafka_err2str(m->err);
      delivery_failed = true;
    }
    if (config.on_delivery) config.on_delivery(DeliveryReport{seq, ingest_ms, m->err});
  }

  void on_error(rd_kafka_t* handle, rd_kafka_resp_err_t err, const char* reason) {
    if (err == RD_KAFKA_RESP_ERR__FATAL) {
      char buf[512];
      rd_kafka_resp_err_t orig = rd_kafka_fatal_error(handle, buf, sizeof buf);
      fatal = true;
      work.last_error = std::string("fatal ") + rd_kafka_err2name(orig) + ": " + buf;
      ++work.client_errors_by_code[std::string("FATAL_") + rd_kafka_err2name(orig)];
      return;  // reported when the producer is recreated
    }
    std::string name = rd_kafka_err2name(err);
    ++work.client_errors_by_code[name];
    work.last_error = name + ": " + reason;
    // Broker-down errors repeat on every reconnect attempt during an outage: one line per
    // error code per minute is enough.
    auto now = Clock::now();
    auto& last = client_error_logged[name];
    if (last == Clock::time_point{} || now - last >= kClientErrorLogEvery) {
      last = now;
      log::warn("kafka.client_error", "", {{"error", name}, {"reason", reason}});
    }
  }

  // ---- the loop ----
  void serve_events() {
    if (!rk) return;
    while (rd_kafka_poll(rk, 0) > 0) {
    }
  }

  void drain_wake_pipe() {
    char buf[256];
    while (::read(wake_read, buf, sizeof buf) > 0) {
    }
  }

  void wait(std::chrono::milliseconds timeout) {
    pollfd p{wake_read, POLLIN, 0};
    ::poll(&p, 1, static_cast<int>(std::max<int64_t>(0, timeout.count())));
    drain_wake_pipe();
  }

  // force: delete now, retrying a busy database for up to a second (before a rewind and at
  // shutdown); otherwise only once the batch is big or old enough.
  void flush_deletes(bool force) {
    if (to_delete.empty()) return;
    if (!force && to_delete.size() < static_cast<size_t>(kDeleteBatchRows) &&
        Clock::now() - first_delivered_at < kDeleteMaxDelay) {
      return;
    }
    Status s;
    for (int attempt = 0; attempt < (force ? 100 : 1); ++attempt) {
      s = outbox->remove(to_delete);
      if (s.ok()) {
        to_delete.clear();
        return;
      }
    }
    // The rows stay; retried shortly, and at worst sent again (consumers dedup by event_id).
    first_delivered_at = Clock::now() - kDeleteMaxDelay + kDeleteRetry;
    ++delete_failures;
    work.last_error = "outbox delete: " + s.message();
    auto now = Clock::now();
    // A busy lock now and then is normal under load; only a growing backlog is worth a line.
    if (to_delete.size() >= 10 * static_cast<size_t>(kDeleteBatchRows) &&
        now - last_delete_failure_log >= kClientErrorLogEvery) {
      last_delete_failure_log = now;
      log::warn("kafka.outbox_delete_retry", "",
                {{"error", s.message()},
                 {"pending_deletes", std::to_string(to_delete.size())},
                 {"failures", std::to_string(delete_failures)}});
    }
  }

  // Start over from the lowest undelivered row. Called only when nothing is in flight, after
  // the delivered rows were deleted: every row left in the outbox is undelivered.
  void rewind() {
    pending.clear();
    peeked_upto = 0;
    queue_full = false;
  }

  void back_off() {
    resume_at = Clock::now() + std::chrono::milliseconds(backoff_ms);
    backoff_ms = std::min(backoff_ms * 2, std::max(config.retry_backoff_max_ms, kInitialBackoffMs));
  }

  void recreate_after_fatal() {
    ++work.fatal_errors;
    log::error("kafka.fatal_error", "",
               {{"error", work.last_error},
                {"in_flight", std::to_string(in_flight.size())},
                {"action", "recreating producer"}});
    destroy_producer();
    flush_deletes(true);
    fatal = false;
    delivery_failed = false;
    rewind();
    back_off();
    create_producer();
  }

  bool produce(const storage::OutboxRow& row) {
    std::string schema = schema_version_of(row.json);
    rd_kafka_resp_err_t err = rd_kafka_producev(
        rk, RD_KAFKA_V_RKT(rkt), RD_KAFKA_V_PARTITION(RD_KAFKA_PARTITION_UA),
        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
        RD_KAFKA_V_KEY(const_cast<char*>(row.charge_point_id.data()), row.charge_point_id.size()),
        RD_KAFKA_V_VALUE(const_cast<char*>(row.json.data()), row.json.size()),
        RD_KAFKA_V_HEADER("event_type", row.event_type.data(),
                          static_cast<ssize_t>(row.event_type.size())),
        RD_KAFKA_V_HEADER("schema_version", schema.data(), static_cast<ssize_t>(schema.size())),
        RD_KAFKA_V_HEADER("ocpp_version", row.ocpp_version.data(),
                          static_cast<ssize_t>(row.ocpp_version.size())),
        RD_KAFKA_V_OPAQUE(reinterpret_cast<void*>(static_cast<intptr_t>(row.seq))), RD_KAFKA_V_END);
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      in_flight.emplace(row.seq, row.ingest_ts_ms);
      ++work.produced;
      return true;
    }
    if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
      // Pause: the next delivery report wakes the loop (io event on the main queue).
      queue_full = true;
      ++work.queue_full_pauses;
      return false;
    }
    if (err == RD_KAFKA_RESP_ERR__FATAL) {
      fatal = true;
      return false;
    }
    // Local, per-message refusal (e.g. larger than message.max.bytes). Never dropped: the row
    // stays and is retried after a back-off; the error is counted and logged.
    ++work.delivery_errors;
    ++work.delivery_errors_by_code[rd_kafka_err2name(err)];
    work.last_error = std::string(rd_kafka_err2name(err)) + ": " + rd_kafka_err2str(err);
    log::error("kafka.produce_refused", row.charge_point_id,
               {{"seq", std::to_string(row.seq)}, {"error", rd_kafka_err2name(err)}});
    delivery_failed = true;
    return false;
  }

  void drain() {
    while (!stopping.load(std::memory_order_relaxed) && in_flight.size() < config.max_in_flight &&
           !queue_full && !fatal && !delivery_failed) {
      if (pending.empty()) {
        Status s;
        auto rows = outbox->peek(peeked_upto, config.batch_rows, &s);
        if (!s.ok()) {
          work.last_error = "outbox read: " + s.message();
          log::error("kafka.outbox_read_failed", "", {{"error", s.message()}});
          back_off();
          return;
        }
        if (rows.empty()) return;
        peeked_upto = rows.back().seq;
        pending.assign(std::make_move_iterator(rows.begin()), std::make_move_iterator(rows.end()));
      }
      if (!produce(pending.front())) return;
      pending.pop_front();
    }
  }

  void refresh_stats(bool force) {
    auto now = Clock::now();
    if (!force && now < next_refresh) return;
    next_refresh = now + std::chrono::milliseconds(std::max(config.stats_refresh_ms, 10));
    Status s;
    // Rows delivered but not yet deleted are not waiting for Kafka.
    work.outbox_depth =
        std::max<int64_t>(0, outbox->depth(&s) - static_cast<int64_t>(to_delete.size()));
    auto oldest = outbox->oldest_ingest_ms(&s);
    work.oldest_unpublished_age_ms =
        oldest ? std::optional<int64_t>(std::max<int64_t>(0, wall_ms() - *oldest)) : std::nullopt;
    if (!s.ok()) work.last_error = "outbox stats: " + s.message();
    double secs = std::chrono::duration<double>(now - window_start).count();
    if (secs > 0) work.publish_rate = static_cast<double>(window_delivered) / secs;
    window_start = now;
    window_delivered = 0;
    work.latency_p50_ms = percentile(latency_window, 0.50);
    work.latency_p99_ms = percentile(latency_window, 0.99);
    latency_window.clear();
    work.in_flight = static_cast<int64_t>(in_flight.size());
    check_high_water();
    if (config.stats_log_interval_s > 0 && now >= next_log) {
      next_log = now + std::chrono::seconds(config.stats_log_interval_s);
      // Over the whole log interval, unlike publish_rate (last stats window).
      const double log_secs = std::chrono::duration<double>(now - last_log_at).count();
      const auto log_rate = static_cast<int64_t>(
          log_secs > 0 ? static_cast<double>(work.delivered - delivered_at_last_log) / log_secs
                       : 0);
      last_log_at = now;
      delivered_at_last_log = work.delivered;
      log::info(
          "kafka.stats", "",
          {{"enabled", work.enabled ? "true" : "false"},
           {"outbox_depth", std::to_string(work.outbox_depth)},
           {"oldest_age_ms",
            work.oldest_unpublished_age_ms ? std::to_string(*work.oldest_unpublished_age_ms) : "-"},
           {"rate", std::to_string(log_rate)},
           {"delivered", std::to_string(work.delivered)},
           {"in_flight", std::to_string(work.in_flight)},
           {"errors", std::to_string(work.delivery_errors)},
           {"latency_p50_ms", fmt_opt(percentile(log_latency_window, 0.50))},
           {"latency_p99_ms", fmt_opt(percentile(log_latency_window, 0.99))}});
      log_latency_window.clear();
    }
  }

  // One warning per upward crossing; cleared below 90% so a depth hovering at the mark does
  // not flap.
  void check_high_water() {
    const int64_t mark = config.outbox_high_water;
    if (mark <= 0) return;
    if (!work.high_water_alert && work.outbox_depth >= mark) {
      work.high_water_alert = true;
      log::warn("kafka.outbox_high_water", "",
                {{"outbox_depth", std::to_string(work.outbox_depth)},
                 {"high_water", std::to_string(mark)},
                 {"brokers", work.enabled ? "configured" : "none"}});
    } else if (work.high_water_alert && work.outbox_depth < mark - mark / 10) {
      work.high_water_alert = false;
      log::info("kafka.outbox_below_high_water", "",
                {{"outbox_depth", std::to_string(work.outbox_depth)}});
    }
  }

  void publish_snapshot() {
    work.in_flight = static_cast<int64_t>(in_flight.size());
    std::lock_guard lock(mu);
    snapshot = work;
  }

  std::chrono::milliseconds next_timeout() const {
    using std::chrono::milliseconds;
    auto now = Clock::now();
    auto until = [&](Clock::time_point t) {
      return std::chrono::duration_cast<milliseconds>(t - now) + milliseconds(1);
    };
    milliseconds t(config.poll_interval_ms);
    t = std::min(t, until(next_refresh));
    if (!to_delete.empty()) t = std::min(t, until(first_delivered_at + kDeleteMaxDelay));
    if (resume_at > now) t = std::min(t, until(resume_at));
    return std::max(t, milliseconds(0));
  }

  void run() {
    window_start = Clock::now();
    while (true) {
      wait(next_timeout());
      serve_events();
      if (stopping.load()) break;
      if (int code = injected_fatal.exchange(0); code != 0 && rk) {
        rd_kafka_test_fatal_error(rk, static_cast<rd_kafka_resp_err_t>(code), "injected by test");
        serve_events();
      }
      flush_deletes(false);
      if (config.enabled()) step_producer();
      refresh_stats(false);
      publish_snapshot();
    }
    shutdown();
  }

  void step_producer() {
    if (Clock::now() < resume_at) return;
    if (!rk) {
      if (!create_producer()) back_off();
      return;
    }
    if (fatal) {
      recreate_after_fatal();
      return;
    }
    if (delivery_failed) {
      // Stop feeding, let librdkafka report what it holds, then start over from the lowest
      // undelivered row after a back-off.
      rd_kafka_purge(rk, RD_KAFKA_PURGE_F_QUEUE);
      serve_events();
      if (!in_flight.empty()) return;
      flush_deletes(true);
      delivery_failed = false;
      rewind();
      back_off();
      return;
    }
    drain();
  }

  void shutdown() {
    if (rk) {
      auto deadline = Clock::now() + std::chrono::milliseconds(config.shutdown_flush_ms);
      while (!in_flight.empty() && !fatal && Clock::now() < deadline) {
        rd_kafka_poll(rk, 50);
      }
      destroy_producer();
    }
    flush_deletes(true);
    refresh_stats(true);
    work.running = false;
    publish_snapshot();
    log::info("kafka.publisher_stopped", "",
              {{"delivered", std::to_string(work.delivered)},
               {"outbox_depth", std::to_string(work.outbox_depth)}});
  }
};

KafkaPublisher::KafkaPublisher(KafkaConfig config)
    : state_(std::make_unique<State>(std::move(config))) {}

KafkaPublisher::~KafkaPublisher() {
  stop();
  if (state_->wake_read >= 0) ::close(state_->wake_read);
  if (state_->wake_write >= 0) ::close(state_->wake_write);
}

Status KafkaPublisher::start() {
  State& s = *state_;
  if (s.thread.joinable()) return Status::error("kafka publisher already started");
  if (Status v = s.config.validate(); !v.ok()) return v;
  storage::OpenOptions options;
  // Losing a delete on power failure only means a re-send, which consumers dedup; the outbox
  // rows themselves are written durably by the sink.
  options.synchronous_full = false;
  options.busy_timeout_ms = kBusyTimeoutMs;
  Status st;
  s.db = storage::Db::open(s.config.db_path, options, &st);
  if (!s.db) return Status::error("kafka publisher: " + st.message());
  s.outbox = std::make_unique<storage::Outbox>(*s.db);
  if (s.wake_read < 0) {
    int fds[2];
    if (::pipe2(fds, O_NONBLOCK | O_CLOEXEC) != 0)
      return Status::error("kafka publisher: pipe2 failed");
    s.wake_read = fds[0];
    s.wake_write = fds[1];
  }
  s.work = KafkaStats{};
  s.delivered_at_last_log = 0;
  s.last_log_at = Clock::now();
  s.work.enabled = s.config.enabled();
  s.work.running = true;
  s.work.topic = s.config.topic;
  s.work.outbox_high_water = s.config.outbox_high_water;
  if (s.work.enabled) {
    auto it = s.config.properties.find("enable.idempotence");
    if (it != s.config.properties.end() && it->second != "true") {
      log::warn("kafka.idempotence_disabled", "",
                {{"note", "per charge point order is not guaranteed across retries"}});
    }
    if (!s.create_producer()) return Status::error("kafka publisher: " + s.work.last_error);
  } else {
    log::warn("kafka.disabled", "",
              {{"reason", "no kafka bootstrap.servers configured; events stay in the outbox"}});
  }
  s.stopping = false;
  s.refresh_stats(true);
  s.publish_snapshot();
  s.thread = std::thread([&s] { s.run(); });
  return Status();
}

void KafkaPublisher::notify() {
  if (state_->wake_write >= 0) state_->wake();
}

void KafkaPublisher::stop() {
  State& s = *state_;
  if (!s.thread.joinable()) return;
  s.stopping = true;
  s.wake();
  s.thread.join();
  s.outbox.reset();
  s.db.reset();
}

KafkaStats KafkaPublisher::stats() const {
  std::lock_guard lock(state_->mu);
  return state_->snapshot;
}

void KafkaPublisher::inject_fatal_error_for_test(int rd_kafka_error_code) {
  state_->injected_fatal = rd_kafka_error_code;
  notify();
}

}  // namespace ocppgw::kafka
