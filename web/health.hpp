// web/health.hpp: GET /health, and the probes GET /healthz and GET /readyz. Each part of the
// gateway (event sink, CSMS state, connections, analytics, Kafka) registers a named section at
// start-up; a request reads every section's report and answers 200 {"status":"ok", ...} while every
// check that gates health passes, and 503 {"status":"unhealthy", ...} otherwise, so a load balancer
// stops sending charge points to a node whose event log refuses writes. Sections are read from I/O
// threads: each report and check must be thread-safe and cheap (counters, not queries). The probes
// are for orchestrators (docs/api.md, "Metrics and probes"): /healthz answers 200 while the process
// serves HTTP at all (liveness); /readyz answers 200 while every gating check passes and 503 naming
// the failing sections otherwise (readiness: take the node out of the load balancer, do not restart
// it). None needs a login; none says more than /health does.
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
  // The names of the sections whose gating check fails now (empty: ready).
  std::vector<std::string> failing() const;
  // Adds GET (and HEAD) /health, /healthz and /readyz to `router`; this object must outlive it.
  void add_routes(Router& router) const;

 private:
  std::vector<HealthSection> sections_;
};

}  // namespace ocppgw::web
