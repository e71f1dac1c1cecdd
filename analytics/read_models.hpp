// analytics/read_models.hpp: the queries behind the web page and REST API, returning JSON.
// Each query follows an index of the analytics store (see migrations/), so
// its cost depends on the rows it returns, not on how many events are stored:
//   fleet_overview   health_liveness, current_status_status, sessions_open, daily_day, counters
//   live_sessions    sessions_open (is_open = 1 ORDER BY last_event_ts DESC)
//   session_detail   charging_sessions PK, silver_business_key (the session's start, stop and
//                    readings: session_business_keys), quarantine conflict index
//   daily_stats      charging_stats_daily PK (charge point) or daily_day (fleet)
//   quarantine_list  quarantine_status (status, quarantine_id) / quarantine_reason
//   dq_metrics       dq_batches PK (latest), dq_totals, dq_lag_histogram, dq_clock_skew,
//                    sessions_open
//   sessions         sessions_cp_day (charge point [, day]), sessions_open (open only), else a
//                    scan in key order that stops after one page
//   status_history   connector_status_history PK (one charge point's rows)
//   connection_history  silver_cp_type_ts (charge_point_id, event_type, event_ts)
//   duplicates       duplicate_events_audit PK (audit_id), newest first
//   charge_point     charge_point_health PK, connector_current_status PK
// The paged queries (sessions, status_history, duplicates, quarantine_page, daily_stats_page)
// page by keyset: the cursor is an opaque encoding of the last row's sort key, so a page never
// repeats or skips a row because rows were inserted before it (docs/api.md, "Paging").
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

// One page request: `cursor` is a previous page's next_cursor (empty: the first page).
struct PageRequest {
  std::string cursor;
  size_t limit = 50;
};

// {"items":[...], "next_cursor": "..."|null} in `body`; or `invalid` says what is wrong with the
// request (a cursor that is not one of ours), or `status` why the query failed.
struct PageResult {
  nlohmann::json body;
  std::string invalid;
  storage::Status status;
};

struct SessionFilter {
  std::optional<std::string> charge_point_id = std::nullopt;
  std::optional<std::string> status =
      std::nullopt;  // IN_PROGRESS | COMPLETED | TIMED_OUT | START_MISSING
  std::optional<std::string> day = std::nullopt;  // stats_day, YYYY-MM-DD
  bool open_only = false;
};

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

  // Newest start first; provisional (open) and final energy as energy_kwh + energy_is_final.
  PageResult sessions(const SessionFilter& filter, const PageRequest& page);
  // One charge point's connector status intervals, newest first (optionally one connector).
  // One charge point's connects and disconnects, newest first.
  PageResult connection_history(const std::string& charge_point_id, const PageRequest& page);
  PageResult status_history(const std::string& charge_point_id, std::optional<int64_t> connector_id,
                            const PageRequest& page);
  // Removed duplicate copies, newest first (payloads included).
  PageResult duplicates(const std::optional<std::string>& charge_point_id,
                        const std::optional<std::string>& duplicate_type, const PageRequest& page);
  // quarantine_list() with cursor paging, for the REST API.
  PageResult quarantine_page(const std::optional<std::string>& status,
                             const std::optional<std::string>& reason, const PageRequest& page);
  // daily_stats() with cursor paging, oldest day first.
  PageResult daily_stats_page(const std::optional<std::string>& charge_point_id,
                              const std::string& from_day, const std::string& to_day,
                              const PageRequest& page);
  // What analytics knows of one charge point: {"health": {...}|null, "connectors": [...]}.
  nlohmann::json charge_point(const std::string& charge_point_id);

  storage::Db& db() { return *db_; }

 private:
  std::unique_ptr<storage::Db> db_;
};

// The opaque cursor of a sort key (a JSON array of its values), and back (nullopt: not a cursor
// of `arity` values).
std::string encode_cursor(const nlohmann::json& key);
std::optional<nlohmann::json> decode_cursor(std::string_view cursor, size_t arity);

// Rows of a query as JSON objects (timestamps formatted, JSON columns parsed). Shared with
// the commands in cli.cpp.
nlohmann::json query_json(storage::Db& db, const std::string& sql,
                          const std::vector<storage::Value>& params = {},
                          storage::Status* status = nullptr);

}  // namespace ocppgw::analytics
