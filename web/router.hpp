// web/router.hpp: maps (method, path) to a handler; the HTTP side of the gateway has one
// Router, filled at start-up (health, the REST API, the page, /metrics) and read-only once the
// listeners run, so it needs no lock. A path is a pattern of segments, each literal or a
// parameter in braces ("/api/v1/charge-points/{id}/calls/{action}"); a parameter matches one
// non-empty segment and reaches the handler percent-decoded. A literal segment wins over a
// parameter at the same place, so "/charge-points/count" can sit beside "/charge-points/{id}".
// A path no route knows is 404; a known path with another method is 405 with an Allow header;
// HEAD is served by the GET route (Beast drops the body). Every answer is counted in
// ocppgw_http_requests_total{method, route, status}, by the route's pattern (never the raw
// path, so the labels stay bounded); a path no route knows counts as route="unmatched".
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "web/http.hpp"

namespace ocppgw::web {

// Parameter name -> decoded value, for one matched request.
using PathParams = std::map<std::string, std::string, std::less<>>;
using RouteHandler =
    std::function<void(HttpRequest&& request, const PathParams& params, HttpRespond respond)>;

class Router {
 public:
  void add(http::verb method, const std::string& pattern, RouteHandler handler);
  // For routes without parameters.
  void add(http::verb method, const std::string& pattern, HttpHandler handler);
  // Answers through the matching route, or 404/405.
  void handle(HttpRequest&& request, HttpRespond respond) const;
  // A handler that forwards to this router; the router must outlive it.
  HttpHandler handler() const;
  // Every (method, pattern) added: for checks that hold for every route, e.g. that none
  // answers an anonymous client (tests/unit/web/api_auth_test.cpp).
  std::vector<std::pair<http::verb, std::string>> routes() const;

 private:
  struct Route {
    std::string pattern;                // as added, the metrics label
    std::vector<std::string> segments;  // "{name}" for a parameter
    std::map<http::verb, RouteHandler> methods;
  };
  // The best route for `path` (literals beat parameters, segment by segment), or nullptr.
  const Route* match(std::string_view path, PathParams* params) const;
  std::vector<Route> routes_;
};

// The path of a request target: everything before '?' or '#'.
std::string_view target_path(std::string_view target);
// The value of query parameter `name` (percent-decoded, '+' as space), or nullopt.
std::optional<std::string> query_param(std::string_view target, std::string_view name);
// %XX decoding; nullopt on a malformed escape.
std::optional<std::string> percent_decode(std::string_view text, bool plus_is_space = false);

}  // namespace ocppgw::web
