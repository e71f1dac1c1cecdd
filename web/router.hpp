// web/router.hpp: maps (method, path) to a handler; the HTTP side of the gateway has one
// Router, filled at start-up (health now; the REST API, page and /metrics add their routes the
// same way) and read-only once the listeners run, so it needs no lock. A path that no route
// knows is 404; a known path with another method is 405 with an Allow header; HEAD is served
// by the GET route (Beast drops the body).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "web/http.hpp"

namespace ocppgw::web {

class Router {
 public:
  // Registers `handler` for an exact path (the query string is ignored when matching).
  void add(http::verb method, std::string path, HttpHandler handler);
  // Answers through the matching route, or 404/405.
  void handle(HttpRequest&& request, HttpRespond respond) const;
  // A handler that forwards to this router; the router must outlive it.
  HttpHandler handler() const;

 private:
  std::map<std::string, std::map<http::verb, HttpHandler>, std::less<>> routes_;
};

// The path of a request target: everything before '?' or '#'.
std::string_view target_path(std::string_view target);

}  // namespace ocppgw::web
