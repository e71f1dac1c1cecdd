// analytics/read_models.cpp: JSON read models over the analytics store.
#include "analytics/read_models.hpp"

#include <algorithm>
#include <array>
#include <string_view>

#include <sqlite3.h>

#include "analytics/batch.hpp"
#include "analytics/silver_rules.hpp"
#include "util/hex.hpp"
#include "util/time.hpp"

namespace ocppgw::analytics {
namespace {

using nlohmann::json;

bool is_time_column(std::string_view name) {
  static constexpr std::array<std::string_view, 6> kExact = {
      "valid_from", "valid_to", "status_since", "quarantined_at", "raised_at", "finished_at"};
  return (name.size() > 3 && name.substr(name.size() - 3) == "_ts") ||
         std::find(kExact.begin(), kExact.end(), name) != kExact.end();
}

bool is_json_column(std::string_view name) {
  return name == "flags" || name == "quality_flags" || name == "extra" || name == "violations" ||
         name == "quarantined_by_reason";
}

bool is_bool_column(std::string_view name) {
  return name == "energy_is_final" || name == "is_open" || name == "conservation_ok";
}

json scalar(storage::Db& db, const std::string& sql,
            const std::vector<storage::Value>& params = {}) {
  json rows = query_json(db, sql, params);
  if (rows.empty() || rows[0].empty()) return nullptr;
  return rows[0].begin().value();
}

// A keyset-paged query: the rows after the cursor's key in `keys` order, one more than asked
// for to learn whether another page follows. `keys` must be NOT NULL and unique together.
struct Keyset {
  std::string list;  // names the list in its cursors, so one list's cursor is refused by another
  std::string columns;
  std::string from;
  std::vector<std::string> where;
  std::vector<storage::Value> params;
  std::string group_by;
  std::vector<std::string> keys;
  bool descending = true;
};

std::optional<storage::Value> to_value(const json& v) {
  if (v.is_number_integer()) return storage::Value(v.get<int64_t>());
  if (v.is_number_float()) return storage::Value(v.get<double>());
  if (v.is_string()) return storage::Value(v.get<std::string>());
  return std::nullopt;
}

PageResult keyset_page(storage::Db& db, Keyset q, const PageRequest& page) {
  PageResult r;
  const size_t arity = q.keys.size() + 1;  // the list's name first
  if (!page.cursor.empty()) {
    auto key = decode_cursor(page.cursor, arity);
    if (!key || (*key)[0] != q.list) {
      r.invalid = "cursor is not a next_cursor of this list";
      return r;
    }
    std::string lhs, rhs;
    for (size_t i = 0; i < q.keys.size(); ++i) {
      auto v = to_value((*key)[i + 1]);
      if (!v) {
        r.invalid = "cursor is not a next_cursor of this list";
        return r;
      }
      q.params.push_back(std::move(*v));
      lhs += (i ? ", " : "") + q.keys[i];
      rhs += (i ? ", ?" : "?") + std::to_string(q.params.size());
    }
    q.where.push_back("(" + lhs + ") " + (q.descending ? "<" : ">") + " (" + rhs + ")");
  }
  std::string sql = "SELECT " + q.columns;
  for (size_t i = 0; i < q.keys.size(); ++i) sql += ", " + q.keys[i] + " AS _k" + std::to_string(i);
  sql += " FROM " + q.from;
  for (size_t i = 0; i < q.where.size(); ++i) sql += (i ? " AND " : " WHERE ") + q.where[i];
  if (!q.group_by.empty()) sql += " GROUP BY " + q.group_by;
  for (size_t i = 0; i < q.keys.size(); ++i)
    sql += (i ? ", " : " ORDER BY ") + q.keys[i] + (q.descending ? " DESC" : "");
  q.params.emplace_back(static_cast<int64_t>(page.limit + 1));
  sql += " LIMIT ?" + std::to_string(q.params.size());
  json rows = query_json(db, sql, q.params, &r.status);
  json next = nullptr;
  if (rows.size() > page.limit) {
    rows.erase(rows.size() - 1);
    json key = json::array({q.list});
    for (size_t i = 0; i < q.keys.size(); ++i) key.push_back(rows.back()["_k" + std::to_string(i)]);
    next = encode_cursor(key);
  }
  for (auto& row : rows)
    for (size_t i = 0; i < q.keys.size(); ++i) row.erase("_k" + std::to_string(i));
  r.body = {{"items", std::move(rows)}, {"next_cursor", std::move(next)}};
  return r;
}

bool is_day(const std::string& day) {
  return day.size() == 10 && util::parse_rfc3339_ms(day + "T00:00:00Z").has_value();
}

}  // namespace

std::string encode_cursor(const json& key) { return util::to_hex(key.dump()); }

std::optional<json> decode_cursor(std::string_view cursor, size_t arity) {
  auto text = util::from_hex(cursor);
  if (!text) return std::nullopt;
  json key = json::parse(*text, nullptr, false);
  if (key.is_discarded() || !key.is_array() || key.size() != arity) return std::nullopt;
  return key;
}

json query_json(storage::Db& db, const std::string& sql, const std::vector<storage::Value>& params,
                storage::Status* status) {
  json out = json::array();
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db.handle(), sql.c_str(), static_cast<int>(sql.size()), &st, nullptr) !=
      SQLITE_OK) {
    if (status)
      *status = storage::Status::error(std::string(sqlite3_errmsg(db.handle())) + " in: " + sql);
    return out;
  }
  storage::Statement owner(db.handle(), st);  // finalises on every path
  for (size_t i = 0; i < params.size(); ++i) owner.bind(static_cast<int>(i + 1), params[i]);
  const int n = sqlite3_column_count(st);
  while (owner.step()) {
    json row = json::object();
    for (int c = 0; c < n; ++c) {
      std::string_view name = sqlite3_column_name(st, c);
      switch (sqlite3_column_type(st, c)) {
        case SQLITE_NULL:
          row[std::string(name)] = nullptr;
          break;
        case SQLITE_INTEGER: {
          int64_t v = sqlite3_column_int64(st, c);
          if (is_time_column(name))
            row[std::string(name)] = util::format_rfc3339_ms(v);
          else if (is_bool_column(name))
            row[std::string(name)] = v != 0;
          else
            row[std::string(name)] = v;
          break;
        }
        case SQLITE_FLOAT:
          row[std::string(name)] = sqlite3_column_double(st, c);
          break;
        default: {
          std::string text = owner.text(c);
          if (is_json_column(name)) {
            json parsed = json::parse(text, nullptr, false);
            row[std::string(name)] = parsed.is_discarded() ? json(text) : parsed;
          } else {
            row[std::string(name)] = std::move(text);
          }
        }
      }
    }
    out.push_back(std::move(row));
  }
  if (status) *status = owner.status();
  return out;
}

