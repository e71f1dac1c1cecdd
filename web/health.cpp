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

std::vector<std::string> Health::failing() const {
  std::vector<std::string> out;
  for (const auto& section : sections_)
    if (section.healthy && !section.healthy()) out.push_back(section.name);
  return out;
}

void Health::add_routes(Router& router) const {
  router.add(http::verb::get, "/healthz", [](HttpRequest&& request, HttpRespond respond) {
    respond(json_response(request, http::status::ok, {{"status", "alive"}}));
  });
  router.add(http::verb::get, "/readyz", [this](HttpRequest&& request, HttpRespond respond) {
    const auto failed = failing();
    if (failed.empty())
      return respond(json_response(request, http::status::ok, {{"status", "ready"}}));
    std::string names;
    for (const auto& name : failed) names += (names.empty() ? "" : ", ") + name;
    respond(json_response(request, http::status::service_unavailable,
                          {{"status", "not ready"},
                           {"failing", failed},
                           {"error", "the event log refuses writes (failing: " + names + ")"}}));
  });
  router.add(http::verb::get, "/health", [this](HttpRequest&& request, HttpRespond respond) {
    bool healthy = true;
    const auto body = report(&healthy);
    respond(make_response(request, healthy ? http::status::ok : http::status::service_unavailable,
                          body.dump() + "\n", "application/json"));
  });
}

}  // namespace ocppgw::web
