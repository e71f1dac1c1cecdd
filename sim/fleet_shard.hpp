// sim/fleet_shard.hpp: the parts of a fleet that fleet.cpp (building it) and fleet_run.cpp
// (running it) share: the set-up every shard reads, and the shard itself, which owns one
// io_context, the thread that runs it, its charge points and their connection pacer.
// Threading: Shared is written only before the shard threads start and is read-only after.
// A charge point never leaves its shard; the controlling thread reaches it only by posting to
// the shard's io_context (for_each_blocking) and otherwise reads the shard's relaxed counters.
#pragma once

#include <chrono>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "sim/charge_point.hpp"
#include "sim/fleet.hpp"
#include "sim/shard_context.hpp"
#include "sim/stats.hpp"
#include "sim/transport.hpp"
#include "sim/truth.hpp"

namespace ocppgw::sim {

struct Fleet::Shared {
  std::vector<Target> targets;
  std::vector<boost::asio::ip::address> sources;
  std::unique_ptr<boost::asio::ssl::context> ssl;
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
};

struct Fleet::Shard {
  using Clock = std::chrono::steady_clock;
  using WorkGuard = boost::asio::executor_work_guard<boost::asio::io_context::executor_type>;

  boost::asio::io_context ioc{1};
  ShardStats stats;
  Truth truth;
  ShardContext ctx;
  std::vector<std::unique_ptr<ChargePoint>> cps;
  boost::asio::steady_timer pacer{ioc};
  size_t next_connect = 0;
  double connect_credit = 0;
  double rate = 0;
  Clock::time_point last_pace;
  std::thread thread;
  std::unique_ptr<WorkGuard> work;

  Shard(const SimConfig& config, Shared& shared)
      : ctx{ioc,   shared.ssl.get(), config, shared.targets, shared.sources, stats,
            truth, shared.t0} {}

  // Connections open at this shard's share of --connect-rate, so a large fleet does not hit
  // the gateway with every handshake in the same instant.
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
    boost::asio::post(ioc, [&] {
      for (auto& cp : cps) f(*cp);
      done.set_value();
    });
    done.get_future().wait();
  }
};

}  // namespace ocppgw::sim
