// web/charge_point_state_api.cpp: see charge_point_state_api.hpp.
#include "web/charge_point_state_api.hpp"

#include <array>
#include <memory>

#include "web/api_input.hpp"

namespace ocppgw::web {
namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 6> kViews = {"configuration",     "variables",
                                                    "reservations",      "local-list",
                                                    "charging-profiles", "display-messages"};

json outcome_json(const CommandOutcome& o) {
  json out{{"result", std::string(outcome_name(o.kind))}};
  if (o.kind == CommandOutcome::Kind::Result || o.kind == CommandOutcome::Kind::InvalidResponse)
    out["payload"] = o.payload;
  if (o.kind == CommandOutcome::Kind::CallError) out["code"] = o.code;
  if (!o.description.empty()) out["description"] = o.description;
  return out;
}

// {"status": "Accepted|Pending|Rejected"} and nothing else (read as every API body is, so the
// same 415/400 answers); otherwise answers 400 and returns nullopt.
std::optional<std::string> boot_status_body(const HttpRequest& request,
                                            const HttpRespond& respond) {
  const auto fields = string_fields(request, {"status"}, respond);
  if (!fields) return std::nullopt;
  const auto it = fields->find("status");
  if (it == fields->end() ||
      (it->second != "Accepted" && it->second != "Pending" && it->second != "Rejected")) {
    respond(json_error(request, http::status::bad_request,
                       "'status' must be \"Accepted\", \"Pending\" or \"Rejected\""));
    return std::nullopt;
  }
  return it->second;
}

}  // namespace

void add_charge_point_state_routes(Router& router, ChargePointStateSource& source, ApiAuth& auth) {
  for (std::string_view name : kViews) {
    router.add(http::verb::get, "/api/v1/charge-points/{id}/" + std::string(name),
               RouteHandler([&source, &auth, name](HttpRequest&& request, const PathParams& params,
                                                   HttpRespond respond) {
                 if (!auth.require(request, Role::Viewer, respond)) return;
                 std::string error;
                 auto view = source.view(params.at("id"), name, &error);
                 if (!view && error.empty())
                   return respond(json_error(request, http::status::not_found,
                                             "unknown charge point '" + params.at("id") + "'"));
                 if (!view)
                   return respond(json_error(request, http::status::service_unavailable,
                                             "reading the charge point state failed: " + error));
                 (*view)["charge_point_id"] = params.at("id");
                 respond(json_response(request, http::status::ok, *view));
               }));
  }

  router.add(
      http::verb::put, "/api/v1/charge-points/{id}/boot-status",
      RouteHandler([&source, &auth](HttpRequest&& request, const PathParams& params,
                                    HttpRespond respond) {
        const auto who = auth.require(request, Role::Admin, respond);
        if (!who) return;
        const auto status = boot_status_body(request, respond);
        if (!status) return;
        auto shared = std::make_shared<HttpRequest>(std::move(request));
        const std::string id = params.at("id");
        source.set_boot_status(
            id, *status, who->name,
            [&auth, shared, respond, who = *who, id, status = *status](
                std::string error, std::optional<CommandOutcome> trigger) {
              json details{{"status", status}};
              if (trigger) details["trigger"] = std::string(outcome_name(trigger->kind));
              if (!error.empty()) details["error"] = error;
              HttpResponse answer =
                  error.empty()
                      ? json_response(*shared, http::status::ok,
                                      {{"charge_point_id", id},
                                       {"boot_status", status},
                                       {"trigger", trigger ? outcome_json(*trigger) : json()}})
                      : json_error(*shared, http::status::service_unavailable, error);
              auth.audit(
                  who, "charge_point.boot_status", id, details, error.empty() ? "ok" : "failed",
                  [respond, answer = std::move(answer)]() mutable { respond(std::move(answer)); });
            });
      }));

  router.add(
      http::verb::post, "/api/v1/charge-points/{id}/credentials/rotate",
      RouteHandler([&source, &auth](HttpRequest&& request, const PathParams& params,
                                    HttpRespond respond) {
        const auto who = auth.require(request, Role::Admin, respond);
        if (!who) return;
        auto shared = std::make_shared<HttpRequest>(std::move(request));
        const std::string id = params.at("id");
        source.rotate_credentials(
            id, who->name,
            [&auth, shared, respond, who = *who, id](
                CommandOutcome call, ChargePointStateSource::Rotation result, std::string error) {
              using R = ChargePointStateSource::Rotation;
              const bool rotated = result == R::Rotated;
              json details{{"result", std::string(outcome_name(call.kind))}, {"rotated", rotated}};
              if (call.kind == CommandOutcome::Kind::Result) details["answer"] = call.payload;
              if (!error.empty()) details["error"] = error;
              HttpResponse answer = [&] {
                switch (result) {
                  case R::Rotated:
                    return json_response(
                        *shared, http::status::ok,
                        {{"charge_point_id", id}, {"rotated", true}, {"answer", call.payload}});
                  case R::Refused:
                    return json_error(*shared, http::status::conflict, error);
                  case R::CallFailed:  // not connected, timeout, ...: the calls route's answer
                    return call.kind == CommandOutcome::Kind::Result
                               ? json_error(*shared, http::status::bad_gateway, error)
                               : command_response(*shared, call);
                  case R::StoreFailed:
                    break;
                }
                return json_error(*shared, http::status::service_unavailable, error);
              }();
              auth.audit(
                  who, "charge_point.credentials_rotate", id, details, rotated ? "ok" : "failed",
                  [respond, answer = std::move(answer)]() mutable { respond(std::move(answer)); });
            });
      }));
}

}  // namespace ocppgw::web
