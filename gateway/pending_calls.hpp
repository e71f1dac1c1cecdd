// gateway/pending_calls.hpp: CSMS->charge point calls awaiting their CALLRESULT/CALLERROR. One
// table per session, keyed by the message id we sent, each entry with its own deadline timer.
// A response is checked against the version's <Action>Response schema before the caller sees
// it. Every callback runs exactly once: result, error, timeout, or the connection going away.
// Threading: strand-confined. Every method and every callback runs on the owning session's
// strand (the timers use the executor given at construction); callbacks must not block.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <nlohmann/json.hpp>

#include "rpc/action.hpp"
#include "rpc/frame.hpp"
#include "rpc/schema_set.hpp"

namespace ocppgw::gateway {

struct CallOutcome {
  enum class Kind {
    Result,        // CALLRESULT; check `violations` (non-empty: the payload broke the schema)
    Error,         // CALLERROR from the charge point
    Timeout,       // no answer in time
    Disconnected,  // the connection closed (or was replaced) first
    NotSent,       // charge point not connected, or the request broke its own schema
  };
  Kind kind = Kind::Result;
  std::string message_id;
  nlohmann::json payload;  // Result
  std::string error_code;  // Error (wire spelling), or why it was NotSent
  std::string error_description;
  nlohmann::json error_details;
  std::vector<rpc::Violation> violations;

  bool ok() const { return kind == Kind::Result && violations.empty(); }
};

std::string_view to_string(CallOutcome::Kind kind);

using CallCallback = std::function<void(CallOutcome)>;

// A CSMS->charge point call as asked for (REST API, tests). NotSent outcomes carry one of these
// error codes: NotConnected, UnknownAction (the version has no such CSMS->CP action),
// InvalidRequest (the payload breaks the action's schema; `violations` says where), QueueFull.
struct CallRequest {
  std::string action;
  nlohmann::json payload;
  std::chrono::milliseconds timeout{30000};
  std::string requested_by;  // who asked (operator name), for the CsmsCall event
};

class PendingCalls {
 public:
  PendingCalls(boost::asio::any_io_executor executor, const rpc::Protocol& protocol);
  ~PendingCalls();
  PendingCalls(const PendingCalls&) = delete;
  PendingCalls& operator=(const PendingCalls&) = delete;

  // Registers a call and arms its timer; returns the message id to send.
  std::string add(std::string action, std::chrono::milliseconds timeout, CallCallback callback);
  // Matches a CALLRESULT/CALLERROR; false when no call with that id is pending.
  bool complete(const rpc::Frame& response);
  // Ends every pending call with `kind` (connection closed).
  void fail_all(CallOutcome::Kind kind, std::string_view why);
  size_t size() const { return calls_.size(); }

 private:
  struct Call {
    std::string action;
    std::unique_ptr<boost::asio::steady_timer> timer;
    CallCallback callback;
  };
  void on_timeout(const std::string& id);

  boost::asio::any_io_executor executor_;
  const rpc::Protocol& protocol_;
  uint64_t next_id_ = 1;
  std::unordered_map<std::string, Call> calls_;
};

}  // namespace ocppgw::gateway
