// fuzz/http_fuzz.cpp: an HTTP request as a client may send it, through what the gateway does
// with it before trusting anything: Beast's parser with the listener's default limits
// (gateway/config.hpp), then the upgrade's charge point id, subprotocol and Basic credentials
// (gateway/upgrade_request.hpp), then the REST router with every route of the OpenAPI document
// and the API's query and body readers (web/api_input.hpp). Every request gets exactly one
// answer; nothing throws.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>

#include "gateway/upgrade_request.hpp"
#include "web/api_input.hpp"
#include "web/openapi.hpp"
#include "web/router.hpp"

using namespace ocppgw;
namespace http = boost::beast::http;

namespace {

http::verb verb_of(const std::string& method) {
  if (method == "get") return http::verb::get;
  if (method == "post") return http::verb::post;
  if (method == "put") return http::verb::put;
  if (method == "patch") return http::verb::patch;
  if (method == "delete") return http::verb::delete_;
  return http::verb::unknown;
}

// Every route of the REST API, each answering by reading the query and the body the way the
// API's handlers do.
web::Router make_router() {
  web::Router router;
  const auto doc = nlohmann::json::parse(web::openapi_document());
  for (const auto& [path, item] : doc["paths"].items()) {
    for (const auto& [method, operation] : item.items()) {
      const http::verb verb = verb_of(method);
      if (verb == http::verb::unknown) continue;
      router.add(
          verb, path,
          [](web::HttpRequest&& request, const web::PathParams& params, web::HttpRespond respond) {
            for (const auto& [name, value] : params)
              if (name.empty()) std::abort();
            if (!web::int_param(request, "limit", 100, 1, 1000, respond)) return;
            if (!web::query_fields(request, {"limit", "since", "until", "status"}, respond)) return;
            if (request.method() != http::verb::get &&
                !web::string_fields(request, {"name", "password", "role"}, respond))
              return;
            web::HttpResponse ok{http::status::ok, request.version()};
            respond(std::move(ok));
          });
    }
  }
  return router;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const web::Router router = make_router();
  http::request_parser<http::string_body> parser;
  parser.header_limit(8 * 1024);
  parser.body_limit(64 * 1024);
  parser.eager(true);
  boost::beast::error_code ec;
  parser.put(boost::asio::buffer(data, size), ec);
  if (ec || !parser.is_done()) return 0;
  web::HttpRequest request = parser.release();

  const std::string target(request.target());
  const gateway::TargetParse id = gateway::parse_charge_point_target(target, "/ocpp");
  if (id.charge_point_id && (id.charge_point_id->empty() || !id.error.empty())) std::abort();
  if (!id.charge_point_id && id.error.empty()) std::abort();
  const auto chosen =
      gateway::negotiate_subprotocol(request[http::field::sec_websocket_protocol],
                                     {rpc::OcppVersion::v201, rpc::OcppVersion::v16});
  if (!chosen.chosen && chosen.error.empty()) std::abort();
  const auto basic = gateway::parse_basic_authorization(request[http::field::authorization]);
  if (!basic.credentials && basic.error.empty()) std::abort();

  int answers = 0;
  router.handle(std::move(request), [&answers](web::HttpResponse) { ++answers; });
  if (answers != 1) std::abort();
  return 0;
}
