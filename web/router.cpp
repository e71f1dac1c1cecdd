// web/router.cpp: see router.hpp.
#include "web/router.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "util/hex.hpp"
#include "util/metrics.hpp"

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

HttpResponse json_response(const HttpRequest& request, http::status status,
                           const nlohmann::json& body) {
  // Replacing bad UTF-8 (a name a client sent, echoed in an error) rather than throwing.
  return make_response(request, status,
                       body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n",
                       "application/json");
}

HttpResponse json_error(const HttpRequest& request, http::status status, std::string_view message) {
  return json_response(request, status, nlohmann::json{{"error", message}});
}

std::string_view target_path(std::string_view target) {
  return target.substr(0, target.find_first_of("?#"));
}

namespace {

std::vector<std::string_view> split_path(std::string_view path) {
  std::vector<std::string_view> out;
  if (!path.empty() && path.front() == '/') path.remove_prefix(1);
  while (true) {
    const size_t slash = path.find('/');
    out.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return out;
}

void count_answer(http::verb method, const std::string& route, unsigned status) {
  static auto& requests = metrics::process_registry().counter(
      "ocppgw_http_requests_total",
      "HTTP requests answered by the router (REST API, probes, metrics, the page and its live "
      "stream), by method, route pattern (\"unmatched\": no route) and status.",
      {"method", "route", "status"});
  requests.with({std::string(http::to_string(method)), route, std::to_string(status)}).inc();
}

// The route's answer, counted by method, route pattern and status on its way out.
HttpRespond counted(HttpRespond respond, http::verb method, std::string route) {
  return [respond = std::move(respond), method, route = std::move(route)](HttpResponse res) {
    count_answer(method, route, res.result_int());
    respond(std::move(res));
  };
}

// The same for a stream: counted once, by the status of its head, when it opens.
StreamOpener counted(StreamOpener open, http::verb method, std::string route) {
  if (!open) return open;
  return [open = std::move(open), method, route = std::move(route)](
             HttpResponse head, std::function<void()> on_closed) {
    count_answer(method, route, head.result_int());
    return open(std::move(head), std::move(on_closed));
  };
}

bool is_param(std::string_view segment) {
  return segment.size() > 2 && segment.front() == '{' && segment.back() == '}';
}

// "{name+}": the rest of the path. Only a pattern's last segment is read this way (see
// rest_at); elsewhere it would be an ordinary parameter named "name+".
bool is_rest(std::string_view segment) {
  return segment.size() > 3 && is_param(segment) && segment[segment.size() - 2] == '+';
}
bool rest_at(const std::vector<std::string>& pattern, size_t i) {
  return i + 1 == pattern.size() && is_rest(pattern[i]);
}

// How specifically a route's segment matches a path segment: the higher wins at the first place
// two matching routes differ. Past its last segment, a route ending in "{name+}" still matches.
enum class Specificity { Rest, Param, Literal };
Specificity specificity(const std::vector<std::string>& pattern, size_t i) {
  i = std::min(i, pattern.size() - 1);
  if (rest_at(pattern, i)) return Specificity::Rest;
  return is_param(pattern[i]) ? Specificity::Param : Specificity::Literal;
}

// Whether `pattern` matches the path `segments`.
bool matches(const std::vector<std::string>& pattern,
             const std::vector<std::string_view>& segments) {
  const bool rest = rest_at(pattern, pattern.size() - 1);
  if (rest ? segments.size() < pattern.size() : segments.size() != pattern.size()) return false;
  for (size_t i = 0; i < pattern.size(); ++i)
    if (is_param(pattern[i]) ? segments[i].empty() : pattern[i] != segments[i]) return false;
  return true;
}

}  // namespace

std::optional<std::string> percent_decode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%') {
      if (i + 2 >= text.size()) return std::nullopt;
      const int hi = util::hex_digit(text[i + 1]);
      const int lo = util::hex_digit(text[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += plus_is_space && text[i] == '+' ? ' ' : text[i];
    }
  }
  return out;
}

