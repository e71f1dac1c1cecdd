// sim/verify.hpp: compares a run's ground truth with what the gateway stored: the event log
// (--gateway-db) and the analytics tables (--analytics-db), both opened read-only. Every check
// is reported with its expected and actual value; a check whose table does not exist yet is
// reported as skipped, not passed. Runs on the controlling thread after the fleet has stopped.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config.hpp"
#include "sim/truth.hpp"

namespace ocppgw::sim {

struct Check {
  std::string name;
  enum class Outcome { Pass, Fail, Skip } outcome = Outcome::Pass;
  std::string expected;
  std::string actual;
  std::string detail;
};

struct Verification {
  std::vector<Check> checks;
  int passed() const;
  int failed() const;
  int skipped() const;
  nlohmann::json to_json() const;
};

Verification verify(const SimConfig& config, const Truth& truth, int64_t answered_probes);

}  // namespace ocppgw::sim
