// gateway/csms_commands.hpp: web::CsmsCommands on the live sessions. Each call goes to the
// charge point's session through the registry (which queues it behind any outstanding call)
// and its CallOutcome becomes the API's CommandOutcome.
// Threading: call() from any thread; `done` runs on the session's strand (or the caller's
// thread when the charge point is not connected).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string_view>

#include "csms/variable_batches.hpp"
#include "gateway/session_registry.hpp"
#include "web/csms_commands.hpp"

namespace ocppgw::gateway {

// GetVariables/SetVariables beyond the charge point's reported limits (`limits`, may be empty:
// never split) go out as several calls, one after the other, and come back as one outcome
// (csms/variable_batches.hpp): the merged result, or the first part that did not end in a
// valid CALLRESULT, with "part k of n" in its description.
class SessionCommands : public web::CsmsCommands {
 public:
  using LimitsLookup = std::function<csms::MessageLimits(const std::string& charge_point_id,
                                                         std::string_view action)>;
  SessionCommands(SessionRegistry& registry, std::chrono::milliseconds timeout,
                  LimitsLookup limits = {})
      : registry_(registry), timeout_(timeout), limits_(std::move(limits)) {}
  void call(std::string charge_point_id, std::string action, nlohmann::json payload,
            std::string requested_by, std::function<void(web::CommandOutcome)> done) override;

  static web::CommandOutcome to_command_outcome(const CallOutcome& outcome);

 private:
  struct Split;
  void call_part(std::shared_ptr<Split> split);

  SessionRegistry& registry_;
  const std::chrono::milliseconds timeout_;
  const LimitsLookup limits_;
};

}  // namespace ocppgw::gateway
