// sim/shard_context.hpp: what every charge point of one shard shares: the io_context, the
// read-only run set-up, the shard's live counters and its ground truth.
// Threading: owned by the shard and used only on its io thread, with two exceptions. The
// Counters are also read by the controlling thread (single writer, relaxed; see stats.hpp), and
// `stopping` is set by the controlling thread through a handler posted to the shard, so it too
// changes on the io thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ssl/context.hpp>

#include "sim/config.hpp"
#include "sim/stats.hpp"
#include "sim/transport.hpp"
#include "sim/truth.hpp"

namespace ocppgw::sim {

struct ShardContext {
  ShardContext(boost::asio::io_context& io, boost::asio::ssl::context* ssl_ctx,
               const SimConfig& cfg, const std::vector<Target>& tgts,
               const std::vector<boost::asio::ip::address>& srcs, ShardStats& st, Truth& tr,
               std::chrono::steady_clock::time_point start)
      : ioc(io),
        ssl(ssl_ctx),
        config(cfg),
        targets(tgts),
        sources(srcs),
        stats(st),
        truth(tr),
        t0(start) {}
  boost::asio::io_context& ioc;
  boost::asio::ssl::context* ssl = nullptr;
  const SimConfig& config;
  const std::vector<Target>& targets;
  const std::vector<boost::asio::ip::address>& sources;
  ShardStats& stats;
  Truth& truth;
  std::chrono::steady_clock::time_point t0;
  bool stopping = false;
  Counter storm_pending;  // charge points of this shard still draining a storm
  Counter unmatched;      // answers for message ids we did not have outstanding
  Counter timeouts;
  int64_t now_ms() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                 t0)
        .count();
  }
};

}  // namespace ocppgw::sim
