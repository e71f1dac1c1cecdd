// gateway/refusal_events.hpp: how many security events refused handshakes may write. Every 401
// and 403 to a charge point becomes a SecurityEvent in the event log (gateway/http_session.cpp),
// but a flood of wrong passwords must not fill the disk: per charge point id at most one event
// per kPerIdInterval, and at most kPerSecond per second in all (bursts up to kBurst). What is
// held back is counted and reported by the next event let through. Thread-safe.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace ocppgw::gateway {

class RefusalEventLimiter {
 public:
  static constexpr int64_t kPerIdInterval = 10'000;  // ms
  static constexpr double kPerSecond = 20;
  static constexpr double kBurst = 100;
  static constexpr size_t kMaxIds = 10'000;  // remembered ids; more: forget them all

  // true: write the event (*suppressed_before = events held back since the last one written).
  bool allow(std::string_view charge_point_id, int64_t now_ms, int64_t* suppressed_before);

 private:
  std::mutex mu_;
  double tokens_ = kBurst;
  int64_t refilled_ms_ = -1;
  std::unordered_map<std::string, int64_t> last_by_id_;
  int64_t suppressed_ = 0;
};

// The process's limiter (all listeners share one disk).
RefusalEventLimiter& refusal_events();

}  // namespace ocppgw::gateway
