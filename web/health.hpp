// web/health.hpp: GET /health. Each part of the gateway (event sink, CSMS state, connections,
// analytics, Kafka) registers a named section at start-up; a request reads every section's
// report and answers 200 {"status":"ok", ...} while every check that gates health passes, and
// 503 {"status":"unhealthy", ...} otherwise, so a load balancer stops sending charge points to
// a node whose event log refuses writes. Sections are read from I/O threads: each report and
// check must be thread-safe and cheap (counters, not queries).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "web/router.hpp"

namespace ocppgw::web {

struct HealthSection {
  std::string name;  // key in the response body
  std::function<nlohmann::json()> report;
  std::function<bool()> healthy;  // null: informational, never makes the node unhealthy
};

class Health {
 public:
  // Register before the listeners start.
  void add(HealthSection section);
  // The /health body; *healthy is false when any section's check fails.
  nlohmann::json report(bool* healthy) const;
  // Adds GET (and HEAD) /health to `router`; this object must outlive it.
  void add_routes(Router& router) const;

 private:
  std::vector<HealthSection> sections_;
};

}  // namespace ocppgw::web
