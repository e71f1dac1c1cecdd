// kafka/tools.cpp: consume_topic and the kafka-tail / kafka-replay commands (see
// tools.hpp). Runs in the CLI process, never inside the serving gateway.
#include "kafka/tools.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include <librdkafka/rdkafka.h>
#include <nlohmann/json.hpp>

namespace ocppgw::kafka {
namespace {

using storage::Status;
using Clock = std::chrono::steady_clock;

// RAII for the handles consume_topic juggles.
struct ConsumerHandle {
  rd_kafka_t* rk = nullptr;
  ~ConsumerHandle() {
    if (rk) {
      rd_kafka_consumer_close(rk);
      rd_kafka_destroy(rk);
    }
  }
};

std::optional<int64_t> start_offset(const std::string& from, std::string* error) {
  if (from == "beginning") return RD_KAFKA_OFFSET_BEGINNING;
  if (from == "end") return RD_KAFKA_OFFSET_END;
  try {
    size_t used = 0;
    long long n = std::stoll(from, &used);
    if (used == from.size()) return n >= 0 ? n : RD_KAFKA_OFFSET_TAIL(-n);
  } catch (const std::exception&) {
  }
  *error = "--from: expected beginning, end, an offset, or -N (last N per partition), got '" +
           from + "'";
  return std::nullopt;
}

ConsumedMessage to_consumed(const rd_kafka_message_t* m) {
  ConsumedMessage c;
  c.partition = m->partition;
  c.offset = m->offset;
  rd_kafka_timestamp_type_t tstype;
  c.timestamp_ms = rd_kafka_message_timestamp(m, &tstype);
  if (m->key) c.key = std::string(static_cast<const char*>(m->key), m->key_len);
  if (m->payload) c.value.assign(static_cast<const char*>(m->payload), m->len);
  rd_kafka_headers_t* hdrs = nullptr;
  if (rd_kafka_message_headers(m, &hdrs) == RD_KAFKA_RESP_ERR_NO_ERROR) {
    const char* name;
    const void* val;
    size_t size;
    for (size_t i = 0;
         rd_kafka_header_get_all(hdrs, i, &name, &val, &size) == RD_KAFKA_RESP_ERR_NO_ERROR; ++i) {
      c.headers[name] = val ? std::string(static_cast<const char*>(val), size) : std::string();
    }
  }
  return c;
}

}  // namespace

Status consume_topic(const ConsumeOptions& options,
                     const std::function<bool(const ConsumedMessage&)>& on_message, size_t* count) {
  if (count) *count = 0;
  std::string error;
  auto offset = start_offset(options.from, &error);
  if (!offset) return Status::error(error);

  char errstr[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  // rd_kafka_consumer_poll needs a group id, but partitions are assigned by hand and nothing is
  // committed, so the group never exists on the broker.
  std::map<std::string, std::string> props = {
      {"group.id", "ocppgw-tools-" + std::to_string(std::random_device{}())},
      {"enable.auto.commit", "false"},
      {"enable.auto.offset.store", "false"},
      {"enable.partition.eof", "true"},
  };
  for (const auto& [k, v] : options.properties) props[k] = v;
  for (const auto& [k, v] : props) {
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), errstr, sizeof errstr) != RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      return Status::error("kafka." + k + ": " + errstr);
    }
  }
  ConsumerHandle h;
  h.rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof errstr);
  if (!h.rk) {
    rd_kafka_conf_destroy(conf);
    return Status::error(std::string("kafka consumer: ") + errstr);
  }

  // Partition list from metadata; a freshly created topic may report no leader for a moment.
  std::vector<int32_t> partitions;
  auto meta_deadline = Clock::now() + std::chrono::seconds(15);
  while (partitions.empty()) {
    rd_kafka_topic_t* rkt = rd_kafka_topic_new(h.rk, options.topic.c_str(), nullptr);
    const rd_kafka_metadata_t* md = nullptr;
    rd_kafka_resp_err_t err = rd_kafka_metadata(h.rk, 0, rkt, &md, 5000);
    std::string why;
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      why = rd_kafka_err2str(err);
    } else if (md->topic_cnt != 1 || md->topics[0].err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      why = md->topic_cnt == 1 ? rd_kafka_err2str(md->topics[0].err) : "no topic metadata";
    } else {
      for (int i = 0; i < md->topics[0].partition_cnt; ++i) {
        partitions.push_back(md->topics[0].partitions[i].id);
      }
    }
    if (md) rd_kafka_metadata_destroy(md);
    rd_kafka_topic_destroy(rkt);
    if (partitions.empty()) {
      if (Clock::now() >= meta_deadline) {
        return Status::error("kafka topic '" + options.topic + "': " + why);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }

  rd_kafka_topic_partition_list_t* list =
      rd_kafka_topic_partition_list_new(static_cast<int>(partitions.size()));
  for (int32_t p : partitions) {
    rd_kafka_topic_partition_list_add(list, options.topic.c_str(), p)->offset = *offset;
  }
  rd_kafka_resp_err_t aerr = rd_kafka_assign(h.rk, list);
  rd_kafka_topic_partition_list_destroy(list);
  if (aerr != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return Status::error(std::string("kafka assign: ") + rd_kafka_err2str(aerr));
  }

  std::vector<bool> at_end(partitions.size(), false);
  auto partition_index = [&](int32_t p) {
    for (size_t i = 0; i < partitions.size(); ++i)
      if (partitions[i] == p) return i;
    return partitions.size();
  };
  size_t n = 0;
  auto last_activity = Clock::now();
  while (true) {
    if (options.max_messages && n >= options.max_messages) break;
    if (options.timeout_ms > 0 &&
        Clock::now() - last_activity >= std::chrono::milliseconds(options.timeout_ms)) {
      break;
    }
    rd_kafka_message_t* m = rd_kafka_consumer_poll(h.rk, 100);
    if (!m) continue;
    std::unique_ptr<rd_kafka_message_t, decltype(&rd_kafka_message_destroy)> guard(
        m, &rd_kafka_message_destroy);
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      size_t i = partition_index(m->partition);
      if (i < at_end.size()) at_end[i] = true;
      if (options.until_end && std::all_of(at_end.begin(), at_end.end(), [](bool b) { return b; }))
        break;
      continue;
    }
    if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      char buf[256];
      if (rd_kafka_fatal_error(h.rk, buf, sizeof buf) != RD_KAFKA_RESP_ERR_NO_ERROR) {
        return Status::error(std::string("kafka consumer fatal error: ") + buf);
      }
      if (m->err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART ||
          m->err == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED) {
        return Status::error(std::string("kafka consumer: ") + rd_kafka_message_errstr(m));
      }
      continue;  // transient (broker down, ...): librdkafka retries
    }
    last_activity = Clock::now();
    size_t i = partition_index(m->partition);
    if (i < at_end.size()) at_end[i] = false;
    ++n;
    if (count) *count = n;
    if (!on_message(to_consumed(m))) break;
  }
  return Status();
}

