// kafka/publisher.cpp: KafkaPublisher, a handle on the publisher thread and its drain state
// (kafka/drain.hpp), and the JSON form of its stats for the web page and /metrics.
#include "kafka/publisher.hpp"

#include "kafka/drain.hpp"

namespace ocppgw::kafka {

// The drain state lives in drain.hpp; State only keeps publisher.hpp free of librdkafka.
struct KafkaPublisher::State : Drain {
  using Drain::Drain;
};

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

KafkaPublisher::KafkaPublisher(KafkaConfig config)
    : state_(std::make_unique<State>(std::move(config))) {}

KafkaPublisher::~KafkaPublisher() = default;  // ~Drain stops the thread

storage::Status KafkaPublisher::start() { return state_->start(); }

void KafkaPublisher::notify() { state_->notify(); }

void KafkaPublisher::stop() { state_->stop(); }

KafkaStats KafkaPublisher::stats() const { return state_->stats(); }

void KafkaPublisher::inject_fatal_error_for_test(int rd_kafka_error_code) {
  state_->inject_fatal_error(rd_kafka_error_code);
}

}  // namespace ocppgw::kafka
