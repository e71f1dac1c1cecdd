// analytics/delta_mirror_worker.hpp: the Delta Lake mirror (analytics/delta_mirror.hpp) inside
// the gateway: a cycle on a timer on its own thread, a cycle on demand for the REST API, vacuum
// when due, and the figures /health and /metrics show.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "analytics/delta_mirror.hpp"
#include "util/status.hpp"

namespace ocppgw::analytics {

// Runs a cycle every `interval` on its own thread (nice'd below the ack path) and keeps what
// /health shows. stop() waits for a running cycle to end.
class DeltaMirrorWorker {
 public:
  DeltaMirrorWorker(DeltaMirrorOptions options, std::chrono::seconds interval, int nice);
  ~DeltaMirrorWorker();
  void start();
  void stop();
  // Thread-safe and cheap: the last cycle's summary, the count of failed audits, and an alert
  // while the latest attempt of some table failed.
  nlohmann::json health() const;
  // Runs a cycle now, on the calling thread (`POST /api/v1/delta/sync`), after the one running,
  // if any; recorded like the timer's cycles.
  std::optional<CycleReport> run_now(util::Status* status);

  // The figures /metrics shows (thread-safe).
  struct TableStats {
    int64_t version = -1;
    int64_t last_commit_ms = 0;  // 0: not committed since the start
  };
  struct Stats {
    int64_t cycles = 0, failed_cycles = 0, audit_failures = 0, vacuums = 0, rows_written = 0;
    int64_t last_duration_ms = 0;
    bool alert = false;
    std::map<std::string, TableStats> tables;
  };
  Stats stats() const;

 private:
  void run();
  void vacuum_when_due();

  DeltaMirror mirror_;
  std::chrono::seconds interval_;
  int nice_;
  std::thread thread_;
  std::mutex cycle_mutex_;    // held for a whole cycle
  mutable std::mutex mutex_;  // guards what follows
  std::condition_variable wake_;
  bool stopping_ = false;
  nlohmann::json last_cycle_;
  nlohmann::json last_vacuum_;
  // Per table across cycles: the last outcome and version, and when it last committed (a
  // cycle that finds a table unchanged does not commit it, so the last cycle alone cannot say).
  nlohmann::json tables_ = nlohmann::json::object();
  std::string alert_;
  int64_t cycles_ = 0;
  int64_t vacuums_ = 0;
  int64_t audit_failures_ = 0;
  int64_t failed_cycles_ = 0;
  int64_t rows_written_ = 0;
  int64_t last_duration_ms_ = 0;
  std::map<std::string, TableStats> table_stats_;
};

}  // namespace ocppgw::analytics
