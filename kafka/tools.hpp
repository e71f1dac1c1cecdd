// kafka/tools.hpp: reading the event topic back: a librdkafka consumer helper
// (consume_topic) and the `ocppgw kafka-tail` / `ocppgw kafka-replay` commands built on it.
// The consumer assigns every partition itself (no consumer group, nothing committed), so tools
// never disturb the data engineers' consumer groups.
//
//   ocppgw kafka-tail   [-b brokers] [-t topic] [-X prop=value]... [--from beginning|end|N]
//                       [--count N] [--timeout S] [--until-end] [--format json|text]
//   ocppgw kafka-replay [-b brokers] [-t topic] [-X prop=value]... [--from ...] [--count N]
//                       [--timeout S] [--until-end] [--batch N]   (feeds the analytics pipeline)
//
// Usage from main (same pattern as the token commands):
//   KafkaCommands kc = add_kafka_commands(app, [&] { return KafkaToolEnv{kafka_config, ...}; });
//   try { app.parse(argc, argv); } catch (const CLI::ParseError& e) { return app.exit(e); }
//   if (kc.parsed()) return 0;   // the command already ran
// The env function runs when a command runs (after config file, environment and flags), and
// its KafkaConfig provides the defaults (brokers, topic, security properties) that -b/-t/-X
// override. Failures throw CLI::RuntimeError (exit code 1).
// Threading: consume_topic runs on the caller's thread; the callback is called there too.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "analytics/pipeline.hpp"
#include "kafka/publisher.hpp"
#include "storage/db.hpp"

namespace ocppgw::kafka {

struct ConsumedMessage {
  int32_t partition = 0;
  int64_t offset = 0;
  int64_t timestamp_ms = 0;
  std::optional<std::string> key;
  std::string value;
  std::map<std::string, std::string> headers;
};

struct ConsumeOptions {
  std::string topic;
  std::map<std::string, std::string> properties;  // librdkafka consumer properties
  std::string from = "beginning";  // "beginning", "end", or an offset applied to every partition
  size_t max_messages = 0;         // 0: unlimited
  int timeout_ms = 0;              // stop after this long without a message; 0: no limit
  bool until_end = false;          // stop once every partition reached its end
};

// Calls on_message for each message (return false to stop). Returns the number consumed
// through *count. Fails on unknown topic, bad properties or a consumer error.
storage::Status consume_topic(const ConsumeOptions& options,
                              const std::function<bool(const ConsumedMessage&)>& on_message,
                              size_t* count = nullptr);

struct KafkaToolEnv {
  KafkaConfig kafka;                    // brokers, topic, security properties from the config
  analytics::PipelineOptions pipeline;  // the analytics store kafka-replay feeds
};

struct KafkaCommands {
  CLI::App* tail = nullptr;
  CLI::App* replay = nullptr;
  bool parsed() const { return (tail && tail->parsed()) || (replay && replay->parsed()); }
};

KafkaCommands add_kafka_commands(CLI::App& app, std::function<KafkaToolEnv()> env,
                                 std::ostream* out = nullptr);

}  // namespace ocppgw::kafka
