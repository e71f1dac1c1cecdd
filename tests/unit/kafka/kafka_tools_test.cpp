// tests/unit/kafka/kafka_tools_test.cpp: `kafka-tail` and `kafka-replay` run through CLI11 as
// main would, against events the publisher wrote to a mock cluster.
#include "kafka/tools.hpp"

#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/unit/kafka/event_log_writer.hpp"
#include "tests/unit/kafka/mock_cluster.hpp"
#include "tests/unit/storage/temp_dir.hpp"

namespace ocppgw::kafka {
namespace {

using namespace std::chrono_literals;
using testing::TempDir;

// Publishes `per_cp` events for each of `cps` charge points to the cluster's topic.
std::vector<testing::WrittenEvent> publish(const TempDir& dir, testing::MockCluster& cluster,
                                           int cps, int per_cp) {
  testing::EventLogWriter writer(dir.file("gateway.db"));
  auto written = writer.append(testing::charge_points(cps), per_cp);
  KafkaConfig c;
  c.db_path = dir.file("gateway.db");
  c.topic = testing::kTopic;
  c.properties["bootstrap.servers"] = cluster.bootstraps();
  c.stats_log_interval_s = 0;
  KafkaPublisher p(c);
  EXPECT_TRUE(p.start().ok());
  EXPECT_TRUE(testing::wait_until([&] { return writer.outbox_seqs().empty(); }, 30s));
  p.stop();
  return written;
}

int run(CLI::App& app, std::vector<std::string> args) {
  std::reverse(args.begin(), args.end());
  try {
    app.parse(args);
  } catch (const CLI::Error& e) {
    return app.exit(e);
  }
  return 0;
}

KafkaToolEnv env_for(const TempDir& dir, const testing::MockCluster& cluster) {
  KafkaToolEnv env;
  env.kafka.topic = testing::kTopic;
  env.kafka.properties["bootstrap.servers"] = cluster.bootstraps();
  env.kafka.properties["enable.idempotence"] = "true";  // producer-only: must not reach consumer
  env.pipeline.path = dir.file("analytics.db");
  env.pipeline.durable = false;
  return env;
}

TEST(KafkaTail, PrintsEveryEventOfTheTopic) {
  TempDir dir;
  testing::MockCluster cluster(1, 3);
  auto written = publish(dir, cluster, 3, 10);
  CLI::App app;
  std::ostringstream out;
  KafkaCommands cmds = add_kafka_commands(
      app, [&] { return env_for(dir, cluster); }, &out);
  ASSERT_EQ(run(app, {"kafka-tail", "--until-end", "--timeout", "10", "--format", "json"}), 0);
  EXPECT_TRUE(cmds.parsed());
  std::set<std::string> ids;
  std::istringstream lines(out.str());
  for (std::string line; std::getline(lines, line);) {
    auto j = nlohmann::json::parse(line);
    EXPECT_EQ(j.at("key"), j.at("value").at("charge_point_id"));
    EXPECT_EQ(j.at("headers").at("event_type"), "Heartbeat");
    ids.insert(j.at("value").at("event_id").get<std::string>());
  }
  std::set<std::string> expected;
  for (const auto& w : written) expected.insert(w.event_id);
  EXPECT_EQ(ids, expected);
}

TEST(KafkaTail, CountLimitsOutputAndBadFromIsRejected) {
  TempDir dir;
  testing::MockCluster cluster(1, 1);
  publish(dir, cluster, 2, 5);
  {
    CLI::App app;
    std::ostringstream out;
    add_kafka_commands(
        app, [&] { return env_for(dir, cluster); }, &out);
    ASSERT_EQ(run(app, {"kafka-tail", "--count", "4", "--timeout", "10"}), 0);
    const std::string text = out.str();
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 4);
  }
  CLI::App app;
  std::ostringstream out;
  add_kafka_commands(
      app, [&] { return env_for(dir, cluster); }, &out);
  EXPECT_NE(run(app, {"kafka-tail", "--from", "yesterday", "--timeout", "1"}), 0);
}

TEST(KafkaReplay, FeedsTheTopicIntoTheAnalyticsPipelineAndDedupsARerun) {
  TempDir dir;
  testing::MockCluster cluster(1, 2);
  auto written = publish(dir, cluster, 4, 5);
  auto replay = [&] {
    CLI::App app;
    std::ostringstream out;
    add_kafka_commands(
        app, [&] { return env_for(dir, cluster); }, &out);
    EXPECT_EQ(run(app, {"kafka-replay", "--until-end", "--timeout", "10", "--batch", "7"}), 0);
    return nlohmann::json::parse(out.str());
  };
  nlohmann::json first = replay();
  EXPECT_EQ(first.at("messages"), written.size());
  EXPECT_EQ(first.at("technical_duplicates"), 0);
  EXPECT_TRUE(first.at("conservation_ok").get<bool>());
  nlohmann::json second = replay();
  EXPECT_EQ(second.at("messages"), written.size());
  EXPECT_EQ(second.at("technical_duplicates"), written.size());
  EXPECT_EQ(second.at("silver"), 0);
}

}  // namespace
}  // namespace ocppgw::kafka
