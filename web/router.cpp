// web/router.cpp: see router.hpp.
#include "web/router.hpp"

namespace ocppgw::web {

HttpResponse make_response(const HttpRequest& request, http::status status, std::string body,
                           std::string_view content_type) {
  HttpResponse res{status, request.version()};
  res.set(http::field::server, "ocppgw");
  res.set(http::field::content_type, content_type);
  res.keep_alive(request.keep_alive());
  res.body() = std::move(body);
  return res;
}

HttpResponse text_response(const HttpRequest& request, http::status status, std::string_view text) {
  return make_response(request, status, std::string(text) + "\n", "text/plain");
}

std::string_view target_path(std::string_view target) {
  return target.substr(0, target.find_first_of("?#"));
}

void Router::add(http::verb method, std::string path, HttpHandler handler) {
  routes_[std::move(path)][method] = std::move(handler);
}

void Router::handle(HttpRequest&& request, HttpRespond respond) const {
  const auto route = routes_.find(target_path(request.target()));
  if (route == routes_.end())
    return respond(text_response(request, http::status::not_found, "not found"));
  const auto method = request.method() == http::verb::head ? http::verb::get : request.method();
  const auto handler = route->second.find(method);
  if (handler == route->second.end()) {
    auto res = text_response(request, http::status::method_not_allowed, "method not allowed");
    std::string allow;
    for (const auto& [verb, unused] : route->second) {
      allow += (allow.empty() ? "" : ", ") + std::string(http::to_string(verb));
      if (verb == http::verb::get) allow += ", HEAD";
    }
    res.set(http::field::allow, allow);
    return respond(std::move(res));
  }
  handler->second(std::move(request), std::move(respond));
}

HttpHandler Router::handler() const {
  return [this](HttpRequest&& request, HttpRespond respond) {
    handle(std::move(request), std::move(respond));
  };
}

}  // namespace ocppgw::web
