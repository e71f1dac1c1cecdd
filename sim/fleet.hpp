// sim/fleet.hpp: runs a fleet: builds the charge points, spreads them over shards (one
// io_context and one thread each; a charge point never leaves its shard, so its handlers need no
// strand and its counters no lock), paces connections, drives the run phases (ramp, steady,
// storm, stop and drain) and prints live progress. Building is fleet.cpp, running fleet_run.cpp,
// the shard fleet_shard.hpp. The controlling thread only posts work to the shards and reads their
// relaxed counters.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config.hpp"
#include "sim/histogram.hpp"
#include "sim/truth.hpp"

namespace ocppgw::sim {

struct RunResult {
  Truth truth;
  LatencyHistogram latency;         // every acknowledged CALL of the run
  LatencyHistogram steady_latency;  // after warm-up until the stop phase
  int64_t charge_points = 0;
  int64_t max_connected = 0;
  int64_t connects = 0, connect_failures = 0, disconnects = 0;
  int64_t frames_sent = 0, frames_received = 0, calls_acked = 0, call_errors = 0;
  int64_t expected_errors = 0, timeouts = 0, unmatched = 0, csms_calls = 0;
  double run_s = 0;  // until the stop phase began
  double steady_s = 0;
  int64_t steady_acked = 0;
  double sustained_calls_per_s = 0;
  double drain_s = 0;  // stop phase until every cp was idle
  bool drained = false;
  double ramp_s = -1;         // first connect until every cp was booted
  double storm_drain_s = -1;  // storm start until every cp booted and replayed
  int64_t busy_at_end = 0;
  nlohmann::json to_json() const;
};

class Fleet {
 public:
  explicit Fleet(const SimConfig& config);
  ~Fleet();
  // Resolves targets, loads TLS material; an error message on failure.
  std::string prepare();
  RunResult run();

 private:
  struct Shard;
  struct Shared;
  class Run;
  const SimConfig& config_;
  std::vector<std::unique_ptr<Shard>> shards_;
  std::unique_ptr<Shared> shared_;
};

}  // namespace ocppgw::sim
