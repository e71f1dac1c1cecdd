// web/csms_commands.cpp: see csms_commands.hpp.
#include "web/csms_commands.hpp"

namespace ocppgw::web {
namespace {

using nlohmann::json;
using Kind = CommandOutcome::Kind;

HttpResponse json_reply(const HttpRequest& request, http::status status, const json& body) {
  return make_response(request, status, body.dump(-1, ' ', false, json::error_handler_t::replace),
                       "application/json");
}

json error_body(std::string_view error, std::string_view description) {
  return {{"error", std::string(error)}, {"description", std::string(description)}};
}

}  // namespace

HttpResponse command_response(const HttpRequest& request, const CommandOutcome& o) {
  switch (o.kind) {
    case Kind::Result:
      return json_reply(request, http::status::ok,
                        {{"result", "CallResult"}, {"payload", o.payload}});
    case Kind::CallError:
      return json_reply(request, http::status::ok,
                        {{"result", "CallError"},
                         {"code", o.code},
                         {"description", o.description},
                         {"details", o.details}});
    case Kind::InvalidResponse:
      return json_reply(
          request, http::status::bad_gateway,
          {{"result", "InvalidResponse"}, {"payload", o.payload}, {"violations", o.violations}});
    case Kind::InvalidRequest: {
      json body = error_body("InvalidRequest", o.description);
      body["violations"] = o.violations;
      return json_reply(request, http::status::bad_request, body);
    }
    case Kind::UnknownAction:
      return json_reply(request, http::status::not_found,
                        error_body("UnknownAction", o.description));
    case Kind::NotConnected:
      return json_reply(request, http::status::conflict, error_body("NotConnected", o.description));
    case Kind::QueueFull:
      return json_reply(request, http::status::too_many_requests,
                        error_body("QueueFull", o.description));
    case Kind::Timeout:
      return json_reply(request, http::status::gateway_timeout,
                        error_body("Timeout", o.description));
  }
  return json_reply(request, http::status::internal_server_error, error_body("Internal", ""));
}

void add_command_routes(Router& router, CsmsCommands& commands, CommandGuard guard) {
  router.add(
      http::verb::post, "/api/v1/charge-points/{id}/calls/{action}",
      RouteHandler([&commands, guard = std::move(guard)](
                       HttpRequest&& request, const PathParams& params, HttpRespond respond) {
        const auto actor = guard(request, respond);
        if (!actor) return;
        json payload = json::parse(request.body(), nullptr, false);
        if (payload.is_discarded() || !payload.is_object())
          return respond(
              json_reply(request, http::status::bad_request,
                         error_body("InvalidRequest",
                                    "the body must be the request payload as a JSON object")));
        // The request outlives this handler only inside the callback (for its version and
        // keep-alive): the callback may run on another thread after the route returned.
        auto shared = std::make_shared<HttpRequest>(std::move(request));
        commands.call(params.at("id"), params.at("action"), std::move(payload), *actor,
                      [shared, respond = std::move(respond)](CommandOutcome outcome) {
                        respond(command_response(*shared, outcome));
                      });
      }));
}

}  // namespace ocppgw::web