std::unique_ptr<ReadModels> ReadModels::open(const std::string& path, storage::Status* status) {
  storage::OpenOptions o;
  o.read_only = true;
  auto db = storage::Db::open(path, o, status);
  if (!db) return nullptr;
  return std::make_unique<ReadModels>(std::move(db));
}

json ReadModels::fleet_overview() {
  json o = json::object();
  json liveness = json::object();
  for (const auto& row : query_json(
           *db_, "SELECT liveness, COUNT(*) AS n FROM charge_point_health GROUP BY liveness"))
    liveness[row["liveness"].get<std::string>()] = row["n"];
  o["charge_points"] = liveness;
  json connectors = json::object();
  // Connector 0 of a 1.6 charge point is the charge point itself, not a connector.
  for (const auto& row : query_json(*db_,
                                    "SELECT status, COUNT(*) AS n FROM connector_current_status "
                                    "WHERE connector_id > 0 GROUP BY status"))
    connectors[row["status"].get<std::string>()] = row["n"];
  o["connectors"] = connectors;
  o["open_sessions"] = scalar(*db_, "SELECT COUNT(*) FROM charging_sessions WHERE is_open = 1");
  const int64_t clock =
      scalar(*db_, "SELECT COALESCE(MAX(value), 0) FROM pipeline_state WHERE key = 'data_clock_ms'")
          .get<int64_t>();
  o["data_clock"] = clock ? json(util::format_rfc3339_ms(clock)) : json(nullptr);
  const std::string today = util::format_rfc3339_ms(clock ? clock : util::now_ms()).substr(0, 10);
  json day = query_json(*db_,
                        "SELECT COALESCE(SUM(sessions_total), 0) AS sessions, "
                        "COALESCE(SUM(sessions_completed), 0) AS completed, "
                        "COALESCE(SUM(energy_kwh_final), 0) AS energy_kwh_final, "
                        "COALESCE(SUM(energy_kwh_provisional), 0) AS energy_kwh_provisional "
                        "FROM charging_stats_daily WHERE day = ?1",
                        {today});
  o["today"] = day.empty() ? json::object() : day[0];
  o["today"]["day"] = today;
  o["quarantine_new"] = scalar(*db_, "SELECT COUNT(*) FROM quarantine_events WHERE status = 'NEW'");
  json counts = json::object();
  for (const auto& row : query_json(*db_, "SELECT name, value FROM table_counts"))
    counts[row["name"].get<std::string>()] = row["value"];
  counts["raw"] =
      scalar(*db_, "SELECT COALESCE(MAX(value), 0) FROM pipeline_state WHERE key = 'raw_total'");
  counts["conservation_ok"] =
      counts["raw"].get<int64_t>() == counts.value("silver", int64_t{0}) +
                                          counts.value("duplicates", int64_t{0}) +
                                          counts.value("quarantine", int64_t{0});
  o["conservation"] = counts;
  return o;
}

