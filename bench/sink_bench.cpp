// bench/sink_bench.cpp: throughput and ack latency of the SQLite event sink alone. N simulated
// charge points each keep one frame in flight (as OCPP 1.6 allows): a frame is submitted, and
// the next one only after its completion, exactly the ack-after-durable loop of a session.
// Completions hand the charge point to a small pool of submitter threads (the sessions'
// strands in the gateway), so the sink thread only commits. Prints frames/s, events/s, batch
// sizes and p50/p99/max of submit -> durable latency.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "analytics/event.hpp"
#include "csms/sqlite_event_sink.hpp"
#include "util/time.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using namespace ocppgw;

struct Ready {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<int> clients;
  bool done = false;
};

csms::SinkEntry make_entry(int client, int64_t n) {
  csms::SinkEntry e;
  e.charge_point_id = "CP" + std::to_string(client);
  e.raw_frame = "[2,\"" + std::to_string(n) +
                "\",\"MeterValues\",{\"connectorId\":1,\"transactionId\":42,\"meterValue\":[{"
                "\"timestamp\":\"2024-01-01T00:00:00Z\",\"sampledValue\":[{\"value\":\"1234\","
                "\"measurand\":\"Energy.Active.Import.Register\",\"unit\":\"Wh\"}]}]}]";
  e.received_ms = util::now_ms();
  analytics::Event ev;
  ev.event_id = e.charge_point_id + "-" + std::to_string(n);
  ev.charge_point_id = e.charge_point_id;
  ev.connector_id = 1;
  ev.event_type = analytics::EventType::MeterValues;
  ev.ocpp_action = "MeterValues";
  ev.message_id = std::to_string(n);
  ev.event_ts_ms = e.received_ms;
  ev.ingest_ts_ms = e.received_ms;
  ev.transaction_id = "42";
  ev.meter_wh = 1234;
  ev.ocpp_version = "1.6";
  ev.gateway_node = "node-0";
  e.events.push_back(std::move(ev));
  return e;
}

}  // namespace

int main(int argc, char** argv) {
  int clients = 1000;
  double seconds = 5;
  int submitters = 2;
  int linger_us = 0;
  bool no_fsync = false;
  std::string dir = std::filesystem::temp_directory_path() / "ocppgw-sink-bench";
  CLI::App app("SQLite event sink benchmark (ack-after-durable loop)");
  app.add_option("--clients", clients, "Simulated charge points, one frame in flight each");
  app.add_option("--seconds", seconds, "Measured duration");
  app.add_option("--submitters", submitters, "Threads that build and submit entries");
  app.add_option("--linger-us", linger_us, "Sink max linger (microseconds)");
  app.add_flag("--no-fsync", no_fsync, "synchronous=NORMAL (not durable; for comparison)");
  app.add_option("--dir", dir, "Directory for the database (emptied first)");
  CLI11_PARSE(app, argc, argv);

  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  csms::SqliteSinkOptions options;
  options.db_path = dir + "/bench.db";
  options.max_linger_us = linger_us;
  options.synchronous_full = !no_fsync;
  storage::Status s;
  auto sink = csms::make_sqlite_event_sink(options, &s);
  if (!sink) {
    std::fprintf(stderr, "sink: %s\n", s.message().c_str());
    return 1;
  }

  Ready ready;
  std::vector<Clock::time_point> sent(static_cast<size_t>(clients));
  std::vector<int64_t> seq(static_cast<size_t>(clients), 0);
  std::mutex lat_mu;
  std::vector<double> latencies_us;
  latencies_us.reserve(1 << 20);
  std::atomic<bool> measuring{false};
  std::atomic<int64_t> failures{0};

  auto submit = [&](int c) {
    const auto i = static_cast<size_t>(c);
    csms::SinkEntry e = make_entry(c, seq[i]++);
    sent[i] = Clock::now();
    e.on_durable = [&, c, i](bool ok) {
      if (!ok) ++failures;
      if (measuring.load(std::memory_order_relaxed)) {
        const double us = std::chrono::duration<double, std::micro>(Clock::now() - sent[i]).count();
        std::lock_guard lock(lat_mu);
        latencies_us.push_back(us);
      }
      {
        std::lock_guard lock(ready.mu);
        ready.clients.push_back(c);
      }
      ready.cv.notify_one();
    };
    sink->submit(std::move(e));
  };

  std::vector<std::thread> pool;
  for (int t = 0; t < submitters; ++t) {
    pool.emplace_back([&] {
      while (true) {
        int c;
        {
          std::unique_lock lock(ready.mu);
          ready.cv.wait(lock, [&] { return ready.done || !ready.clients.empty(); });
          if (ready.done) return;
          c = ready.clients.front();
          ready.clients.pop_front();
        }
        submit(c);
      }
    });
  }
  for (int c = 0; c < clients; ++c) submit(c);

  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // warm-up
  const csms::SinkStats before = sink->stats();
  measuring = true;
  const auto t0 = Clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  measuring = false;
  const double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
  const csms::SinkStats after = sink->stats();
  {
    std::lock_guard lock(ready.mu);
    ready.done = true;
  }
  ready.cv.notify_all();
  for (auto& th : pool) th.join();
  sink->stop();

  std::vector<double> lat;
  {
    std::lock_guard lock(lat_mu);
    lat = latencies_us;
  }
  std::sort(lat.begin(), lat.end());
  auto pct = [&](double p) {
    return lat.empty() ? 0.0
                       : lat[std::min(lat.size() - 1,
                                      static_cast<size_t>(p * static_cast<double>(lat.size())))];
  };
  const double frames = static_cast<double>(after.frames_committed - before.frames_committed);
  const double batches = static_cast<double>(after.batches - before.batches);
  std::printf(
      "clients=%d fsync=%s linger_us=%d\n"
      "frames/s=%.0f events/s=%.0f commits/s=%.0f mean_batch=%.1f\n"
      "ack latency us: p50=%.0f p99=%.0f max=%.0f  failures=%lld\n",
      clients, no_fsync ? "off" : "on", linger_us, frames / elapsed,
      static_cast<double>(after.events_committed - before.events_committed) / elapsed,
      batches / elapsed, batches > 0 ? frames / batches : 0.0, pct(0.5), pct(0.99),
      lat.empty() ? 0.0 : lat.back(), static_cast<long long>(failures.load()));
  std::filesystem::remove_all(dir);
  return failures.load() == 0 ? 0 : 1;
}
