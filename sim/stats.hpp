// sim/stats.hpp: live counters of one shard (one io thread). Each counter has a single writer
// (the shard's thread) and is read by the progress reporter on another thread, so plain
// relaxed load+store is enough and no locked instruction sits on the hot path.
#pragma once

#include <atomic>
#include <cstdint>

#include "sim/histogram.hpp"

namespace ocppgw::sim {

class Counter {
 public:
  void add(int64_t n = 1) {
    v_.store(v_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  int64_t get() const { return v_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> v_{0};
};

struct ShardStats {
  Counter connected;  // gauge: WebSocket open right now
  Counter booted;     // gauge: open and BootNotification accepted
  Counter connects;   // successful WebSocket handshakes
  Counter connect_failures;
  Counter disconnects;  // any close, clean or abrupt
  Counter frames_sent;
  Counter frames_received;
  Counter calls_acked;      // CALLRESULT for one of our CALLs
  Counter call_errors;      // CALLERROR we did not provoke
  Counter expected_errors;  // CALLERROR for a frame we corrupted on purpose
  Counter csms_calls;       // CALLs from the gateway (answered as --csms-answer says)
  Counter busy;             // gauge: charge points with queued or unacknowledged work
  SharedHistogram ack_latency;
};

}  // namespace ocppgw::sim
