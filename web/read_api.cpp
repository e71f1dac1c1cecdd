// web/read_api.cpp: see read_api.hpp. One table of views; one handler serves them all.
#include "web/read_api.hpp"

#include <memory>
#include <vector>

namespace ocppgw::web {
namespace {

struct ReadRoute {
  const char* path;
  ReadView view;
  std::vector<std::string_view> filters;  // query parameters besides limit and cursor
  bool paged;
};

const std::vector<ReadRoute>& read_routes() {
  static const std::vector<ReadRoute> routes = {
      {"/api/v1/fleet", ReadView::Fleet, {}, false},
      {"/api/v1/charge-points", ReadView::ChargePoints, {"online", "version", "status", "q"}, true},
      {"/api/v1/charge-points/{id}", ReadView::ChargePoint, {}, false},
      {"/api/v1/sessions", ReadView::Sessions, {"charge_point_id", "status", "day", "open"}, true},
      {"/api/v1/sessions/{id}", ReadView::Session, {}, false},
      {"/api/v1/charge-points/{id}/connections", ReadView::ConnectionHistory, {}, true},
      {"/api/v1/status-history",
       ReadView::StatusHistory,
       {"charge_point_id", "connector_id"},
       true},
      {"/api/v1/daily-stats", ReadView::DailyStats, {"charge_point_id", "from", "to"}, true},
      {"/api/v1/data-quality", ReadView::DataQuality, {}, false},
      {"/api/v1/quarantine", ReadView::Quarantine, {"status", "reason"}, true},
      {"/api/v1/duplicates", ReadView::Duplicates, {"charge_point_id", "type"}, true},
      {"/api/v1/lag", ReadView::Lag, {}, false},
      {"/api/v1/id-tokens", ReadView::IdTokens, {}, true},
      {"/api/v1/id-tokens/{id}", ReadView::IdToken, {}, false},
  };
  return routes;
}

}  // namespace

void add_read_routes(Router& router, ApiAuth& auth, ReadSource& source) {
  for (const ReadRoute& route : read_routes()) {
    router.add(http::verb::get, route.path,
               RouteHandler([&auth, &source, &route](HttpRequest&& req, const PathParams& params,
                                                     HttpRespond respond) {
                 if (!auth.require(req, Role::Viewer, respond)) return;
                 std::vector<std::string_view> allowed = route.filters;
                 if (route.paged) allowed.insert(allowed.end(), {"limit", "cursor"});
                 auto fields = query_fields(req, allowed, respond);
                 if (!fields) return;
                 ReadRequest r{route.view, {}, {}, {}, kDefaultPageLimit};
                 if (auto it = params.find("id"); it != params.end()) r.id = it->second;
                 if (route.paged) {
                   auto limit =
                       int_param(req, "limit", kDefaultPageLimit, 1, kMaxPageLimit, respond);
                   if (!limit) return;
                   r.limit = *limit;
                   if (auto it = fields->find("cursor"); it != fields->end()) {
                     if (it->second.empty())
                       return respond(json_error(req, http::status::bad_request,
                                                 "cursor is empty (leave it out for the first "
                                                 "page)"));
                     r.cursor = it->second;
                   }
                   fields->erase("limit");
                   fields->erase("cursor");
                 }
                 r.filters = std::move(*fields);
                 auto request = std::make_shared<HttpRequest>(std::move(req));
                 auth.offload(*request, respond, [&source, request, respond, r] {
                   respond(api_response(*request, source.read(r)));
                 });
               }));
  }
}

}  // namespace ocppgw::web
