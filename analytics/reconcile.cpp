// analytics/reconcile.cpp: Gold recomputed into temp tables and compared with the live ones.
#include "analytics/reconcile.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "analytics/batch.hpp"
#include "analytics/gold/gold.hpp"
#include "analytics/pipeline_state.hpp"
#include "util/time.hpp"

namespace ocppgw::analytics {

using nlohmann::json;
using storage::Statement;
using storage::Status;

namespace {

// Gold tables with their key columns (for reconcile samples) and the columns compared.
struct GoldTable {
  const char* name;
  const char* key;
  const char* columns;
};
// updated_at is left out of the comparison: it is wall time, not a function of Silver.
constexpr std::array<GoldTable, 5> kGoldTables = {{
    {"charging_sessions", "charge_point_id, transaction_id",
     "session_id, charge_point_id, connector_id, transaction_id, start_ts, stop_ts, "
     "first_event_ts, last_event_ts, duration_seconds, meter_start_wh, meter_stop_wh, "
     "last_meter_wh, energy_kwh, energy_is_final, session_status, stop_reason, event_count, "
     "quality_flags, stats_day, is_open, row_hash"},
    {"connector_status_history", "charge_point_id, evse_id, connector_id, valid_from",
     "charge_point_id, evse_id, connector_id, valid_from, event_id, valid_to, status, error_code, "
     "seq_no"},
    {"connector_current_status", "charge_point_id, evse_id, connector_id",
     "charge_point_id, evse_id, connector_id, status, error_code, status_since, event_id, seq_no"},
    {"charge_point_health", "charge_point_id",
     "charge_point_id, last_heartbeat_ts, last_seen_ts, connection_state, connection_changed_ts, "
     "last_boot_ts, vendor, model, firmware_version, heartbeat_interval_s, offline_deadline_ts, "
     "liveness"},
    {"charging_stats_daily", "charge_point_id, day",
     "charge_point_id, day, sessions_total, sessions_started, sessions_completed, "
     "sessions_timed_out, sessions_in_progress, sessions_start_missing, energy_kwh_final, "
     "energy_kwh_provisional, avg_duration_seconds"},
}};

// Temp copies of the Gold tables, with the same keys and indexes (the upserts need the keys).
Status create_temp_tables(storage::Db& db) {
  Status s;
  for (const auto& t : kGoldTables) {
    if (!s.ok()) break;
    s = db.exec(std::string("DROP TABLE IF EXISTS temp.") + t.name);
    std::vector<std::string> ddl;
    Statement& st = db.cached(
        "SELECT type, sql FROM main.sqlite_master WHERE tbl_name = ?1 AND sql IS NOT NULL "
        "ORDER BY type DESC");
    st.bind(1, t.name);
    while (st.step()) {
      std::string sql = st.text(1);
      if (st.text_view(0) == "table")
        sql.replace(0, std::string("CREATE TABLE ").size(), "CREATE TEMP TABLE ");
      else
        sql.insert(sql.find(" INDEX ") + 7, "temp.");
      ddl.push_back(std::move(sql));
    }
    st.reset();
    for (const auto& sql : ddl)
      if (s.ok()) s = db.exec(sql);
  }
  return s;
}

// Every Gold key that Silver has, each with its whole history (no lower bound).
void touch_all_keys(storage::Db& db, Batch& b) {
  Statement& st = db.cached(
      "SELECT DISTINCT charge_point_id, transaction_id FROM main.silver_events "
      "WHERE transaction_id IS NOT NULL AND event_type IN ('StartTransaction', 'MeterValues', "
      "'StopTransaction')");
  while (st.step()) b.sessions.emplace(st.text(0), st.text(1));
  st.reset();
  Statement& cs = db.cached(
      "SELECT DISTINCT charge_point_id, COALESCE(evse_id, 0), COALESCE(connector_id, 0) "
      "FROM main.silver_events WHERE event_type = 'StatusNotification'");
  while (cs.step()) b.connectors[{cs.text(0), cs.int64(1), cs.int64(2)}] = std::nullopt;
  cs.reset();
  Statement& ps = db.cached("SELECT DISTINCT charge_point_id FROM main.silver_events");
  while (ps.step()) b.charge_points.insert(ps.text(0));
  ps.reset();
}

// Rows of `t` in one schema and not the other, both ways, with up to 10 sample keys each.
Status compare_table(storage::Db& db, const GoldTable& t, ReconcileReport& rep) {
  Status s;
  json entry = json::object();
  for (int dir = 0; dir < 2; ++dir) {
    const char* a = dir == 0 ? "main" : "temp";
    const char* c = dir == 0 ? "temp" : "main";
    std::string sql = std::string("SELECT ") + t.key + " FROM (SELECT " + t.columns + " FROM " + a +
                      "." + t.name + " EXCEPT SELECT " + t.columns + " FROM " + c + "." + t.name +
                      ")";
    Statement st = db.prepare(sql, &s);
    if (!s.ok()) break;
    int64_t n = 0;
    json samples = json::array();
    while (st.step()) {
      ++n;
      if (samples.size() < 10) {
        std::string key;
        const int key_columns =
            1 + static_cast<int>(std::count(t.key, t.key + std::strlen(t.key), ','));
        for (int col = 0; col < key_columns; ++col) key += (col ? "|" : "") + st.text(col);
        samples.push_back(key);
      }
    }
    entry[dir == 0 ? "only_in_gold" : "only_in_recomputed"] = n;
    entry[dir == 0 ? "gold_samples" : "recomputed_samples"] = samples;
    if (n > 0) rep.gold_matches = false;
  }
  rep.tables[t.name] = entry;
  return s;
}

// Full counts, and whether the trigger counters agree with them.
Status count_conservation(storage::Db& db, ReconcileReport& rep) {
  Status s;
  Statement st = db.prepare(
      "SELECT (SELECT COUNT(*) FROM main.silver_events), (SELECT COUNT(*) FROM "
      "main.duplicate_events_audit), "
      "(SELECT COUNT(*) FROM main.quarantine_events WHERE status <> 'REPLAYED')",
      &s);
  if (s.ok() && st.step()) {
    rep.counted.raw = read_state(db, "raw_total");
    rep.counted.silver = st.int64(0);
    rep.counted.duplicates = st.int64(1);
    rep.counted.quarantine = st.int64(2);
    ConservationCounts triggers = read_counts(db);
    rep.conservation_ok = rep.counted.ok() && triggers.silver == rep.counted.silver &&
                          triggers.duplicates == rep.counted.duplicates &&
                          triggers.quarantine == rep.counted.quarantine;
  }
  return s;
}

Status replace_gold(storage::Db& db) {
  Status s;
  for (const auto& t : kGoldTables) {
    if (!s.ok()) break;
    s = db.exec(std::string("DELETE FROM main.") + t.name + "; INSERT INTO main." + t.name +
                " SELECT * FROM temp." + t.name);
  }
  return s;
}

Status raise_mismatch(storage::Db& db, const ReconcileReport& rep) {
  Status s = db.cached(
                   "INSERT INTO dq_alerts(raised_at, kind, batch_id, detail) VALUES(?1, "
                   "'RECONCILE_MISMATCH', NULL, ?2)")
                 .bind(1, util::now_ms())
                 .bind(2, rep.tables.dump())
                 .run();
  spdlog::error("analytics reconcile: Gold differs from its recompute: {}", rep.tables.dump());
  return s;
}

}  // namespace

ReconcileReport reconcile_gold(storage::Db& db, const GoldRules& rules, int64_t data_clock_ms,
                               bool repair) {
  ReconcileReport rep;
  Status s = db.begin_immediate();
  if (!s.ok()) {
    rep.status = s;
    return rep;
  }
  s = create_temp_tables(db);
  if (s.ok()) {
    // A scratch batch: the recompute counts into a report nobody reads.
    BatchReport scratch;
    Batch b;
    b.report = &scratch;
    touch_all_keys(db, b);
    s = gold::recompute_gold(gold::Target{db, rules, data_clock_ms, "temp"}, b, nullptr);
  }
  for (const auto& t : kGoldTables) {
    if (!s.ok()) break;
    s = compare_table(db, t, rep);
  }
  if (s.ok()) s = count_conservation(db, rep);
  if (s.ok() && repair && !rep.gold_matches) {
    s = replace_gold(db);
    rep.repaired = s.ok();
  }
  if (s.ok() && !rep.gold_matches) s = raise_mismatch(db, rep);
  for (const auto& t : kGoldTables) db.exec(std::string("DROP TABLE IF EXISTS temp.") + t.name);
  if (s.ok()) s = db.commit();
  if (!s.ok()) db.rollback();
  rep.status = s;
  return rep;
}

nlohmann::json ReconcileReport::to_json() const {
  json j = {{"ok", status.ok() && gold_matches && conservation_ok},
            {"gold_matches", gold_matches},
            {"conservation_ok", conservation_ok},
            {"counted",
             {{"raw", counted.raw},
              {"silver", counted.silver},
              {"duplicates", counted.duplicates},
              {"quarantine", counted.quarantine}}},
            {"tables", tables},
            {"repaired", repaired}};
  if (!status.ok()) j["error"] = status.message();
  return j;
}

}  // namespace ocppgw::analytics
