// web/router.hpp: maps (method, path) to a handler; the HTTP side of the gateway has one
// Router, filled at start-up (health, the REST API, the page, /metrics) and read-only once the
// listeners run, so it needs no lock. A path is a pattern of segments, each literal or a
// parameter in braces ("/api/v1/charge-points/{id}/calls/{action}"); a parameter matches one
// non-empty segment and reaches the handler percent-decoded. The last segment of a pattern may
// be a rest-of-path parameter, "{name+}": it matches one or more segments (the first non-empty),
// each percent-decoded and joined with '/' ("/ui/{path+}" gives path="img/logo.svg" for
// /ui/img/logo.svg), for routes that serve a tree rather than one level. At each place a literal
// segment wins over a parameter and a parameter over a rest-of-path parameter, so
// "/charge-points/count" can sit beside "/charge-points/{id}", and "/ui/" beside "/ui/{path+}".
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
// A route that may answer with a stream (web/http.hpp); `open_stream` is empty when the
// connection cannot stream.
using StreamRouteHandler =
    std::function<void(HttpRequest&& request, const PathParams& params, HttpRespond respond,
                       const StreamOpener& open_stream)>;

class Router {
 public:
  void add(http::verb method, const std::string& pattern, RouteHandler handler);
  // For routes without parameters.
  void add(http::verb method, const std::string& pattern, HttpHandler handler);
  // For a route that streams (a stream opened counts as a 200 answer).
  void add_stream(http::verb method, const std::string& pattern, StreamRouteHandler handler);
  // Answers through the matching route, or 404/405.
  void handle(HttpRequest&& request, HttpRespond respond, StreamOpener open_stream = {}) const;
  // A handler that forwards to this router; the router must outlive it.
  ConnectionHandler handler() const;
  // Every (method, pattern) added: for checks that hold for every route, e.g. that none
  // answers an anonymous client (tests/unit/web/api_auth_test.cpp).
  std::vector<std::pair<http::verb, std::string>> routes() const;

 private:
  struct Route {
    std::string pattern;                // as added, the metrics label
    std::vector<std::string> segments;  // "{name}" for a parameter, "{name+}" for the rest
    std::map<http::verb, StreamRouteHandler> methods;
  };
  // The best route for `path` (literals beat parameters beat the rest, segment by segment), or
  // nullptr.
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
