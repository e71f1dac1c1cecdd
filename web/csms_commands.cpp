// web/csms_commands.cpp: see csms_commands.hpp.
#include "web/csms_commands.hpp"

#include "util/metrics.hpp"

namespace ocppgw::web {
namespace {

using nlohmann::json;
using Kind = CommandOutcome::Kind;

json error_body(std::string_view error, std::string_view description) {
  return {{"error", std::string(error)}, {"description", std::string(description)}};
}

// ocppgw_csms_calls_total{action, outcome}. The action is a label only once the charge point's
// protocol has vouched for it (every outcome but UnknownAction and NotConnected, which end the
// call before its action is checked), so a client's misspellings cannot add labels.
metrics::Family<metrics::Counter>& calls_counter() {
  static auto& calls = metrics::process_registry().counter(
      "ocppgw_csms_calls_total",
      "CSMS->charge point calls made through the API, by action (\"other\": not checked or "
      "unknown) and outcome.",
      {"action", "outcome"});
  return calls;
}

void count_call(const std::string& action, Kind kind) {
  const bool vouched = kind != Kind::UnknownAction && kind != Kind::NotConnected;
  calls_counter().with({vouched ? action : "other", std::string(outcome_name(kind))}).inc();
}

}  // namespace

HttpResponse command_response(const HttpRequest& request, const CommandOutcome& o) {
  switch (o.kind) {
    case Kind::Result:
      return json_response(request, http::status::ok,
                           {{"result", "CallResult"}, {"payload", o.payload}});
    case Kind::CallError:
      return json_response(request, http::status::ok,
                           {{"result", "CallError"},
                            {"code", o.code},
                            {"description", o.description},
                            {"details", o.details}});
    case Kind::InvalidResponse:
      return json_response(
          request, http::status::bad_gateway,
          {{"result", "InvalidResponse"}, {"payload", o.payload}, {"violations", o.violations}});
    case Kind::InvalidRequest: {
      json body = error_body("InvalidRequest", o.description);
      body["violations"] = o.violations;
      return json_response(request, http::status::bad_request, body);
    }
    case Kind::UnknownAction:
      return json_response(request, http::status::not_found,
                           error_body("UnknownAction", o.description));
    case Kind::NotConnected:
      return json_response(request, http::status::conflict,
                           error_body("NotConnected", o.description));
    case Kind::QueueFull:
      return json_response(request, http::status::too_many_requests,
                           error_body("QueueFull", o.description));
    case Kind::Timeout:
      return json_response(request, http::status::gateway_timeout,
                           error_body("Timeout", o.description));
  }
  return json_response(request, http::status::internal_server_error, error_body("Internal", ""));
}

std::string_view outcome_name(Kind kind) {
  switch (kind) {
    case Kind::Result:
      return "CallResult";
    case Kind::CallError:
      return "CallError";
    case Kind::InvalidResponse:
      return "InvalidResponse";
    case Kind::InvalidRequest:
      return "InvalidRequest";
    case Kind::UnknownAction:
      return "UnknownAction";
    case Kind::NotConnected:
      return "NotConnected";
    case Kind::QueueFull:
      return "QueueFull";
    case Kind::Timeout:
      return "Timeout";
  }
  return "Unknown";
}

void add_command_routes(Router& router, CsmsCommands& commands, CommandGuard guard,
                        CommandAudit audit) {
  calls_counter();  // listed (empty) on /metrics before the first call
  router.add(
      http::verb::post, "/api/v1/charge-points/{id}/calls/{action}",
      RouteHandler([&commands, guard = std::move(guard), audit = std::move(audit)](
                       HttpRequest&& request, const PathParams& params, HttpRespond respond) {
        const auto who = guard(request, respond);
        if (!who) return;
        json payload = json::parse(request.body(), nullptr, false);
        if (payload.is_discarded() || !payload.is_object())
          return respond(
              json_response(request, http::status::bad_request,
                            error_body("InvalidRequest",
                                       "the body must be the request payload as a JSON object")));
        // The request outlives this handler only inside the callback (for its version and
        // keep-alive): the callback may run on another thread after the route returned.
        auto shared = std::make_shared<HttpRequest>(std::move(request));
        commands.call(params.at("id"), params.at("action"), std::move(payload), who->name,
                      [shared, respond = std::move(respond), audit, who = *who,
                       id = params.at("id"), action = params.at("action")](CommandOutcome outcome) {
                        count_call(action, outcome.kind);
                        auto answer = command_response(*shared, outcome);
                        audit(who, id, action, outcome,
                              [respond, answer = std::move(answer)]() mutable {
                                respond(std::move(answer));
                              });
                      });
      }));
}

}  // namespace ocppgw::web
