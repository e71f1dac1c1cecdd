// gateway/pending_calls.cpp
#include "gateway/pending_calls.hpp"

namespace ocppgw::gateway {

std::string_view to_string(CallOutcome::Kind kind) {
  switch (kind) {
    case CallOutcome::Kind::Result:
      return "result";
    case CallOutcome::Kind::Error:
      return "error";
    case CallOutcome::Kind::Timeout:
      return "timeout";
    case CallOutcome::Kind::Disconnected:
      return "disconnected";
    case CallOutcome::Kind::NotSent:
      return "not_sent";
  }
  return "unknown";
}

PendingCalls::PendingCalls(boost::asio::any_io_executor executor, const rpc::Protocol& protocol)
    : executor_(std::move(executor)), protocol_(protocol) {}

PendingCalls::~PendingCalls() {
  // Destroying the timers cancels them; their handlers see operation_aborted and return
  // without touching `this`.
  for (auto& [id, call] : calls_) call.timer->cancel();
}

std::string PendingCalls::add(std::string action, std::chrono::milliseconds timeout,
                              CallCallback callback) {
  // Our ids only need to be unique on this connection; "gw" keeps them apart from the
  // charge point's own ids in logs.
  std::string id = "gw" + std::to_string(next_id_++);
  auto timer = std::make_unique<boost::asio::steady_timer>(executor_, timeout);
  timer->async_wait([this, id](boost::system::error_code ec) {
    if (!ec) on_timeout(id);
  });
  calls_.emplace(id, Call{std::move(action), std::move(timer), std::move(callback)});
  return id;
}

bool PendingCalls::complete(const rpc::Frame& response) {
  auto it = calls_.find(response.message_id);
  if (it == calls_.end()) return false;
  Call call = std::move(it->second);
  calls_.erase(it);
  call.timer->cancel();

  CallOutcome out;
  out.message_id = response.message_id;
  if (response.type == rpc::MessageType::CallResult) {
    out.kind = CallOutcome::Kind::Result;
    out.payload = response.payload;
    const std::string schema = call.action + "Response";
    if (protocol_.schemas.has(schema)) {
      auto check = protocol_.schemas.validate(schema, out.payload);
      out.violations = std::move(check.violations);
    } else {
      out.violations.push_back({"", "no " + schema + " schema in OCPP " +
                                        std::string(rpc::to_string(protocol_.version))});
    }
  } else {
    out.kind = CallOutcome::Kind::Error;
    out.error_code = response.error_code;
    out.error_description = response.error_description;
    out.error_details = response.error_details;
  }
  call.callback(std::move(out));
  return true;
}

void PendingCalls::fail_all(CallOutcome::Kind kind, std::string_view why) {
  auto calls = std::move(calls_);
  calls_.clear();
  for (auto& [id, call] : calls) {
    call.timer->cancel();
    CallOutcome out;
    out.kind = kind;
    out.message_id = id;
    out.error_description = std::string(why);
    call.callback(std::move(out));
  }
}

void PendingCalls::on_timeout(const std::string& id) {
  auto it = calls_.find(id);
  if (it == calls_.end()) return;
  Call call = std::move(it->second);
  calls_.erase(it);
  CallOutcome out;
  out.kind = CallOutcome::Kind::Timeout;
  out.message_id = id;
  out.error_description = "no response to " + call.action + " in time";
  call.callback(std::move(out));
}

}  // namespace ocppgw::gateway
