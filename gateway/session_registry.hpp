// gateway/session_registry.hpp: charge point id -> its live WebSocket session. The one place
// that decides which connection speaks for a charge point: a second connection with the same
// id replaces the first atomically (the caller then closes the old one). Also the entry point
// for CSMS-initiated calls from any thread (REST API, tests): the call is posted to the
// session's strand.
// Thread-safety: every method may be called from any thread (one mutex, held only for map
// operations, never while calling into a session or the observer).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "gateway/pending_calls.hpp"
#include "rpc/rpc_error.hpp"

namespace ocppgw::gateway {

class WsSession;

struct SessionInfo {
  std::string charge_point_id;
  std::string remote_address;
  rpc::OcppVersion version = rpc::OcppVersion::v16;
  int64_t connected_ms = 0;
  int security_profile = 0;  // what the connection provided (0-3, gateway/listener.hpp)
};

class SessionRegistry {
 public:
  // Told the charge point id whenever a charge point connects or its session goes away (the
  // live stream's ChangeFeed). Set before the listeners start; called outside the lock.
  using Observer = std::function<void(std::string_view charge_point_id)>;
  void set_observer(Observer observer) { observer_ = std::move(observer); }

  // Makes `session` the one for `charge_point_id`; returns the live session it replaced.
  std::shared_ptr<WsSession> add(const std::string& charge_point_id,
                                 const std::shared_ptr<WsSession>& session);
  // Removes the entry only if it still points at `session` (a replaced session must not
  // unregister its successor).
  void remove(const std::string& charge_point_id, const WsSession* session);
  std::shared_ptr<WsSession> find(std::string_view charge_point_id) const;

  // Sends a CALL to the charge point; `callback` runs on that session's strand exactly once
  // (NotSent at once, on the caller's thread, when the charge point is not connected).
  void call(std::string_view charge_point_id, CallRequest request, CallCallback callback);
  void call(std::string_view charge_point_id, std::string action, nlohmann::json payload,
            std::chrono::milliseconds timeout, CallCallback callback) {
    call(charge_point_id, CallRequest{std::move(action), std::move(payload), timeout, {}},
         std::move(callback));
  }

  std::vector<SessionInfo> list() const;
  std::vector<std::shared_ptr<WsSession>> sessions() const;
  size_t size() const;

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::weak_ptr<WsSession>> sessions_;
  Observer observer_;
};

}  // namespace ocppgw::gateway
