// web/api_result.cpp: see api_result.hpp.
#include "web/api_result.hpp"

namespace ocppgw::web {

HttpResponse api_response(const HttpRequest& request, const ApiResult& result, http::status ok) {
  switch (result.kind) {
    case ApiResult::Kind::Ok:
      if (ok == http::status::no_content) {
        HttpResponse res{ok, request.version()};
        res.set(http::field::server, "ocppgw");
        res.keep_alive(request.keep_alive());
        return res;
      }
      return json_response(request, ok, result.body);
    case ApiResult::Kind::Invalid:
      return json_error(request, http::status::bad_request, result.message);
    case ApiResult::Kind::NotFound:
      return json_error(request, http::status::not_found, result.message);
    case ApiResult::Kind::Conflict:
      return json_error(request, http::status::conflict, result.message);
    case ApiResult::Kind::Failed:
      break;
  }
  return json_error(request, http::status::service_unavailable, result.message);
}

std::string_view outcome_name(ApiResult::Kind kind) {
  switch (kind) {
    case ApiResult::Kind::Ok:
      return "ok";
    case ApiResult::Kind::Invalid:
      return "invalid";
    case ApiResult::Kind::NotFound:
      return "not_found";
    case ApiResult::Kind::Conflict:
      return "conflict";
    case ApiResult::Kind::Failed:
      break;
  }
  return "failed";
}

}  // namespace ocppgw::web
