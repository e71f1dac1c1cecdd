// sim/fleet_run.cpp: running a prepared fleet: start the shard threads, drive the phases (ramp,
// steady, storm, stop and drain), print the progress line, then stop the shards and add up
// what they measured. Everything here runs on the controlling thread, which only posts work to
// the shards and reads their relaxed counters (see fleet_shard.hpp).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <thread>

#include "sim/fleet.hpp"
#include "sim/fleet_shard.hpp"

namespace ocppgw::sim {
namespace {

namespace net = boost::asio;
using Clock = std::chrono::steady_clock;

std::string fmt_us(uint64_t us) {
  char b[32];
  if (us < 1000)
    std::snprintf(b, sizeof b, "%lluus", static_cast<unsigned long long>(us));
  else if (us < 1000000)
    std::snprintf(b, sizeof b, "%.1fms", static_cast<double>(us) / 1000);
  else
    std::snprintf(b, sizeof b, "%.2fs", static_cast<double>(us) / 1e6);
  return b;
}

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::chrono::milliseconds seconds_ms(double s) {
  return std::chrono::milliseconds(static_cast<int64_t>(s * 1000));
}

}  // namespace

// One run seen from the controlling thread. The phases poll the shards' counters every 20 ms
// instead of waiting for events from them, so the io threads never block on the controller.
class Fleet::Run {
 public:
  Run(const SimConfig& config, Shared& shared, std::vector<std::unique_ptr<Shard>>& shards)
      : config_(config), shared_(shared), shards_(shards) {}
  RunResult execute();

 private:
  struct Totals {
    int64_t connected = 0, booted = 0, sent = 0, acked = 0, errors = 0, busy = 0, storm = 0;
    LatencyHistogram hist;
  };

  void start_shards();
  Totals totals() const;
  void progress(const char* phase);
  void run_phase();
  void start_storm();
  void measure_steady_window();
  void stop_and_drain();
  void report_still_busy();
  void stop_shards();
  void collect();

