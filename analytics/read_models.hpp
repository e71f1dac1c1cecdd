// analytics/read_models.hpp: the queries behind the web page and REST API, returning JSON.
// Each query follows an index of the analytics store (see migrations/0001_analytics.sql), so
// its cost depends on the rows it returns, not on how many events are stored:
//   fleet_overview   health_liveness, current_status_status, sessions_open, daily_day, counters
//   live_sessions    sessions_open (is_open = 1 ORDER BY last_event_ts DESC)
//   session_detail   charging_sessions PK, silver_session (cp, transaction), quarantine conflict
//   index daily_stats      charging_stats_daily PK (charge point) or daily_day (fleet)
//   quarantine_list  quarantine_status (status, quarantine_id) / quarantine_reason
//   dq_metrics       dq_batches PK (latest), dq_totals, dq_lag_histogram, dq_clock_skew,
//   sessions_open
// Timestamps are RFC 3339 strings; JSON columns (flags, quality_flags, extra, violations) are
// embedded as JSON. Threading: one ReadModels per thread; it owns a read-only connection, which
// WAL lets run beside the pipeline's writer.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "storage/db.hpp"

namespace ocppgw::analytics {

class ReadModels {
 public:
  static std::unique_ptr<ReadModels> open(const std::string& analytics_db_path,
                                          storage::Status* status);
  explicit ReadModels(std::unique_ptr<storage::Db> db) : db_(std::move(db)) {}

  nlohmann::json fleet_overview();
  nlohmann::json live_sessions(size_t limit = 100);
  // null when the session does not exist.
  nlohmann::json session_detail(const std::string& session_id);
  // Per charge point (all days in range) or, with no charge point, every charge point per day.
  nlohmann::json daily_stats(const std::optional<std::string>& charge_point_id,
                             const std::string& from_day, const std::string& to_day,
                             size_t limit = 1000);
  // Newest first; `before_id` pages backwards (0 = from the newest).
  nlohmann::json quarantine_list(const std::optional<std::string>& status,
                                 const std::optional<std::string>& reason, int64_t before_id = 0,
                                 size_t limit = 100);
  nlohmann::json dq_metrics(size_t recent_batches = 20);

  storage::Db& db() { return *db_; }

 private:
  std::unique_ptr<storage::Db> db_;
};

// Rows of a query as JSON objects (timestamps formatted, JSON columns parsed). Shared with
// the commands in cli.cpp.
nlohmann::json query_json(storage::Db& db, const std::string& sql,
                          const std::vector<storage::Value>& params = {},
                          storage::Status* status = nullptr);

}  // namespace ocppgw::analytics
