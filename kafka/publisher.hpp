// kafka/publisher.hpp: drains the durable outbox to Kafka (docs/kafka.md).
// One KafkaPublisher owns one thread, one SQLite connection to the gateway database and one
// librdkafka idempotent producer (acks=all). It produces outbox rows in seq order (key =
// charge_point_id, value = the canonical event JSON, headers event_type / schema_version /
// ocpp_version) and deletes a row only after its delivery report said it was written. A full
// local queue pauses the drain until reports arrive; nothing is dropped. A fatal producer error
// (e.g. idempotence fencing) is reported, the producer is recreated and the drain restarts from
// the lowest undelivered row, so per charge point the first occurrence of every event in the
// topic keeps seq order. Without brokers configured nothing is produced: the thread only watches
// the outbox grow (depth, age, high-water alert) so the gateway runs normally.
//
// Wiring (gateway main):
//   KafkaConfig kc;                          // defaults suit production
//   kc.db_path = config.db_path();
//   for (auto& [k, v] : flattened [kafka] table)   // "topic", "bootstrap.servers", ...
//     if (auto s = kc.set(k, v); !s.ok()) fail(s.message());
//   KafkaPublisher publisher(kc);
//   if (auto s = publisher.start(); !s.ok()) fail(s.message());   // bad librdkafka property
//   sink.add_commit_listener([&](auto) { publisher.notify(); });
//   ... publisher.stats() / to_json(publisher.stats()) for the web page and /metrics ...
//   sink.stop(); publisher.stop();           // stop after the sink: the last commit is flushed
//
// Threading: start/stop from one thread (not concurrently); notify() and stats() from any thread
// at any time (notify is a non-blocking write to a pipe, safe from the sink thread).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "storage/db.hpp"

namespace ocppgw::kafka {

// Called on the publisher thread for every delivery report (tests and benchmarks observe
// deliveries through it; it must be quick).
struct DeliveryReport {
  int64_t seq = 0;           // events.seq of the row
  int64_t ingest_ts_ms = 0;  // when the gateway received the frame
  int error = 0;             // rd_kafka_resp_err_t; 0: written to the topic
};
using DeliveryObserver = std::function<void(const DeliveryReport&)>;

struct KafkaConfig {
  std::string db_path;  // the gateway database holding events + outbox
  std::string topic = "ocpp-events";
  // librdkafka properties, passed through verbatim after the publisher's defaults
  // (enable.idempotence=true, acks=all, message.timeout.ms=0 so a broker outage of any length
  // only queues, partitioner=murmur2_random to match Java clients, linger.ms=5).
  std::map<std::string, std::string> properties;
  size_t batch_rows = 2000;            // rows per outbox read
  size_t max_in_flight = 50000;        // produced but not yet reported
  int poll_interval_ms = 250;          // outbox check when nobody calls notify()
  int stats_refresh_ms = 1000;         // depth/age query and rate window
  int stats_log_interval_s = 60;       // 0: no periodic stats line
  int64_t outbox_high_water = 100000;  // depth at which a warning is logged; 0: never
  int retry_backoff_max_ms = 30000;    // after failed deliveries / fatal errors
  int shutdown_flush_ms = 5000;        // stop() waits this long for in-flight reports
  DeliveryObserver on_delivery;        // optional

  // Brokers configured (bootstrap.servers or metadata.broker.list non-empty).
  bool enabled() const;
  // One setting of the [kafka] config section, key without the "kafka." prefix. The publisher's
  // own keys are topic, brokers (= bootstrap.servers), batch_rows, max_in_flight,
  // poll_interval_ms, stats_refresh_ms, stats_log_interval_s, outbox_high_water,
  // retry_backoff_max_ms, shutdown_flush_ms; every other key is a librdkafka property.
  // A value "env:NAME" is read from environment variable NAME (for secrets such as
  // sasl.password); an unset variable is an error.
  storage::Status set(std::string_view key, std::string_view value);
  // Checks every librdkafka property against librdkafka itself (unknown names, bad values).
  storage::Status validate() const;
};

struct KafkaStats {
  bool enabled = false;
  bool running = false;
  std::string topic;
  int64_t outbox_depth = 0;
  std::optional<int64_t> oldest_unpublished_age_ms;  // nullopt: outbox empty
  int64_t in_flight = 0;
  uint64_t produced = 0;
  uint64_t delivered = 0;
  double publish_rate = 0;  // delivered events/s over the last stats window
  uint64_t delivery_errors = 0;
  std::map<std::string, uint64_t> delivery_errors_by_code;  // librdkafka error name -> count
  std::map<std::string, uint64_t> client_errors_by_code;    // error_cb (broker down, auth, ...)
  uint64_t fatal_errors = 0;
  uint64_t producer_generation = 0;  // 1 after start, +1 per recreation
  uint64_t queue_full_pauses = 0;
  std::string last_error;
  int64_t outbox_high_water = 0;
  bool high_water_alert = false;
  std::optional<double> latency_p50_ms;  // ingest -> delivery report, last stats window
  std::optional<double> latency_p99_ms;
};

nlohmann::json to_json(const KafkaStats& s);

class KafkaPublisher {
 public:
  explicit KafkaPublisher(KafkaConfig config);
  ~KafkaPublisher();  // stop()
  KafkaPublisher(const KafkaPublisher&) = delete;
  KafkaPublisher& operator=(const KafkaPublisher&) = delete;

  // Opens the database, validates the config, creates the producer (when enabled) and starts
  // the thread. The database must already be migrated.
  storage::Status start();
  // Rows were committed: drain now instead of at the next periodic check.
  void notify();
  // Waits up to shutdown_flush_ms for outstanding delivery reports, then stops the thread.
  // Undelivered rows stay in the outbox for the next start. Idempotent.
  void stop();
  KafkaStats stats() const;

  // Testing: raise a librdkafka fatal error (rd_kafka_test_fatal_error) on the current producer
  // from the publisher thread, as idempotence fencing would.
  void inject_fatal_error_for_test(int rd_kafka_error_code);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace ocppgw::kafka
