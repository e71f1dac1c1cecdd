// gateway/disk_guard.hpp: keeps the data folder's file system from filling up. When the event
// log cannot write, every charge point is refused; so before that happens the gateway stops
// reading from the connections that write the most, and only then from everyone.
//
// poll() (once a second, from the App) reads the free space. At or above the floor nothing is
// paused. Below it ("low") a connection may read a new frame only while its recent write rate
// is under a threshold that starts at kFirstThreshold (far above what a charge point sends in
// normal operation) and halves at every poll in which the free space still went down, so the
// heaviest writers stop first and lighter ones only if that was not enough. It stops halving at
// kLowestThreshold, still above a charge point in normal operation (heartbeats, meter values
// every few seconds): the space may be going to another process, and pausing well-behaved
// charge points would not win it back. Below half the floor ("critical") nobody reads. Paused
// connections are not answered (their frames stay with the charge point, which sends them again),
// so nothing acknowledged is lost.
//
// Threading: poll() from one thread at a time; allows(), report() and healthy() from any.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace ocppgw::gateway {

class DiskGuard {
 public:
  static constexpr double kFirstThreshold = 64 * 1024;  // bytes per second
  static constexpr double kLowestThreshold = 2 * 1024;  // bytes per second
  enum class State { Ok, Low, Critical };
  // Free bytes of the file system, nullopt when it cannot be read.
  using FreeSpace = std::function<std::optional<uint64_t>()>;

  // `floor_bytes` 0: never pauses. `free_space` defaults to statvfs(path).
  DiskGuard(std::string path, uint64_t floor_bytes, FreeSpace free_space = {});

  void poll();
  // Whether a connection whose recent write rate is `bytes_per_s` may read another frame.
  bool allows(double bytes_per_s) const;
  State state() const { return state_.load(); }
  bool healthy() const { return state() == State::Ok; }
  nlohmann::json report() const;
  // Sessions count themselves while paused (for report()).
  void pause_started() { ++paused_; }
  void pause_ended() { --paused_; }

 private:
  const std::string path_;
  const uint64_t floor_;
  FreeSpace free_space_;
  std::atomic<State> state_{State::Ok};
  std::atomic<double> threshold_{0};  // meaningful while Low
  std::atomic<uint64_t> free_{0};
  std::atomic<int64_t> paused_{0};
  std::optional<uint64_t> last_free_;
};

}  // namespace ocppgw::gateway
