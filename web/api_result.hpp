// web/api_result.hpp: how a read or a change behind the REST API ended, as the gateway's
// implementations (gateway/api_backend.cpp) report it, and its HTTP answer: Ok -> the route's
// status with `body`; Invalid -> 400, NotFound -> 404, Conflict -> 409, Failed -> 503, each
// with {"error": message}.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "web/http.hpp"

namespace ocppgw::web {

struct ApiResult {
  enum class Kind { Ok, Invalid, NotFound, Conflict, Failed };
  Kind kind = Kind::Ok;
  nlohmann::json body = nlohmann::json::object();
  std::string message;  // not Ok: what went wrong, for the client
  std::string target;   // a change: what it applied to, for the audit row (e.g. a token's hash)

  static ApiResult ok(nlohmann::json body) { return {Kind::Ok, std::move(body), {}, {}}; }
  static ApiResult error(Kind kind, std::string message) {
    return {kind, nlohmann::json::object(), std::move(message), {}};
  }
};

// The answer to `request`; `ok` is the status of success (204 sends no body).
HttpResponse api_response(const HttpRequest& request, const ApiResult& result,
                          http::status ok = http::status::ok);
// The audit log's outcome: "ok", "invalid", "not_found", "conflict", "failed".
std::string_view outcome_name(ApiResult::Kind kind);

}  // namespace ocppgw::web