json ReadModels::live_sessions(size_t limit) {
  return query_json(
      *db_,
      "SELECT session_id, charge_point_id, connector_id, transaction_id, start_ts, last_event_ts, "
      "meter_start_wh, last_meter_wh, energy_kwh, energy_is_final, session_status, quality_flags "
      "FROM charging_sessions WHERE is_open = 1 ORDER BY last_event_ts DESC LIMIT ?1",
      {static_cast<int64_t>(limit)});
}

json ReadModels::session_detail(const std::string& session_id) {
  json rows =
      query_json(*db_, "SELECT * FROM charging_sessions WHERE session_id = ?1", {session_id});
  if (rows.empty()) return nullptr;
  json s = rows[0];
  s.erase("row_hash");
  const std::string cp = s["charge_point_id"], tx = s["transaction_id"];
  // The session's start, stop and readings, through their business keys (silver_business_key).
  const SessionBusinessKeys keys = session_business_keys(cp, tx);
  s["events"] = query_json(
      *db_,
      std::string("SELECT event_id, event_type, event_ts, ingest_ts, seq_no, meter_wh, power_w, "
                  "soc_pct, connector_id, stop_reason, trigger_reason, flags, source "
                  "FROM silver_events ") +
          kSessionRowsWhere + " ORDER BY event_ts, seq_no, event_id",
      {keys.start, keys.stop, keys.meter_from, keys.meter_to});
  s["conflicts"] =
      query_json(*db_,
                 "SELECT quarantine_id, event_id, meter_wh, status, detail FROM quarantine_events "
                 "WHERE reason = 'CONFLICT' AND charge_point_id = ?1 AND transaction_id = ?2 "
                 "ORDER BY quarantine_id",
                 {cp, tx});
  return s;
}

json ReadModels::daily_stats(const std::optional<std::string>& cp, const std::string& from_day,
                             const std::string& to_day, size_t limit) {
  if (cp)
    return query_json(
        *db_,
        "SELECT * FROM charging_stats_daily WHERE charge_point_id = ?1 AND day BETWEEN ?2 AND ?3 "
        "ORDER BY day LIMIT ?4",
        {*cp, from_day, to_day, static_cast<int64_t>(limit)});
  return query_json(
      *db_,
      "SELECT day, COUNT(*) AS charge_points, SUM(sessions_total) AS sessions_total, "
      "SUM(sessions_started) AS sessions_started, SUM(sessions_completed) AS sessions_completed, "
      "SUM(sessions_timed_out) AS sessions_timed_out, "
      "SUM(sessions_in_progress) AS sessions_in_progress, "
      "SUM(sessions_start_missing) AS sessions_start_missing, "
      "ROUND(SUM(energy_kwh_final), 6) AS energy_kwh_final, "
      "ROUND(SUM(energy_kwh_provisional), 6) AS energy_kwh_provisional "
      "FROM charging_stats_daily WHERE day BETWEEN ?1 AND ?2 GROUP BY day ORDER BY day LIMIT ?3",
      {from_day, to_day, static_cast<int64_t>(limit)});
}

