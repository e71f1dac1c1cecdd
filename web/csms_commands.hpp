// web/csms_commands.hpp: the operator's way to make the central system act.
//   POST /api/v1/charge-points/{id}/calls/{action}   body: the OCPP request payload (JSON object)
// sends that CALL to the connected charge point and answers with how it ended:
//   200 {"result":"CallResult","payload":{...}}
//   200 {"result":"CallError","code":"...","description":"...","details":{...}}
//   502 {"result":"InvalidResponse","payload":{...},"violations":[...]}  the answer broke the
//       action's response schema: reported (and recorded), never passed off as success
//   400 the body is not a JSON object, or breaks the request schema ("violations"; nothing sent)
//   404 the charge point's OCPP version has no such CSMS->charge point action
//   409 the charge point is not connected, or disconnected before answering
//   429 too many calls already wait for this charge point (one is outstanding at a time)
//   504 no answer within the call timeout
// web/ knows HTTP and JSON only: the gateway implements CsmsCommands (one narrow interface) and
// decides who may call (CommandGuard, the API's authentication) and keeps the audit log
// (CommandAudit); every call that reaches CsmsCommands gets an audit row.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "web/api_auth.hpp"
#include "web/router.hpp"

namespace ocppgw::web {

struct CommandOutcome {
  enum class Kind {
    Result,
    CallError,
    InvalidResponse,
    InvalidRequest,
    UnknownAction,
    NotConnected,
    QueueFull,
    Timeout,
  };
  Kind kind = Kind::Result;
  nlohmann::json payload;  // Result, InvalidResponse
  std::string code;        // CallError
  std::string description;
  nlohmann::json details = nlohmann::json::object();
  nlohmann::json violations = nlohmann::json::array();  // InvalidRequest, InvalidResponse
};

class CsmsCommands {
 public:
  virtual ~CsmsCommands() = default;
  // `done` runs exactly once, on any thread.
  virtual void call(std::string charge_point_id, std::string action, nlohmann::json payload,
                    std::string requested_by, std::function<void(CommandOutcome)> done) = 0;
};

// Who is asking (at least Role::Operator), or nullopt after answering 401/403 through `respond`
// (ApiAuth::require in the gateway).
using CommandGuard =
    std::function<std::optional<Principal>(const HttpRequest&, const HttpRespond&)>;
// Records a call and its outcome in the audit log, then runs `then` (which answers): the row is
// written before the caller hears the outcome (ApiAuth::audit in the gateway).
using CommandAudit = std::function<void(const Principal& who, const std::string& charge_point_id,
                                        const std::string& action, const CommandOutcome& outcome,
                                        std::function<void()> then)>;

// Adds the calls route; `commands` must outlive the router.
void add_command_routes(Router& router, CsmsCommands& commands, CommandGuard guard,
                        CommandAudit audit);
// The outcome's name in audit rows: "CallResult", "CallError", "Timeout", ...
std::string_view outcome_name(CommandOutcome::Kind kind);

// The HTTP answer for an outcome (status and JSON body), for the route and its tests.
HttpResponse command_response(const HttpRequest& request, const CommandOutcome& outcome);

}  // namespace ocppgw::web
