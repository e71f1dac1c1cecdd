// tests/unit/kafka/mock_cluster.hpp: a librdkafka mock cluster that outlives the producers a
// test creates (so a recreated producer finds the same topic contents), plus small helpers the
// Kafka tests share. Mock brokers run on librdkafka's threads; use from the test thread.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

namespace ocppgw::testing {

constexpr int16_t kProduceApiKey = 0;  // ApiKey of ProduceRequest
constexpr const char* kTopic = "ocpp-events";

class MockCluster {
 public:
  explicit MockCluster(int brokers, int partitions = 4) {
    char err[256];
    rk_ = rd_kafka_new(RD_KAFKA_PRODUCER, rd_kafka_conf_new(), err, sizeof err);
    mc_ = rd_kafka_mock_cluster_new(rk_, brokers);
    rd_kafka_mock_topic_create(mc_, kTopic, partitions, std::min(brokers, 3));
  }
  ~MockCluster() {
    rd_kafka_mock_cluster_destroy(mc_);
    rd_kafka_destroy(rk_);
  }
  rd_kafka_mock_cluster_t* get() { return mc_; }
  std::string bootstraps() const { return rd_kafka_mock_cluster_bootstraps(mc_); }

 private:
  rd_kafka_t* rk_;
  rd_kafka_mock_cluster_t* mc_;
};

inline std::vector<std::string> charge_points(int n) {
  std::vector<std::string> cps;
  for (int i = 0; i < n; ++i) cps.push_back("CP-" + std::to_string(i));
  return cps;
}

inline bool wait_until(const std::function<bool()>& done, std::chrono::seconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return done();
}

}  // namespace ocppgw::testing
