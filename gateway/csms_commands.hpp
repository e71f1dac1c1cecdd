// gateway/csms_commands.hpp: web::CsmsCommands on the live sessions. Each call goes to the
// charge point's session through the registry (which queues it behind any outstanding call)
// and its CallOutcome becomes the API's CommandOutcome.
// Threading: call() from any thread; `done` runs on the session's strand (or the caller's
// thread when the charge point is not connected).
#pragma once

#include <chrono>

#include "gateway/session_registry.hpp"
#include "web/csms_commands.hpp"

namespace ocppgw::gateway {

class SessionCommands : public web::CsmsCommands {
 public:
  SessionCommands(SessionRegistry& registry, std::chrono::milliseconds timeout)
      : registry_(registry), timeout_(timeout) {}
  void call(std::string charge_point_id, std::string action, nlohmann::json payload,
            std::string requested_by, std::function<void(web::CommandOutcome)> done) override;

  static web::CommandOutcome to_command_outcome(const CallOutcome& outcome);

 private:
  SessionRegistry& registry_;
  const std::chrono::milliseconds timeout_;
};

}  // namespace ocppgw::gateway
