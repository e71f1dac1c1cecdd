// web/metrics.hpp: GET /metrics, the Prometheus endpoint: the given registries rendered in the
// text format 0.0.4 (util/metrics.hpp; every metric is listed in docs/api.md, "Metrics and
// probes"). Open to anyone by default, like the probes: the metrics carry counts only, never a
// charge point id, a name or a secret. With a guard (the gateway's metrics_require_token), the
// guard decides first and answers 401/403 itself.
#pragma once

#include <functional>
#include <vector>

#include "util/metrics.hpp"
#include "web/router.hpp"

namespace ocppgw::web {

// True to go on; false after answering the request through `respond` (e.g. 401).
using MetricsGuard = std::function<bool(const HttpRequest&, const HttpRespond&)>;

// Adds GET (and HEAD) /metrics; the registries must outlive the router. `guard` null: open.
void add_metrics_route(Router& router, std::vector<const metrics::Registry*> registries,
                       MetricsGuard guard = nullptr);

}  // namespace ocppgw::web