  const SimConfig& config_;
  Shared& shared_;
  std::vector<std::unique_ptr<Shard>>& shards_;
  RunResult r_;
  Clock::time_point t0_;
  bool tty_ = false;
  double interval_ = 0;  // seconds between progress lines
  Totals last_;          // at the previous progress line, for its rates
  Clock::time_point last_t_;
  Clock::time_point next_progress_;
  Clock::time_point warm_end_;
  Totals warm_;
  bool warm_taken_ = false;
  bool storm_started_ = false;
  Clock::time_point storm_t_;
};

RunResult Fleet::run() { return Run(config_, *shared_, shards_).execute(); }

RunResult Fleet::Run::execute() {
  r_.charge_points = config_.count;
  start_shards();
  // A terminal gets one line rewritten every second; a log gets a line per --progress.
  tty_ = ::isatty(STDERR_FILENO);
  interval_ = tty_ ? 1.0 : config_.progress_s;
  last_ = totals();
  last_t_ = Clock::now();
  run_phase();
  stop_and_drain();
  stop_shards();
  collect();
  return std::move(r_);
}

void Fleet::Run::start_shards() {
  t0_ = shared_.t0 = Clock::now();
  for (auto& s : shards_) {
    s->ctx.t0 = t0_;
    s->work = std::make_unique<Shard::WorkGuard>(s->ioc.get_executor());
    s->thread = std::thread([&ioc = s->ioc] { ioc.run(); });
    net::post(s->ioc, [p = s.get()] {
      p->last_pace = Clock::now();
      p->pace();
    });
  }
}

Fleet::Run::Totals Fleet::Run::totals() const {
  Totals t;
  for (auto& s : shards_) {
    t.connected += s->stats.connected.get();
    t.booted += s->stats.booted.get();
    t.sent += s->stats.frames_sent.get();
    t.acked += s->stats.calls_acked.get();
    t.errors +=
        s->stats.call_errors.get() + s->ctx.timeouts.get() + s->stats.connect_failures.get();
    t.busy += s->stats.busy.get();
    t.storm += s->ctx.storm_pending.get();
    t.hist.merge(s->stats.ack_latency.snapshot());
  }
  return t;
}

// Rates and percentiles cover the interval since the previous line, not the whole run, so a
// slowdown shows when it happens.
void Fleet::Run::progress(const char* phase) {
  const Totals t = totals();
  const double dt = std::max(1e-3, since(last_t_));
  const auto d = histogram_delta(t.hist, last_.hist);
  std::fprintf(stderr,
               "%s[%6.1fs %-6s] connected %lld/%d booted %lld  sent %.0f/s  acked %.0f/s  "
               "p50 %s p99 %s  errors %lld  busy %lld%s",
               tty_ ? "\r" : "", since(t0_), phase, static_cast<long long>(t.connected),
               config_.count, static_cast<long long>(t.booted),
               static_cast<double>(t.sent - last_.sent) / dt,
               static_cast<double>(t.acked - last_.acked) / dt, fmt_us(d.percentile(0.5)).c_str(),
               fmt_us(d.percentile(0.99)).c_str(), static_cast<long long>(t.errors),
               static_cast<long long>(t.busy), tty_ ? "   " : "\n");
  std::fflush(stderr);
  last_ = t;
  last_t_ = Clock::now();
}

void Fleet::Run::run_phase() {
  const auto run_end = t0_ + seconds_ms(config_.duration_s);
  warm_end_ = t0_ + seconds_ms(config_.mode == RunMode::Load ? config_.warmup_s : 0);
  next_progress_ = Clock::now() + seconds_ms(interval_);
  while (Clock::now() < run_end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const auto now = Clock::now();
    const Totals t = totals();
    r_.max_connected = std::max(r_.max_connected, t.connected);
    if (r_.ramp_s < 0 && t.booted >= config_.count) r_.ramp_s = since(t0_);
    if (!warm_taken_ && now >= warm_end_) {
      warm_ = t;
      warm_taken_ = true;
    }
    if (config_.storm_at_s > 0 && !storm_started_ && since(t0_) >= config_.storm_at_s)
      start_storm();
    if (storm_started_ && r_.storm_drain_s < 0 && since(storm_t_) > 0.2 && t.storm == 0) {
      r_.storm_drain_s = since(storm_t_);
      std::fprintf(stderr, "%sstorm drained in %.2f s\n", tty_ ? "\n" : "", r_.storm_drain_s);
    }
    // A storm run has measured what it came for once the storm has drained.
    if (storm_started_ && r_.storm_drain_s >= 0 && since(storm_t_) > r_.storm_drain_s + 2) break;
    if (now >= next_progress_) {
      progress("run");
      next_progress_ = now + seconds_ms(interval_);
    }
  }
  r_.run_s = since(t0_);
  measure_steady_window();
}

void Fleet::Run::start_storm() {
  storm_started_ = true;
  storm_t_ = Clock::now();
  std::fprintf(stderr, "%sreconnect storm: every charge point drops and reconnects\n",
               tty_ ? "\n" : "");
  for (auto& s : shards_)
    net::post(s->ioc, [p = s.get()] {
      for (auto& cp : p->cps) cp->storm();
    });
}

// Load mode's sustained rate and latency leave out the warm-up, while connections are still
// ramping up.
void Fleet::Run::measure_steady_window() {
  const Totals at_end = totals();
  if (!warm_taken_) return;
  r_.steady_s = r_.run_s - std::chrono::duration<double>(warm_end_ - t0_).count();
  r_.steady_acked = at_end.acked - warm_.acked;
  r_.sustained_calls_per_s =
      r_.steady_s > 0 ? static_cast<double>(r_.steady_acked) / r_.steady_s : 0;
  r_.steady_latency = histogram_delta(at_end.hist, warm_.hist);
}

// Sessions end and offline charge points come back, so every queued frame reaches the gateway
// before the ground truth is compared with its tables.
void Fleet::Run::stop_and_drain() {
  const auto stop_t = Clock::now();
  for (auto& s : shards_)
    s->for_each_blocking([&](ChargePoint& cp) {
      s->ctx.stopping = true;
      cp.begin_stop();
    });
  while (since(stop_t) < config_.drain_s) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const Totals t = totals();
    if (storm_started_ && r_.storm_drain_s < 0 && t.storm == 0) r_.storm_drain_s = since(storm_t_);
    if (t.busy == 0) {
      r_.drained = true;
      break;
    }
    if (Clock::now() >= next_progress_) {
      progress("drain");
      next_progress_ = Clock::now() + seconds_ms(interval_);
    }
  }
  r_.drain_s = since(stop_t);
  progress(r_.drained ? "done" : "timeout");
  if (tty_) std::fputc('\n', stderr);
  r_.busy_at_end = totals().busy;
  if (r_.busy_at_end > 0) report_still_busy();
}