json ReadModels::quarantine_list(const std::optional<std::string>& status,
                                 const std::optional<std::string>& reason, int64_t before_id,
                                 size_t limit) {
  std::string sql =
      "SELECT quarantine_id, event_id, charge_point_id, transaction_id, reason, violations, "
      "detail, "
      "raw_payload, kafka_key, source, status, repaired_payload, reviewed_by, replay_outcome, "
      "quarantined_at "
      "FROM quarantine_events WHERE quarantine_id < ?1";
  std::vector<storage::Value> params = {before_id > 0 ? before_id : INT64_MAX};
  if (status) {
    params.emplace_back(*status);
    sql += " AND status = ?" + std::to_string(params.size());
  }
  if (reason) {
    params.emplace_back(*reason);
    sql += " AND reason = ?" + std::to_string(params.size());
  }
  params.emplace_back(static_cast<int64_t>(limit));
  sql += " ORDER BY quarantine_id DESC LIMIT ?" + std::to_string(params.size());
  return query_json(*db_, sql, params);
}

json ReadModels::dq_metrics(size_t recent_batches) {
  json m = json::object();
  json totals = json::object();
  for (const auto& row : query_json(*db_, "SELECT metric, value FROM dq_totals"))
    totals[row["metric"].get<std::string>()] = row["value"];
  m["totals"] = totals;
  auto count = [&](const std::string& key) {
    return static_cast<double>(totals.value(key, int64_t{0}));
  };
  const double raw = count("raw");
  auto rate = [&](const char* key) { return raw > 0 ? count(key) / raw : 0.0; };
  json rates = {{"technical_duplicates", rate("technical_duplicates")},
                {"business_duplicates", rate("business_duplicates")},
                {"quarantined", rate("quarantined")},
                {"conflicts", rate("conflicts")}};
  const double validated = count("validated_events");
  rates["unknown_fields"] = validated > 0 ? count("unknown_field_events") / validated : 0.0;
  json by_reason = json::object();
  for (auto it = totals.begin(); it != totals.end(); ++it)
    if (it.key().rfind("quarantine:", 0) == 0)
      by_reason[it.key().substr(11)] = raw > 0 ? count(it.key()) / raw : 0.0;
  rates["quarantine_by_reason"] = by_reason;
  m["rates"] = rates;
  // Rolling lag percentiles from the histogram: the upper bound of the bucket holding the rank.
  json hist = query_json(
      *db_, "SELECT bucket_upper_ms, events FROM dq_lag_histogram ORDER BY bucket_upper_ms");
  int64_t n = 0;
  for (const auto& row : hist) n += row["events"].get<int64_t>();
  json lag = {{"events", n}, {"histogram", hist}};
  for (auto [name, p] :
       {std::pair{"p50_ms_at_most", 0.50}, {"p95_ms_at_most", 0.95}, {"p99_ms_at_most", 0.99}}) {
    int64_t seen = 0;
    lag[name] = nullptr;
    for (const auto& row : hist) {
      seen += row["events"].get<int64_t>();
      if (n > 0 && static_cast<double>(seen) >= p * static_cast<double>(n)) {
        lag[name] = row["bucket_upper_ms"];
        break;
      }
    }
  }
  m["late_arrival_lag"] = lag;
  m["clock_skew_top"] =
      query_json(*db_,
                 "SELECT charge_point_id, events, skewed_events, max_ahead_ms, last_offset_ms "
                 "FROM dq_clock_skew WHERE skewed_events > 0 ORDER BY max_ahead_ms DESC LIMIT 20");
  const int64_t clock =
      scalar(*db_, "SELECT COALESCE(MAX(value), 0) FROM pipeline_state WHERE key = 'data_clock_ms'")
          .get<int64_t>();
  m["open_sessions_by_age"] =
      query_json(*db_,
                 "SELECT SUM(age < 3600000) AS under_1h, "
                 "SUM(age >= 3600000 AND age < 21600000) AS h1_to_6h, "
                 "SUM(age >= 21600000 AND age < 86400000) AS h6_to_24h, "
                 "SUM(age >= 86400000) AS over_24h FROM (SELECT ?1 - COALESCE(start_ts, "
                 "first_event_ts) AS age FROM charging_sessions WHERE is_open = 1)",
                 {clock})[0];
  m["recent_batches"] = query_json(*db_, "SELECT * FROM dq_batches ORDER BY batch_id DESC LIMIT ?1",
                                   {static_cast<int64_t>(recent_batches)});
  m["alerts"] = query_json(*db_, "SELECT * FROM dq_alerts ORDER BY alert_id DESC LIMIT 20");
  m["conservation"] = fleet_overview()["conservation"];
  m["data_clock"] = clock ? json(util::format_rfc3339_ms(clock)) : json(nullptr);
  return m;
}

