// gateway/csms_commands.cpp: see csms_commands.hpp.
#include "gateway/csms_commands.hpp"

namespace ocppgw::gateway {

namespace {
using Kind = web::CommandOutcome::Kind;

nlohmann::json violations_json(const std::vector<rpc::Violation>& violations) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& v : violations) out.push_back({{"path", v.path}, {"message", v.message}});
  return out;
}
}  // namespace

web::CommandOutcome SessionCommands::to_command_outcome(const CallOutcome& o) {
  web::CommandOutcome out;
  out.description = o.error_description;
  switch (o.kind) {
    case CallOutcome::Kind::Result:
      out.kind = o.violations.empty() ? Kind::Result : Kind::InvalidResponse;
      out.payload = o.payload;
      out.violations = violations_json(o.violations);
      break;
    case CallOutcome::Kind::Error:
      out.kind = Kind::CallError;
      out.code = o.error_code;
      if (o.error_details.is_object()) out.details = o.error_details;
      break;
    case CallOutcome::Kind::Timeout:
      out.kind = Kind::Timeout;
      break;
    case CallOutcome::Kind::Disconnected:
      out.kind = Kind::NotConnected;
      out.description = "disconnected before answering: " + o.error_description;
      break;
    case CallOutcome::Kind::NotSent:
      out.kind = o.error_code == "UnknownAction"    ? Kind::UnknownAction
                 : o.error_code == "InvalidRequest" ? Kind::InvalidRequest
                 : o.error_code == "QueueFull"      ? Kind::QueueFull
                                                    : Kind::NotConnected;
      out.violations = violations_json(o.violations);
      break;
  }
  return out;
}

struct SessionCommands::Split {
  std::string charge_point_id;
  std::string action;
  std::string requested_by;
  std::vector<nlohmann::json> parts;
  std::vector<nlohmann::json> results;
  std::function<void(web::CommandOutcome)> done;
};

void SessionCommands::call_part(std::shared_ptr<Split> split) {
  const size_t k = split->results.size();
  registry_.call(split->charge_point_id,
                 CallRequest{split->action, split->parts[k], timeout_, split->requested_by},
                 [this, split](CallOutcome outcome) {
                   web::CommandOutcome out = to_command_outcome(outcome);
                   if (out.kind != Kind::Result) {
                     out.description = "part " + std::to_string(split->results.size() + 1) +
                                       " of " + std::to_string(split->parts.size()) +
                                       (out.description.empty() ? "" : ": " + out.description);
                     return split->done(std::move(out));
                   }
                   split->results.push_back(std::move(out.payload));
                   if (split->results.size() < split->parts.size()) return call_part(split);
                   out.payload = csms::merge_responses(split->action, split->results);
                   split->done(std::move(out));
                 });
}

void SessionCommands::call(std::string charge_point_id, std::string action, nlohmann::json payload,
                           std::string requested_by,
                           std::function<void(web::CommandOutcome)> done) {
  if (limits_ && csms::splits_by_items(action)) {
    auto parts = csms::split_request(action, payload, limits_(charge_point_id, action));
    if (parts.size() > 1) {
      return call_part(std::make_shared<Split>(Split{std::move(charge_point_id),
                                                     std::move(action),
                                                     std::move(requested_by),
                                                     std::move(parts),
                                                     {},
                                                     std::move(done)}));
    }
  }
  registry_.call(
      charge_point_id,
      CallRequest{std::move(action), std::move(payload), timeout_, std::move(requested_by)},
      [done = std::move(done)](CallOutcome outcome) { done(to_command_outcome(outcome)); });
}

}  // namespace ocppgw::gateway
