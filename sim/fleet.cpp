// sim/fleet.cpp: shards, connection pacing, run phases and the progress line.
#include "sim/fleet.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <future>
#include <thread>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "sim/charge_point.hpp"

namespace ocppgw::sim {

namespace net = boost::asio;
using Clock = std::chrono::steady_clock;

struct Fleet::Shared {
  std::vector<Target> targets;
  std::vector<net::ip::address> sources;
  std::unique_ptr<net::ssl::context> ssl;
  Clock::time_point t0 = Clock::now();
};

struct Fleet::Shard {
  net::io_context ioc{1};
  ShardStats stats;
  Truth truth;
  ShardContext ctx;
  std::vector<std::unique_ptr<ChargePoint>> cps;
  net::steady_timer pacer{ioc};
  size_t next_connect = 0;
  double connect_credit = 0;
  double rate = 0;
  Clock::time_point last_pace;
  std::thread thread;
  std::unique_ptr<net::executor_work_guard<net::io_context::executor_type>> work;

  Shard(const SimConfig& config, Shared& shared)
      : ctx{ioc,   shared.ssl.get(), config, shared.targets, shared.sources, stats,
            truth, shared.t0} {}

  void pace() {
    const auto now = Clock::now();
    connect_credit += rate * std::chrono::duration<double>(now - last_pace).count();
    last_pace = now;
    while (connect_credit >= 1 && next_connect < cps.size()) {
      cps[next_connect++]->connect();
      connect_credit -= 1;
    }
    if (next_connect >= cps.size()) return;
    pacer.expires_after(std::chrono::milliseconds(5));
    pacer.async_wait([this](const boost::system::error_code& ec) {
      if (!ec) pace();
    });
  }

