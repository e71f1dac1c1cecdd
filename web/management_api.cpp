// web/management_api.cpp: see management_api.hpp. One table of changes; one handler serves
// them all.
#include "web/management_api.hpp"

#include <algorithm>
#include <array>
#include <memory>

namespace ocppgw::web {
namespace {

struct ChangeRoute {
  http::verb method;
  const char* path;
  Role role;
  Change change;
  const char* action;                    // the audit log's action
  std::vector<std::string_view> fields;  // the body's; empty: no body is read
  http::status ok;
};

// Body fields that never reach the audit log: secrets, raw tags, and whole event payloads.
constexpr std::array<std::string_view, 3> kUnaudited = {"password", "id_tag", "payload"};

const std::vector<ChangeRoute>& change_routes() {
  static const std::vector<ChangeRoute> routes = {
      {http::verb::post,
       "/api/v1/id-tokens",
       Role::Operator,
       Change::AddToken,
       "id_token.add",
       {"id_tag", "status", "expiry", "parent_id"},
       http::status::created},
      {http::verb::patch,
       "/api/v1/id-tokens/{id}",
       Role::Operator,
       Change::UpdateToken,
       "id_token.update",
       {"status", "expiry", "parent_id"},
       http::status::ok},
      {http::verb::delete_,
       "/api/v1/id-tokens/{id}",
       Role::Operator,
       Change::RemoveToken,
       "id_token.remove",
       {},
       http::status::no_content},
      {http::verb::post,
       "/api/v1/charge-points",
       Role::Admin,
       Change::RegisterChargePoint,
       "charge_point.register",
       {"id", "profile"},
       http::status::created},
      {http::verb::delete_,
       "/api/v1/charge-points/{id}",
       Role::Admin,
       Change::RemoveChargePoint,
       "charge_point.remove",
       {},
       http::status::no_content},
      {http::verb::put,
       "/api/v1/charge-points/{id}/password",
       Role::Admin,
       Change::SetPassword,
       "charge_point.set_password",
       {"password"},
       http::status::no_content},
      {http::verb::delete_,
       "/api/v1/charge-points/{id}/password",
       Role::Admin,
       Change::DeletePassword,
       "charge_point.delete_password",
       {},
       http::status::no_content},
      {http::verb::put,
       "/api/v1/charge-points/{id}/security-profile",
       Role::Admin,
       Change::SetSecurityProfile,
       "charge_point.set_security_profile",
       {"profile"},
       http::status::no_content},
      {http::verb::post,
       "/api/v1/quarantine/{id}/repair",
       Role::Operator,
       Change::RepairQuarantined,
       "quarantine.repair",
       {"payload"},
       http::status::ok},
      {http::verb::post,
       "/api/v1/quarantine/{id}/discard",
       Role::Operator,
       Change::DiscardQuarantined,
       "quarantine.discard",
       {},
       http::status::ok},
      {http::verb::post,
       "/api/v1/quarantine/{id}/replay",
       Role::Operator,
       Change::ReplayQuarantined,
       "quarantine.replay",
       {},
       http::status::ok},
      {http::verb::post,
       "/api/v1/delta/sync",
       Role::Operator,
       Change::SyncDelta,
       "delta.sync",
       {},
       http::status::ok},
  };
  return routes;
}

// On the worker pool: applies the change, audits it whatever the outcome, answers once the
// audit row is written.
void apply_and_audit(ApiAuth& auth, ManagementTarget& target, const ChangeRoute& route,
                     const std::shared_ptr<HttpRequest>& request, const HttpRespond& respond,
                     const Principal& who, ChangeRequest change) {
  ApiResult result = target.apply(change);
  nlohmann::json details = nlohmann::json::object();
  for (auto& [key, value] : change.fields) {
    if (std::find(kUnaudited.begin(), kUnaudited.end(), key) == kUnaudited.end())
      details[key] = value;
    std::fill(value.begin(), value.end(), '\0');  // a password should not linger
  }
  if (!result.message.empty()) details["error"] = result.message;
  // The target comes from the backend only: a path id may be a raw tag, never to be stored.
  std::string target_name = result.target;
  auth.audit(who, route.action, std::move(target_name), std::move(details),
             std::string(outcome_name(result.kind)),
             [request, respond, result = std::move(result), ok = route.ok] {
               respond(api_response(*request, result, ok));
             });
}

}  // namespace

void add_management_routes(Router& router, ApiAuth& auth, ManagementTarget& target) {
  for (const ChangeRoute& route : change_routes()) {
    router.add(route.method, route.path,
               RouteHandler([&auth, &target, &route](HttpRequest&& req, const PathParams& params,
                                                     HttpRespond respond) {
                 auto who = auth.require(req, route.role, respond);
                 if (!who) return;
                 ChangeRequest change{route.change, {}, {}, who->name};
                 if (auto it = params.find("id"); it != params.end()) change.id = it->second;
                 if (!route.fields.empty()) {
                   auto fields = string_fields(req, route.fields, respond);
                   if (!fields) return;
                   change.fields = std::move(*fields);
                   // Parsed: a password in the body should not linger with the request.
                   std::fill(req.body().begin(), req.body().end(), '\0');
                 }
                 auto request = std::make_shared<HttpRequest>(std::move(req));
                 auth.offload(*request, respond,
                              [&auth, &target, &route, request, respond, who = *who,
                               change = std::move(change)]() mutable {
                                apply_and_audit(auth, target, route, request, respond, who,
                                                std::move(change));
                              });
               }));
  }
}

}  // namespace ocppgw::web