std::optional<std::string> query_param(std::string_view target, std::string_view name) {
  const size_t q = target.find('?');
  if (q == std::string_view::npos) return std::nullopt;
  std::string_view query = target.substr(q + 1);
  query = query.substr(0, query.find('#'));
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    const size_t eq = pair.find('=');
    if (auto key = percent_decode(pair.substr(0, eq), true); key && *key == name)
      return eq == std::string_view::npos ? std::string()
                                          : percent_decode(pair.substr(eq + 1), true);
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return std::nullopt;
}

void Router::add(http::verb method, const std::string& pattern, RouteHandler handler) {
  add_stream(method, pattern,
             [h = std::move(handler)](HttpRequest&& request, const PathParams& params,
                                      HttpRespond respond, const StreamOpener&) {
               h(std::move(request), params, std::move(respond));
             });
}

void Router::add_stream(http::verb method, const std::string& pattern, StreamRouteHandler handler) {
  std::vector<std::string> segments;
  for (auto s : split_path(pattern)) segments.emplace_back(s);
  for (auto& route : routes_)
    if (route.segments == segments) {
      route.methods[method] = std::move(handler);
      return;
    }
  routes_.push_back({pattern, std::move(segments), {{method, std::move(handler)}}});
}

void Router::add(http::verb method, const std::string& pattern, HttpHandler handler) {
  add(method, pattern,
      RouteHandler(
          [h = std::move(handler)](HttpRequest&& request, const PathParams&, HttpRespond respond) {
            h(std::move(request), std::move(respond));
          }));
}

const Router::Route* Router::match(std::string_view path, PathParams* params) const {
  const auto segments = split_path(path);
  const Route* best = nullptr;
  for (const auto& route : routes_) {
    if (!matches(route.segments, segments)) continue;
    // Of two matches, the more specific one at the first place where they differ wins.
    if (best) {
      bool better = false;
      for (size_t i = 0; i < segments.size(); ++i) {
        const auto a = specificity(route.segments, i), b = specificity(best->segments, i);
        if (a != b) {
          better = a > b;
          break;
        }
      }
      if (!better) continue;
    }
    best = &route;
  }
  if (!best) return nullptr;
  params->clear();
  for (size_t i = 0; i < best->segments.size(); ++i) {
    const auto& name = best->segments[i];
    if (!is_param(name)) continue;
    const bool rest = rest_at(best->segments, i);
    std::string value;
    for (size_t j = i; j < (rest ? segments.size() : i + 1); ++j) {
      auto decoded = percent_decode(segments[j]);
      if (!decoded) return nullptr;  // a malformed escape matches nothing
      value += (j == i ? "" : "/") + *decoded;
    }
    (*params)[name.substr(1, name.size() - (rest ? 3 : 2))] = std::move(value);
  }
  return best;
}

void Router::handle(HttpRequest&& request, HttpRespond respond, StreamOpener open_stream) const {
  PathParams params;
  const Route* route = match(target_path(request.target()), &params);
  const std::string label = route ? route->pattern : "unmatched";
  respond = counted(std::move(respond), request.method(), label);
  open_stream = counted(std::move(open_stream), request.method(), label);
  if (!route) return respond(text_response(request, http::status::not_found, "not found"));
  const auto method = request.method() == http::verb::head ? http::verb::get : request.method();
  const auto handler = route->methods.find(method);
  if (handler == route->methods.end()) {
    auto res = text_response(request, http::status::method_not_allowed, "method not allowed");
    std::string allow;
    for (const auto& [verb, unused] : route->methods) {
      allow += (allow.empty() ? "" : ", ") + std::string(http::to_string(verb));
      if (verb == http::verb::get) allow += ", HEAD";
    }
    res.set(http::field::allow, allow);
    return respond(std::move(res));
  }
  handler->second(std::move(request), params, std::move(respond), open_stream);
}

std::vector<std::pair<http::verb, std::string>> Router::routes() const {
  std::vector<std::pair<http::verb, std::string>> out;
  for (const auto& route : routes_)
    for (const auto& [verb, unused] : route.methods) out.emplace_back(verb, route.pattern);
  return out;
}

ConnectionHandler Router::handler() const {
  return [this](HttpRequest&& request, HttpRespond respond, StreamOpener open_stream) {
    handle(std::move(request), std::move(respond), std::move(open_stream));
  };
}

}  // namespace ocppgw::web