  // Runs f(cp) for every charge point on the shard thread and waits for it.
  template <class F>
  void for_each_blocking(F f) {
    std::promise<void> done;
    net::post(ioc, [&] {
      for (auto& cp : cps) f(*cp);
      done.set_value();
    });
    done.get_future().wait();
  }
};

Fleet::Fleet(const SimConfig& config) : config_(config), shared_(std::make_unique<Shared>()) {}
Fleet::~Fleet() = default;

std::string Fleet::prepare() {
  std::string error;
  bool any_tls = false;
  for (const auto& url : config_.urls) {
    auto t = resolve_target(url, &error);
    if (!t) return error;
    any_tls |= t->tls;
    shared_->targets.push_back(*t);
  }
  for (const auto& s : config_.source_addresses) {
    boost::system::error_code ec;
    auto a = net::ip::make_address(s, ec);
    if (ec) return "bad --source address: " + s;
    shared_->sources.push_back(a);
  }
  if (any_tls) {
    shared_->ssl = std::make_unique<net::ssl::context>(net::ssl::context::tls_client);
    auto& ctx = *shared_->ssl;
    ctx.set_options(net::ssl::context::no_sslv2 | net::ssl::context::no_sslv3 |
                    net::ssl::context::no_tlsv1 | net::ssl::context::no_tlsv1_1);
    boost::system::error_code ec;
    if (!config_.ca_file.empty()) {
      ctx.load_verify_file(config_.ca_file, ec);
      if (ec) return "cannot load --ca " + config_.ca_file + ": " + ec.message();
      ctx.set_verify_mode(net::ssl::verify_peer, ec);
    } else {
      ctx.set_verify_mode(net::ssl::verify_none, ec);
    }
    if (!config_.cert_file.empty()) {
      ctx.use_certificate_chain_file(config_.cert_file, ec);
      if (ec) return "cannot load --cert: " + ec.message();
      ctx.use_private_key_file(config_.key_file, net::ssl::context::pem, ec);
      if (ec) return "cannot load --key: " + ec.message();
    }
  }
  const int n_shards = std::min(config_.threads, config_.count);
  for (int i = 0; i < n_shards; ++i) shards_.push_back(std::make_unique<Shard>(config_, *shared_));
  Rng seeder{config_.seed};
  for (int i = 0; i < config_.count; ++i) {
    const int index = config_.first_index + i;
    auto& shard = *shards_[static_cast<size_t>(i % n_shards)];
    // Deterministic version mix: the first fraction_201 of every 100 indices speak 2.0.1.
    const bool v201 = std::fmod(static_cast<double>(i) * 0.6180339887, 1.0) < config_.fraction_201;
    shard.cps.push_back(
        std::make_unique<ChargePoint>(shard.ctx, index, format_cp_id(config_.id_pattern, index),
                                      v201 ? Version::v201 : Version::v16, seeder.next()));
  }
  for (auto& s : shards_) s->rate = config_.connect_rate / static_cast<double>(shards_.size());
  return {};
}

namespace {

struct Totals {
  int64_t connected = 0, booted = 0, sent = 0, acked = 0, errors = 0, busy = 0, storm = 0;
  LatencyHistogram hist;
};

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

}  // namespace

RunResult Fleet::run() {
  RunResult r;
  r.charge_points = config_.count;
  auto& sh = shards_;
  const auto t0 = shared_->t0 = Clock::now();
  for (auto& s : sh) {
    s->ctx.t0 = t0;
    s->work = std::make_unique<net::executor_work_guard<net::io_context::executor_type>>(
        s->ioc.get_executor());
    s->thread = std::thread([&ioc = s->ioc] { ioc.run(); });
    net::post(s->ioc, [p = s.get()] {
      p->last_pace = Clock::now();
      p->pace();
    });
  }

  auto totals = [&] {
    Totals t;
    for (auto& s : sh) {
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
  };
  auto since = [&](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };

  const bool tty = ::isatty(STDERR_FILENO);
  const double interval = tty ? 1.0 : config_.progress_s;
  Totals last = totals();
  auto last_t = Clock::now();
  auto progress = [&](const char* phase) {
    Totals t = totals();
    const double dt = std::max(1e-3, since(last_t));
    const auto d = histogram_delta(t.hist, last.hist);
    std::fprintf(stderr,
                 "%s[%6.1fs %-6s] connected %lld/%d booted %lld  sent %.0f/s  acked %.0f/s  "
                 "p50 %s p99 %s  errors %lld  busy %lld%s",
                 tty ? "\r" : "", since(t0), phase, static_cast<long long>(t.connected),
                 config_.count, static_cast<long long>(t.booted),
                 static_cast<double>(t.sent - last.sent) / dt,
                 static_cast<double>(t.acked - last.acked) / dt, fmt_us(d.percentile(0.5)).c_str(),
                 fmt_us(d.percentile(0.99)).c_str(), static_cast<long long>(t.errors),
                 static_cast<long long>(t.busy), tty ? "   " : "\n");
    std::fflush(stderr);
    last = t;
    last_t = Clock::now();
  };

  // ---- run phase ----
  const auto run_end =
      t0 + std::chrono::milliseconds(static_cast<int64_t>(config_.duration_s * 1000));
  const auto warm_end = t0 + std::chrono::milliseconds(static_cast<int64_t>(
                                 (config_.mode == RunMode::Load ? config_.warmup_s : 0) * 1000));
  bool storm_started = false, warm_taken = false;
  Clock::time_point storm_t;
  Totals warm;
  auto next_progress =
      Clock::now() + std::chrono::milliseconds(static_cast<int64_t>(interval * 1000));
  while (Clock::now() < run_end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const auto now = Clock::now();
    Totals t = totals();
    r.max_connected = std::max(r.max_connected, t.connected);
    if (r.ramp_s < 0 && t.booted >= config_.count) r.ramp_s = since(t0);
    if (!warm_taken && now >= warm_end) {
      warm = t;
      warm_taken = true;
    }
    if (config_.storm_at_s > 0 && !storm_started && since(t0) >= config_.storm_at_s) {
      storm_started = true;
      storm_t = Clock::now();
      std::fprintf(stderr, "%sreconnect storm: every charge point drops and reconnects\n",
                   tty ? "\n" : "");
      for (auto& s : sh)
        net::post(s->ioc, [p = s.get()] {
          for (auto& cp : p->cps) cp->storm();
        });
    }
    if (storm_started && r.storm_drain_s < 0 && since(storm_t) > 0.2 && t.storm == 0) {
      r.storm_drain_s = since(storm_t);
      std::fprintf(stderr, "%sstorm drained in %.2f s\n", tty ? "\n" : "", r.storm_drain_s);
    }
    // A storm run has measured what it came for once the storm has drained.
    if (storm_started && r.storm_drain_s >= 0 && since(storm_t) > r.storm_drain_s + 2) break;
    if (now >= next_progress) {
      progress("run");
      next_progress = now + std::chrono::milliseconds(static_cast<int64_t>(interval * 1000));
    }
  }
  r.run_s = since(t0);
  Totals at_end = totals();
  if (warm_taken) {
    r.steady_s = r.run_s - std::chrono::duration<double>(warm_end - t0).count();
    r.steady_acked = at_end.acked - warm.acked;
    r.sustained_calls_per_s = r.steady_s > 0 ? static_cast<double>(r.steady_acked) / r.steady_s : 0;
    r.steady_latency = histogram_delta(at_end.hist, warm.hist);
  }

  // ---- stop and drain ----
  const auto stop_t = Clock::now();
  for (auto& s : sh)
    s->for_each_blocking([&](ChargePoint& cp) {
      s->ctx.stopping = true;
      cp.begin_stop();
    });
  while (since(stop_t) < config_.drain_s) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    Totals t = totals();
    if (storm_started && r.storm_drain_s < 0 && t.storm == 0) r.storm_drain_s = since(storm_t);
    if (t.busy == 0) {
      r.drained = true;
      break;
    }
    if (Clock::now() >= next_progress) {
      progress("drain");
      next_progress =
          Clock::now() + std::chrono::milliseconds(static_cast<int64_t>(interval * 1000));
    }
  }
  r.drain_s = since(stop_t);
  progress(r.drained ? "done" : "timeout");
  if (tty) std::fputc('\n', stderr);
  r.busy_at_end = totals().busy;
  if (r.busy_at_end > 0) {
    int shown = 0;
    for (auto& s : sh)
      s->for_each_blocking([&](ChargePoint& cp) {
        if (cp.busy() && shown++ < 5)
          std::fprintf(stderr, "still busy: %s\n", cp.describe().c_str());
      });
  }

  for (auto& s : sh)
    s->for_each_blocking([](ChargePoint& cp) {
      cp.record_truth();
      cp.close();
    });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // let close frames go out
  for (auto& s : sh) {
    s->work.reset();
    s->ioc.stop();
    s->thread.join();
  }

  for (auto& s : sh) {
    r.truth.merge(s->truth);
    r.latency.merge(s->stats.ack_latency.snapshot());
    r.connects += s->stats.connects.get();
    r.connect_failures += s->stats.connect_failures.get();
    r.disconnects += s->stats.disconnects.get();
    r.frames_sent += s->stats.frames_sent.get();
    r.frames_received += s->stats.frames_received.get();
    r.calls_acked += s->stats.calls_acked.get();
    r.call_errors += s->stats.call_errors.get();
    r.expected_errors += s->stats.expected_errors.get();
    r.csms_calls += s->stats.csms_calls.get();
    r.timeouts += s->ctx.timeouts.get();
    r.unmatched += s->ctx.unmatched.get();
  }
  if (!warm_taken || config_.mode != RunMode::Load) {
    r.steady_latency = r.latency;
    r.steady_acked = r.calls_acked;
    r.steady_s = r.run_s;
    r.sustained_calls_per_s = r.run_s > 0 ? static_cast<double>(r.calls_acked) / r.run_s : 0;
  }
  return r;
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
