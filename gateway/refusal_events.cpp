// gateway/refusal_events.cpp
#include "gateway/refusal_events.hpp"

#include <algorithm>

namespace ocppgw::gateway {

bool RefusalEventLimiter::allow(std::string_view charge_point_id, int64_t now_ms,
                                int64_t* suppressed_before) {
  std::lock_guard lock(mu_);
  if (refilled_ms_ >= 0)
    tokens_ = std::min(kBurst,
                       tokens_ + static_cast<double>(now_ms - refilled_ms_) * kPerSecond / 1000.0);
  refilled_ms_ = now_ms;
  const std::string id(charge_point_id);
  auto it = last_by_id_.find(id);
  const bool id_quiet = it == last_by_id_.end() || now_ms - it->second >= kPerIdInterval;
  if (!id_quiet || tokens_ < 1) {
    ++suppressed_;
    return false;
  }
  tokens_ -= 1;
  // An attacker cycling through ids would grow the map without end; forgetting them all at
  // once only lets each id write one more event.
  if (last_by_id_.size() >= kMaxIds) last_by_id_.clear();
  last_by_id_[id] = now_ms;
  *suppressed_before = suppressed_;
  suppressed_ = 0;
  return true;
}

RefusalEventLimiter& refusal_events() {
  static RefusalEventLimiter limiter;
  return limiter;
}

}  // namespace ocppgw::gateway
