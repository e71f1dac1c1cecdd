// gateway/session_registry.cpp
#include "gateway/session_registry.hpp"

#include "gateway/ws_session.hpp"

namespace ocppgw::gateway {

std::shared_ptr<WsSession> SessionRegistry::add(const std::string& charge_point_id,
                                                const std::shared_ptr<WsSession>& session) {
  std::shared_ptr<WsSession> previous;
  {
    std::lock_guard lock(mu_);
    auto& slot = sessions_[charge_point_id];
    previous = slot.lock();
    slot = session;
  }
  if (observer_) observer_(charge_point_id);
  return previous == session ? nullptr : previous;
}

void SessionRegistry::remove(const std::string& charge_point_id, const WsSession* session) {
  {
    std::lock_guard lock(mu_);
    auto it = sessions_.find(charge_point_id);
    if (it == sessions_.end()) return;
    auto current = it->second.lock();
    if (current && current.get() != session) return;
    sessions_.erase(it);
  }
  if (observer_) observer_(charge_point_id);
}

std::shared_ptr<WsSession> SessionRegistry::find(std::string_view charge_point_id) const {
  std::lock_guard lock(mu_);
  auto it = sessions_.find(std::string(charge_point_id));
  return it == sessions_.end() ? nullptr : it->second.lock();
}

void SessionRegistry::call(std::string_view charge_point_id, CallRequest request,
                           CallCallback callback) {
  auto session = find(charge_point_id);
  if (!session) {
    CallOutcome out;
    out.kind = CallOutcome::Kind::NotSent;
    out.error_code = "NotConnected";
    out.error_description = "charge point " + std::string(charge_point_id) + " is not connected";
    callback(std::move(out));
    return;
  }
  session->call(std::move(request), std::move(callback));
}

std::vector<SessionInfo> SessionRegistry::list() const {
  std::vector<SessionInfo> out;
  for (const auto& s : sessions()) out.push_back(s->info());
  return out;
}

std::vector<std::shared_ptr<WsSession>> SessionRegistry::sessions() const {
  std::vector<std::shared_ptr<WsSession>> out;
  std::lock_guard lock(mu_);
  out.reserve(sessions_.size());
  for (const auto& [id, weak] : sessions_)
    if (auto s = weak.lock()) out.push_back(std::move(s));
  return out;
}

size_t SessionRegistry::size() const {
  std::lock_guard lock(mu_);
  return sessions_.size();
}

}  // namespace ocppgw::gateway