namespace {

struct ToolArgs {
  std::string brokers;
  std::string topic;
  std::vector<std::string> props;
  std::string from = "beginning";
  size_t count = 0;
  double timeout_s = 0;
  bool until_end = false;
  std::string format = "value";
  size_t batch = 1000;
};

// main() prints the message and exits 1.
[[noreturn]] void fail(const std::string& message) { throw CLI::RuntimeError(message, 1); }

void add_common_options(CLI::App* sub, const std::shared_ptr<ToolArgs>& a) {
  sub->add_option("-b,--brokers", a->brokers, "bootstrap.servers (default: gateway config)");
  sub->add_option("-t,--topic", a->topic, "Topic (default: gateway config kafka.topic)");
  sub->add_option("-X,--property", a->props, "librdkafka property prop=value (repeatable)");
  sub->add_option("--from", a->from,
                  "beginning, end, an offset, or -N for the last N per partition");
  sub->add_option("--count", a->count, "Stop after this many messages");
  sub->add_option("--timeout", a->timeout_s, "Stop after this many seconds without a message");
  sub->add_flag("--until-end", a->until_end, "Stop once every partition is read to its end");
}

ConsumeOptions consume_options(const ToolArgs& a, const KafkaToolEnv& env) {
  ConsumeOptions o;
  // Security and connection properties of the gateway config apply to the consumer too;
  // producer-only ones would make rd_kafka_new warn, so they are left out.
  static const std::set<std::string, std::less<>> kProducerOnly = {"enable.idempotence",
                                                                   "acks",
                                                                   "message.timeout.ms",
                                                                   "enable.gapless.guarantee",
                                                                   "partitioner",
                                                                   "linger.ms",
                                                                   "queue.buffering.max.ms",
                                                                   "queue.buffering.max.messages",
                                                                   "queue.buffering.max.kbytes",
                                                                   "batch.num.messages",
                                                                   "batch.size",
                                                                   "compression.type",
                                                                   "compression.codec",
                                                                   "request.required.acks",
                                                                   "retries",
                                                                   "delivery.timeout.ms"};
  for (const auto& [k, v] : env.kafka.properties) {
    if (!kProducerOnly.contains(k)) o.properties[k] = v;
  }
  o.topic = a.topic.empty() ? env.kafka.topic : a.topic;
  if (!a.brokers.empty()) o.properties["bootstrap.servers"] = a.brokers;
  for (const std::string& p : a.props) {
    size_t eq = p.find('=');
    if (eq == std::string::npos || eq == 0) fail("-X expects prop=value, got '" + p + "'");
    o.properties[p.substr(0, eq)] = p.substr(eq + 1);
  }
  if (!o.properties.contains("bootstrap.servers") && !o.properties.contains("metadata.broker.list"))
    fail("no Kafka brokers: pass -b host:port or configure kafka.bootstrap.servers");
  o.from = a.from;
  o.max_messages = a.count;
  o.timeout_ms = static_cast<int>(a.timeout_s * 1000);
  o.until_end = a.until_end;
  return o;
}

void print(std::ostream& os, const std::string& format, const ConsumedMessage& m) {
  if (format == "value") {
    os << m.value << '\n';
    return;
  }
  if (format == "text") {
    os << m.partition << ':' << m.offset << ' ' << m.key.value_or("-") << ' '
       << (m.headers.contains("event_type") ? m.headers.at("event_type") : "-") << ' ' << m.value
       << '\n';
    return;
  }
  nlohmann::json j = {{"partition", m.partition},
                      {"offset", m.offset},
                      {"timestamp_ms", m.timestamp_ms},
                      {"headers", m.headers}};
  j["key"] = m.key ? nlohmann::json(*m.key) : nlohmann::json(nullptr);
  nlohmann::json value = nlohmann::json::parse(m.value, nullptr, false);
  j["value"] = value.is_discarded() ? nlohmann::json(m.value) : value;
  os << j.dump() << '\n';
}

}  // namespace