PageResult ReadModels::sessions(const SessionFilter& f, const PageRequest& page) {
  static constexpr std::array<std::string_view, 4> kStatuses = {"IN_PROGRESS", "COMPLETED",
                                                                "TIMED_OUT", "START_MISSING"};
  Keyset q{"sessions",
           "session_id, charge_point_id, connector_id, transaction_id, start_ts, stop_ts, "
           "first_event_ts, last_event_ts, duration_seconds, meter_start_wh, meter_stop_wh, "
           "last_meter_wh, energy_kwh, energy_is_final, session_status, stop_reason, event_count, "
           "quality_flags, stats_day, is_open",
           "charging_sessions",
           {},
           {},
           {},
           {"first_event_ts", "session_id"}};
  auto where = [&](const std::string& condition, storage::Value v) {
    q.params.push_back(std::move(v));
    q.where.push_back(condition + " = ?" + std::to_string(q.params.size()));
  };
  if (f.charge_point_id) where("charge_point_id", *f.charge_point_id);
  if (f.status) {
    if (std::find(kStatuses.begin(), kStatuses.end(), *f.status) == kStatuses.end())
      return {{}, "status must be IN_PROGRESS, COMPLETED, TIMED_OUT or START_MISSING", {}};
    where("session_status", *f.status);
  }
  if (f.day) {
    if (!is_day(*f.day)) return {{}, "day must be a date YYYY-MM-DD", {}};
    where("stats_day", *f.day);
  }
  if (f.open_only) q.where.push_back("is_open = 1");
  return keyset_page(*db_, std::move(q), page);
}

PageResult ReadModels::status_history(const std::string& charge_point_id,
                                      std::optional<int64_t> connector_id,
                                      const PageRequest& page) {
  Keyset q{"status_history",
           "charge_point_id, evse_id, connector_id, status, error_code, valid_from, valid_to, "
           "seq_no, event_id",
           "connector_status_history",
           {"charge_point_id = ?1"},
           {charge_point_id},
           {},
           {"valid_from", "evse_id", "connector_id", "event_id"}};
  if (connector_id) {
    q.params.emplace_back(*connector_id);
    q.where.push_back("connector_id = ?2");
  }
  return keyset_page(*db_, std::move(q), page);
}

PageResult ReadModels::connection_history(const std::string& charge_point_id,
                                          const PageRequest& page) {
  // The gateway's Connection events (docs/event_contract.md), through the index on
  // (charge_point_id, event_type, event_ts), whose condition the query repeats.
  Keyset q{"connections",
           "event_ts, json_extract(extra, '$.state') AS state, "
           "json_extract(extra, '$.remote_address') AS remote_address, "
           "json_extract(extra, '$.subprotocol') AS subprotocol, "
           "json_extract(extra, '$.close_code') AS close_code, "
           "json_extract(extra, '$.reason') AS reason, silver_id",
           "silver_events",
           {"charge_point_id = ?1", "event_type = 'Connection'", kOutsideSessions},
           {charge_point_id},
           {},
           {"event_ts", "silver_id"}};
  return keyset_page(*db_, std::move(q), page);
}