void Fleet::Run::report_still_busy() {
  int shown = 0;
  for (auto& s : shards_)
    s->for_each_blocking([&](ChargePoint& cp) {
      if (cp.busy() && shown++ < 5) std::fprintf(stderr, "still busy: %s\n", cp.describe().c_str());
    });
}

void Fleet::Run::stop_shards() {
  for (auto& s : shards_)
    s->for_each_blocking([](ChargePoint& cp) {
      cp.record_truth();
      cp.close();
    });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // let close frames go out
  for (auto& s : shards_) {
    s->work.reset();
    s->ioc.stop();
    s->thread.join();
  }
}

// Runs after the shard threads have joined, so the shards' truths need no lock.
void Fleet::Run::collect() {
  for (auto& s : shards_) {
    r_.truth.merge(s->truth);
    r_.latency.merge(s->stats.ack_latency.snapshot());
    r_.connects += s->stats.connects.get();
    r_.connect_failures += s->stats.connect_failures.get();
    r_.disconnects += s->stats.disconnects.get();
    r_.frames_sent += s->stats.frames_sent.get();
    r_.frames_received += s->stats.frames_received.get();
    r_.calls_acked += s->stats.calls_acked.get();
    r_.call_errors += s->stats.call_errors.get();
    r_.expected_errors += s->stats.expected_errors.get();
    r_.csms_calls += s->stats.csms_calls.get();
    r_.timeouts += s->ctx.timeouts.get();
    r_.unmatched += s->ctx.unmatched.get();
  }
  if (!warm_taken_ || config_.mode != RunMode::Load) {
    r_.steady_latency = r_.latency;
    r_.steady_acked = r_.calls_acked;
    r_.steady_s = r_.run_s;
    r_.sustained_calls_per_s = r_.run_s > 0 ? static_cast<double>(r_.calls_acked) / r_.run_s : 0;
  }
}

nlohmann::json RunResult::to_json() const {
  auto lat = [](const LatencyHistogram& h) {
    return nlohmann::json{{"count", h.total},
                          {"p50_us", h.percentile(0.50)},
                          {"p90_us", h.percentile(0.90)},
                          {"p99_us", h.percentile(0.99)},
                          {"p999_us", h.percentile(0.999)},
                          {"max_us", h.max_us}};
  };
  return {{"charge_points", charge_points},
          {"max_connected", max_connected},
          {"connects", connects},
          {"connect_failures", connect_failures},
          {"disconnects", disconnects},
          {"frames_sent", frames_sent},
          {"frames_received", frames_received},
          {"calls_acked", calls_acked},
          {"call_errors", call_errors},
          {"expected_errors", expected_errors},
          {"timeouts", timeouts},
          {"unmatched_answers", unmatched},
          {"csms_calls", csms_calls},
          {"run_s", run_s},
          {"steady_s", steady_s},
          {"steady_acked", steady_acked},
          {"sustained_calls_per_s", sustained_calls_per_s},
          {"latency", lat(latency)},
          {"steady_latency", lat(steady_latency)},
          {"ramp_s", ramp_s},
          {"storm_drain_s", storm_drain_s},
          {"drained", drained},
          {"drain_s", drain_s},
          {"busy_at_end", busy_at_end}};
}

}  // namespace ocppgw::sim
