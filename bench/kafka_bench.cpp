// bench/kafka_bench.cpp: the Kafka publisher against a real broker (bench/kafka_bench.sh starts
// one with scripts/kafka.sh). Two figures:
//   drain    a pre-filled outbox of --events rows is published; events/s from publisher start
//            to the last row deleted (produce, delivery report, batched delete all included)
//   latency  events are committed at a steady --rate (fsync per commit, as the event sink does)
//            and the time from "frame received" (just before the commit) to the delivery
//            report is recorded for each; prints p50/p99/max
// Uses a real gateway database file (migrated) in a temp dir. Single-threaded driver; the
// publisher runs its own thread as in the gateway.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <thread>
#include <vector>

#include <unistd.h>

#include <CLI/CLI.hpp>

#include "kafka/publisher.hpp"
#include "tests/unit/kafka/event_log_writer.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using namespace ocppgw;

struct Args {
  std::string brokers;
  std::string topic;
  std::string mode = "both";
  int64_t events = 1000000;
  int cps = 1000;
  size_t payload = 0;
  int rate = 2000;
  int seconds = 10;
  std::vector<std::string> props;
};

std::vector<std::string> charge_points(int n) {
  std::vector<std::string> v;
  for (int i = 0; i < n; ++i) v.push_back("CP-" + std::to_string(i));
  return v;
}

kafka::KafkaConfig config(const Args& a, const std::string& db, const std::string& topic) {
  kafka::KafkaConfig c;
  c.db_path = db;
  c.topic = topic;
  c.properties["bootstrap.servers"] = a.brokers;
  c.stats_log_interval_s = 0;
  for (const auto& p : a.props) {
    auto eq = p.find('=');
    if (eq != std::string::npos) (void)c.set(p.substr(0, eq), p.substr(eq + 1));
  }
  return c;
}

int drain(const Args& a, const std::filesystem::path& dir) {
  const std::string db = (dir / "drain.db").string();
  testing::EventLogWriter writer(db, /*durable=*/false);
  const auto cps = charge_points(a.cps);
  const int per_round = std::max(1, 20000 / a.cps);
  auto t0 = Clock::now();
  int64_t written = 0;
  size_t bytes = 0;
  while (written < a.events) {
    auto batch = writer.append(cps, per_round, a.payload);
    written += static_cast<int64_t>(batch.size());
    for (const auto& w : batch) bytes += w.json.size();
  }
  double fill_s = std::chrono::duration<double>(Clock::now() - t0).count();
  std::printf("drain: outbox pre-filled with %lld events (%.0f bytes avg) in %.1f s\n",
              static_cast<long long>(written),
              static_cast<double>(bytes) / static_cast<double>(written), fill_s);
  std::fflush(stdout);

  kafka::KafkaPublisher p(config(a, db, a.topic + "-drain"));
  auto t1 = Clock::now();
  if (auto s = p.start(); !s.ok()) {
    std::fprintf(stderr, "publisher: %s\n", s.message().c_str());
    return 1;
  }
  while (true) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    auto st = p.stats();
    if (st.delivered >= static_cast<uint64_t>(written) && st.in_flight == 0 &&
        writer.outbox_seqs().empty()) {
      break;
    }
    if (Clock::now() - t1 > std::chrono::minutes(20)) {
      std::fprintf(stderr, "drain: not done after 20 minutes: %s\n", to_json(st).dump().c_str());
      return 1;
    }
  }
  double secs = std::chrono::duration<double>(Clock::now() - t1).count();
  p.stop();
  auto st = p.stats();
  std::printf(
      "drain: %lld events published in %.2f s = %.0f events/s (%.1f MB/s of values); "
      "delivered=%llu errors=%llu queue_full_pauses=%llu\n",
      static_cast<long long>(written), secs, static_cast<double>(written) / secs,
      static_cast<double>(bytes) / secs / 1e6, static_cast<unsigned long long>(st.delivered),
      static_cast<unsigned long long>(st.delivery_errors),
      static_cast<unsigned long long>(st.queue_full_pauses));
  return 0;
}

