// analytics/delta_mirror_worker.cpp
#include "analytics/delta_mirror_worker.hpp"

#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "util/logging.hpp"
#include "util/thread_name.hpp"
#include "util/time.hpp"

namespace ocppgw::analytics {

namespace fs = std::filesystem;
using util::Status;

DeltaMirrorWorker::DeltaMirrorWorker(DeltaMirrorOptions options, std::chrono::seconds interval,
                                     int nice)
    : mirror_(std::move(options)), interval_(interval), nice_(nice) {}

DeltaMirrorWorker::~DeltaMirrorWorker() { stop(); }

void DeltaMirrorWorker::start() {
  thread_ = std::thread([this] {
    util::name_this_thread("delta-mirror");
    run();
  });
}

void DeltaMirrorWorker::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

nlohmann::json DeltaMirrorWorker::health() const {
  std::lock_guard lock(mutex_);
  nlohmann::json j = {{"cycles", cycles_},
                      {"vacuums", vacuums_},
                      {"failed_cycles", failed_cycles_},
                      {"audit_failures_total", audit_failures_},
                      {"interval_s", interval_.count()}};
  if (!last_cycle_.is_null()) j["last_cycle"] = last_cycle_;
  if (!last_vacuum_.is_null()) j["last_vacuum"] = last_vacuum_;
  if (!tables_.empty()) j["tables"] = tables_;
  if (!alert_.empty()) j["alert"] = alert_;
  return j;
}

void DeltaMirrorWorker::run() {
  if (::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), nice_) != 0)
    log::warn("delta_mirror", "", {{"error", "could not lower the mirror thread's priority"}});
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (wake_.wait_for(lock, interval_, [this] { return stopping_; })) break;
    lock.unlock();
    Status s;
    run_now(&s);
    vacuum_when_due();
    lock.lock();
  }
}

std::optional<CycleReport> DeltaMirrorWorker::run_now(Status* status) {
  std::lock_guard cycle(cycle_mutex_);  // one cycle at a time: the timer's or an API call's
  auto report = mirror_.run_cycle(status);
  // A cycle builds the changed partitions in memory and frees them at its end; glibc keeps
  // freed pages in its arenas (as RSS) until told to hand them back (gateway/main.cpp says why
  // Arrow allocates from glibc).
  ::malloc_trim(0);
  std::lock_guard lock(mutex_);
  ++cycles_;
  if (!report) {
    ++failed_cycles_;
    alert_ = "mirror cycle failed: " + status->message();
    log::warn("delta_mirror", "", {{"error", status->message()}});
    return report;
  }
  last_cycle_ = to_json(*report);
  alert_.clear();
  rows_written_ += report->rows_written;
  last_duration_ms_ = report->duration_ms;
  const int64_t finished_ms = report->started_at_ms + report->duration_ms;
  const std::string finished = util::format_rfc3339_ms(finished_ms);
  for (const auto& t : report->tables) {
    nlohmann::json& table = tables_[t.table];
    table["outcome"] = to_string(t.outcome);
    if (t.version >= 0) table["version"] = t.version;
    if (t.version >= 0) table_stats_[t.table].version = t.version;
    if (t.outcome == TableCycleReport::Outcome::kCommitted) {
      table["last_commit"] = finished;
      table_stats_[t.table].last_commit_ms = finished_ms;
    }
    if (t.outcome == TableCycleReport::Outcome::kAuditFailed) ++audit_failures_;
    if (t.outcome == TableCycleReport::Outcome::kAuditFailed ||
        t.outcome == TableCycleReport::Outcome::kFailed) {
      alert_ +=
          (alert_.empty() ? "" : "; ") + t.table + ": " + to_string(t.outcome) + ": " + t.detail;
    }
  }
  if (!report->ok()) {
    ++failed_cycles_;
    log::warn("delta_mirror", "", {{"alert", alert_}});
  }
  return report;
}

DeltaMirrorWorker::Stats DeltaMirrorWorker::stats() const {
  std::lock_guard lock(mutex_);
  return {cycles_,       failed_cycles_,    audit_failures_, vacuums_,
          rows_written_, last_duration_ms_, !alert_.empty(), table_stats_};
}

// Vacuum is due when the marker file under the root (written by the last vacuum, or by the
// first cycle) is older than the interval: a file, not a timer, so that restarts do not
// postpone it forever.
void DeltaMirrorWorker::vacuum_when_due() {
  const auto interval = mirror_.options().vacuum_interval;
  if (interval.count() <= 0) return;
  const fs::path marker = mirror_.options().root / "_last_vacuum";
  std::error_code ec;
  const auto last = fs::last_write_time(marker, ec);
  if (ec) {  // the first run: the tables are new, the first vacuum is one interval away
    std::ofstream(marker) << "{}\n";
    return;
  }
  if (last > fs::file_time_type::clock::now() - interval) return;
  const nlohmann::json report = mirror_.vacuum({}, false);
  std::ofstream(marker) << report.dump() << "\n";
  std::lock_guard lock(mutex_);
  ++vacuums_;
  last_vacuum_ = report;
  for (const auto& [table, r] : report.items())
    if (r.contains("error"))
      log::warn("delta_mirror", "", {{"table", table}, {"vacuum_error", r["error"].dump()}});
}

}  // namespace ocppgw::analytics