PageResult ReadModels::duplicates(const std::optional<std::string>& charge_point_id,
                                  const std::optional<std::string>& duplicate_type,
                                  const PageRequest& page) {
  Keyset q{"duplicates",
           "audit_id, event_id, duplicate_type, winner_event_id, business_key, charge_point_id, "
           "event_type, event_ts, ingest_ts, source, batch_id, payload",
           "duplicate_events_audit",
           {},
           {},
           {},
           {"audit_id"}};
  if (charge_point_id) {
    q.params.emplace_back(*charge_point_id);
    q.where.push_back("charge_point_id = ?" + std::to_string(q.params.size()));
  }
  if (duplicate_type) {
    if (*duplicate_type != "TECHNICAL" && *duplicate_type != "BUSINESS")
      return {{}, "type must be TECHNICAL or BUSINESS", {}};
    q.params.emplace_back(*duplicate_type);
    q.where.push_back("duplicate_type = ?" + std::to_string(q.params.size()));
  }
  PageResult r = keyset_page(*db_, std::move(q), page);
  // The removed copy as the object it was, not as text.
  if (r.body.contains("items"))
    for (auto& row : r.body["items"]) {
      json parsed = json::parse(row["payload"].get<std::string>(), nullptr, false);
      if (!parsed.is_discarded()) row["payload"] = std::move(parsed);
    }
  return r;
}

PageResult ReadModels::quarantine_page(const std::optional<std::string>& status,
                                       const std::optional<std::string>& reason,
                                       const PageRequest& page) {
  Keyset q{"quarantine",
           "quarantine_id, event_id, charge_point_id, transaction_id, reason, violations, detail, "
           "raw_payload, kafka_key, source, status, repaired_payload, reviewed_by, "
           "replay_outcome, quarantined_at",
           "quarantine_events",
           {},
           {},
           {},
           {"quarantine_id"}};
  if (status) {
    if (*status != "NEW" && *status != "REPAIRED" && *status != "DISCARDED" &&
        *status != "REPLAYED")
      return {{}, "status must be NEW, REPAIRED, DISCARDED or REPLAYED", {}};
    q.params.emplace_back(*status);
    q.where.push_back("status = ?" + std::to_string(q.params.size()));
  }
  if (reason) {
    q.params.emplace_back(*reason);
    q.where.push_back("reason = ?" + std::to_string(q.params.size()));
  }
  return keyset_page(*db_, std::move(q), page);
}

PageResult ReadModels::daily_stats_page(const std::optional<std::string>& cp,
                                        const std::string& from_day, const std::string& to_day,
                                        const PageRequest& page) {
  if (!is_day(from_day) || !is_day(to_day)) return {{}, "from and to must be dates YYYY-MM-DD", {}};
  if (cp)
    return keyset_page(*db_,
                       {"daily_cp",
                        "*",
                        "charging_stats_daily",
                        {"charge_point_id = ?1", "day BETWEEN ?2 AND ?3"},
                        {*cp, from_day, to_day},
                        {},
                        {"day"},
                        false},
                       page);
  return keyset_page(
      *db_,
      {"daily_fleet",
       "day, COUNT(*) AS charge_points, SUM(sessions_total) AS sessions_total, "
       "SUM(sessions_started) AS sessions_started, SUM(sessions_completed) AS sessions_completed, "
       "SUM(sessions_timed_out) AS sessions_timed_out, "
       "SUM(sessions_in_progress) AS sessions_in_progress, "
       "SUM(sessions_start_missing) AS sessions_start_missing, "
       "ROUND(SUM(energy_kwh_final), 6) AS energy_kwh_final, "
       "ROUND(SUM(energy_kwh_provisional), 6) AS energy_kwh_provisional",
       "charging_stats_daily",
       {"day BETWEEN ?1 AND ?2"},
       {from_day, to_day},
       "day",
       {"day"},
       false},
      page);
}

json ReadModels::charge_point(const std::string& charge_point_id) {
  json health = query_json(*db_,
                           "SELECT last_heartbeat_ts, last_seen_ts, connection_state, "
                           "connection_changed_ts, last_boot_ts, vendor, model, firmware_version, "
                           "heartbeat_interval_s, liveness FROM charge_point_health "
                           "WHERE charge_point_id = ?1",
                           {charge_point_id});
  return {{"health", health.empty() ? json(nullptr) : health[0]},
          {"connectors", query_json(*db_,
                                    "SELECT evse_id, connector_id, status, error_code, "
                                    "status_since FROM connector_current_status "
                                    "WHERE charge_point_id = ?1 ORDER BY evse_id, connector_id",
                                    {charge_point_id})}};
}

}  // namespace ocppgw::analytics