int latency(const Args& a, const std::filesystem::path& dir) {
  const std::string db = (dir / "latency.db").string();
  testing::EventLogWriter writer(db, /*durable=*/true);
  const int64_t total = static_cast<int64_t>(a.rate) * a.seconds;
  // received[seq] = steady ns just before the commit; written before notify, read by the
  // publisher thread's observer after the row was committed and delivered.
  std::vector<std::atomic<int64_t>> received(static_cast<size_t>(total + 16));
  std::vector<double> latencies_ms;
  std::vector<double> commit_ms;  // oldest event of each batch: scheduled arrival -> committed
  latencies_ms.reserve(static_cast<size_t>(total));
  std::atomic<int64_t> first_seq{-1};
  auto now_ns = [] {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
        .count();
  };

  kafka::KafkaConfig c = config(a, db, a.topic + "-latency");
  c.on_delivery = [&](const kafka::DeliveryReport& r) {
    if (r.error != 0) return;
    int64_t idx = r.seq - first_seq.load();
    if (idx < 0 || idx >= static_cast<int64_t>(received.size())) return;
    latencies_ms.push_back(static_cast<double>(now_ns() - received[static_cast<size_t>(idx)]) /
                           1e6);
  };
  kafka::KafkaPublisher p(c);
  if (auto s = p.start(); !s.ok()) {
    std::fprintf(stderr, "publisher: %s\n", s.message().c_str());
    return 1;
  }
  // Warm-up: producer id, metadata and topic creation are not part of the steady state.
  {
    auto w = writer.append({"warmup"}, 1);
    p.notify();
    while (p.stats().delivered < 1) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    first_seq = w.back().seq + 1;
    latencies_ms.clear();
  }
  // Events arrive on a fixed schedule; whatever is due is committed in one fsync'd transaction
  // (the sink's group commit), and each event's "received" time is its scheduled arrival, so
  // waiting for the commit counts.
  const auto cps = charge_points(a.cps);
  const int64_t interval_ns = 1000000000LL / std::max(1, a.rate);
  const int64_t start_ns = now_ns();
  int64_t sent = 0;
  while (sent < total) {
    int64_t due = std::min(total, (now_ns() - start_ns) / interval_ns + 1);
    if (due <= sent) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      continue;
    }
    std::vector<std::string> batch;
    for (int64_t i = sent; i < due; ++i) {
      received[static_cast<size_t>(i)] = start_ns + i * interval_ns;
      batch.push_back(cps[static_cast<size_t>(i) % cps.size()]);
    }
    auto w = writer.append(batch, 1, a.payload);
    commit_ms.push_back(static_cast<double>(now_ns() - (start_ns + sent * interval_ns)) / 1e6);
    if (w.front().seq - first_seq != sent || w.back().seq - first_seq != due - 1) {
      std::fprintf(stderr, "latency: unexpected seq gap\n");
      return 1;
    }
    p.notify();
    sent = due;
  }
  auto deadline = Clock::now() + std::chrono::seconds(60);
  while (p.stats().delivered < static_cast<uint64_t>(total + 1) && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  p.stop();
  if (latencies_ms.empty()) {
    std::fprintf(stderr, "latency: no deliveries\n");
    return 1;
  }
  std::sort(latencies_ms.begin(), latencies_ms.end());
  std::sort(commit_ms.begin(), commit_ms.end());
  std::printf(
      "latency: %zu commits, oldest-in-batch arrival -> committed p50 %.2f ms, p99 %.2f ms\n",
      commit_ms.size(), commit_ms[commit_ms.size() / 2],
      commit_ms[static_cast<size_t>(0.99 * static_cast<double>(commit_ms.size() - 1))]);
  auto pct = [&](double q) {
    return latencies_ms[static_cast<size_t>(q * static_cast<double>(latencies_ms.size() - 1))];
  };
  std::printf(
      "latency: %zu events at %d/s over %d s (group-committed with fsync): received -> delivery "
      "report p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
      latencies_ms.size(), a.rate, a.seconds, pct(0.5), pct(0.99), latencies_ms.back());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  CLI::App app("Kafka publisher benchmark against a real broker");
  app.add_option("--brokers", a.brokers, "bootstrap.servers")->required();
  app.add_option("--topic", a.topic, "Topic prefix (a suffix per mode is added)")
      ->default_val("bench-" + std::to_string(std::time(nullptr)));
  app.add_option("--mode", a.mode)->check(CLI::IsMember({"drain", "latency", "both"}));
  app.add_option("--events", a.events, "Outbox rows for the drain figure");
  app.add_option("--cps", a.cps, "Distinct charge points (keys)");
  app.add_option("--payload", a.payload, "Extra bytes of padding per event");
  app.add_option("--rate", a.rate, "Events/s for the latency figure");
  app.add_option("--seconds", a.seconds, "Duration of the latency run");
  app.add_option("-X", a.props, "Publisher setting key=value (kafka.* keys)");
  CLI11_PARSE(app, argc, argv);

  auto dir =
      std::filesystem::temp_directory_path() / ("ocppgw-kafka-bench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  int rc = 0;
  if (a.mode != "latency") rc |= drain(a, dir);
  if (a.mode != "drain") rc |= latency(a, dir);
  std::filesystem::remove_all(dir);
  return rc;
}
