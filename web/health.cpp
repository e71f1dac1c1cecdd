// web/health.cpp: see health.hpp.
#include "web/health.hpp"

namespace ocppgw::web {

void Health::add(HealthSection section) { sections_.push_back(std::move(section)); }

nlohmann::json Health::report(bool* healthy) const {
  bool ok = true;
  nlohmann::json body = nlohmann::json::object();
  for (const auto& section : sections_) {
    body[section.name] = section.report();
    if (section.healthy && !section.healthy()) ok = false;
  }
  body["status"] = ok ? "ok" : "unhealthy";
  if (healthy) *healthy = ok;
  return body;
}

void Health::add_routes(Router& router) const {
  router.add(http::verb::get, "/health", [this](HttpRequest&& request, HttpRespond respond) {
    bool healthy = true;
    const auto body = report(&healthy);
    respond(make_response(request, healthy ? http::status::ok : http::status::service_unavailable,
                          body.dump() + "\n", "application/json"));
  });
}

}  // namespace ocppgw::web
