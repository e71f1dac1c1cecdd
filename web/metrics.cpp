// web/metrics.cpp: see metrics.hpp.
#include "web/metrics.hpp"

namespace ocppgw::web {

void add_metrics_route(Router& router, std::vector<const metrics::Registry*> registries,
                       MetricsGuard guard) {
  router.add(
      http::verb::get, "/metrics",
      [registries = std::move(registries), guard = std::move(guard)](HttpRequest&& request,
                                                                     HttpRespond respond) {
        if (guard && !guard(request, respond)) return;
        std::string body;
        for (const auto* registry : registries) body += registry->render();
        respond(make_response(request, http::status::ok, std::move(body), metrics::kTextFormat));
      });
}

}  // namespace ocppgw::web
