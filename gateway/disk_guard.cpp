// gateway/disk_guard.cpp
#include "gateway/disk_guard.hpp"

#include <sys/statvfs.h>

#include "util/logging.hpp"

namespace ocppgw::gateway {
namespace {

const char* to_string(DiskGuard::State s) {
  switch (s) {
    case DiskGuard::State::Ok:
      return "ok";
    case DiskGuard::State::Low:
      return "low";
    case DiskGuard::State::Critical:
      return "critical";
  }
  return "ok";
}

}  // namespace

DiskGuard::DiskGuard(std::string path, uint64_t floor_bytes, FreeSpace free_space)
    : path_(std::move(path)), floor_(floor_bytes), free_space_(std::move(free_space)) {
  if (!free_space_)
    free_space_ = [path = path_]() -> std::optional<uint64_t> {
      struct statvfs st {};
      if (::statvfs(path.c_str(), &st) != 0) return std::nullopt;
      return static_cast<uint64_t>(st.f_bavail) * st.f_frsize;
    };
}

void DiskGuard::poll() {
  if (floor_ == 0) return;
  const auto free = free_space_();
  if (!free) return;  // unreadable: keep the last decision rather than guess
  free_.store(*free);
  const State before = state_.load();
  State now = *free >= floor_ ? State::Ok : *free >= floor_ / 2 ? State::Low : State::Critical;
  if (now == State::Low) {
    if (before != State::Low)
      threshold_.store(kFirstThreshold);
    else if (last_free_ && *free < *last_free_)
      threshold_.store(threshold_.load() / 2);
    if (threshold_.load() < kLowestThreshold) threshold_.store(kLowestThreshold);
  }
  last_free_ = free;
  state_.store(now);
  if (now != before)
    log::warn("disk_space", "",
              {{"state", to_string(now)},
               {"free_bytes", std::to_string(*free)},
               {"floor_bytes", std::to_string(floor_)},
               {"effect", now == State::Ok    ? "reading resumed"
                          : now == State::Low ? "heaviest writers paused"
                                              : "every connection paused"}});
}

bool DiskGuard::allows(double bytes_per_s) const {
  switch (state_.load()) {
    case State::Ok:
      return true;
    case State::Low:
      return bytes_per_s < threshold_.load();
    case State::Critical:
      return false;
  }
  return true;
}

nlohmann::json DiskGuard::report() const {
  nlohmann::json out{{"state", to_string(state_.load())},
                     {"free_bytes", free_.load()},
                     {"floor_bytes", floor_},
                     {"paused_connections", paused_.load()}};
  if (state_.load() == State::Low) out["pause_above_bytes_per_s"] = threshold_.load();
  return out;
}

}  // namespace ocppgw::gateway