KafkaCommands add_kafka_commands(CLI::App& app, std::function<KafkaToolEnv()> env,
                                 std::ostream* out) {
  std::ostream& os = out ? *out : std::cout;
  KafkaCommands cmds;

  auto tail_args = std::make_shared<ToolArgs>();
  cmds.tail = app.add_subcommand("kafka-tail", "Print events from the Kafka topic");
  add_common_options(cmds.tail, tail_args);
  cmds.tail
      ->add_option("--format", tail_args->format,
                   "value (event JSON per line), json (with partition/offset/key/headers), text")
      ->check(CLI::IsMember({"value", "json", "text"}));
  cmds.tail->callback([env, tail_args, &os] {
    ConsumeOptions o = consume_options(*tail_args, env());
    size_t n = 0;
    Status s = consume_topic(
        o,
        [&](const ConsumedMessage& m) {
          print(os, tail_args->format, m);
          return true;
        },
        &n);
    os.flush();
    if (!s.ok()) fail("kafka-tail: " + s.message());
    std::cerr << "kafka-tail: " << n << " message(s)\n";
  });

  auto replay_args = std::make_shared<ToolArgs>();
  cmds.replay = app.add_subcommand(
      "kafka-replay",
      "Feed the topic's events into the analytics pipeline (rebuilds, other nodes)");
  add_common_options(cmds.replay, replay_args);
  cmds.replay->add_option("--batch", replay_args->batch, "Messages per pipeline batch")
      ->check(CLI::Range(size_t{1}, size_t{100000}));
  cmds.replay->callback([env, replay_args, &os] {
    const KafkaToolEnv e = env();
    ConsumeOptions o = consume_options(*replay_args, e);
    Status st;
    std::error_code ec;
    std::filesystem::path parent = std::filesystem::path(e.pipeline.path).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    auto pipeline = analytics::Pipeline::open(e.pipeline, &st);
    if (!pipeline) fail("kafka-replay: analytics store " + e.pipeline.path + ": " + st.message());
    nlohmann::json totals = {{"messages", 0},
                             {"batches", 0},
                             {"silver", 0},
                             {"technical_duplicates", 0},
                             {"business_duplicates", 0},
                             {"quarantined", 0}};
    std::vector<analytics::RawInput> batch;
    auto flush = [&] {
      if (batch.empty()) return;
      analytics::BatchReport r = pipeline->ingest_raw(batch, analytics::Source::Kafka);
      if (!r.status.ok()) fail("kafka-replay: pipeline: " + r.status.message());
      totals["messages"] = totals["messages"].get<int64_t>() + r.raw;
      totals["batches"] = totals["batches"].get<int64_t>() + 1;
      totals["silver"] = totals["silver"].get<int64_t>() + r.silver;
      totals["technical_duplicates"] =
          totals["technical_duplicates"].get<int64_t>() + r.technical_duplicates;
      totals["business_duplicates"] =
          totals["business_duplicates"].get<int64_t>() + r.business_duplicates;
      totals["quarantined"] = totals["quarantined"].get<int64_t>() + r.quarantined;
      totals["conservation_ok"] = r.conservation_ok;
      batch.clear();
    };
    Status s = consume_topic(o, [&](const ConsumedMessage& m) {
      batch.push_back(analytics::RawInput{m.value, m.key});
      if (batch.size() >= replay_args->batch) flush();
      return true;
    });
    flush();  // what was read before an error is kept: the pipeline dedups a later re-run
    if (!s.ok()) fail("kafka-replay: " + s.message());
    os << totals.dump() << '\n';
  });
  return cmds;
}

}  // namespace ocppgw::kafka
