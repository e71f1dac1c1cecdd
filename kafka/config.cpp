// kafka/config.cpp: KafkaConfig (see publisher.hpp): the [kafka] settings, their checks, and
// the librdkafka configuration built from them (the publisher's defaults, then the user's
// properties). Used by the publisher and by the kafka-tail / kafka-replay tools.
#include <cerrno>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "kafka/config.hpp"

namespace ocppgw::kafka {

using storage::Status;

namespace {

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

}  // namespace

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
}  // namespace ocppgw::kafka
