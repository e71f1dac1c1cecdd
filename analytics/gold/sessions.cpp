// analytics/gold/sessions.cpp: charging_sessions, one row per (charge point, transaction).
// Rules: docs/analytics_rules.md (analytics/spark/ implements the same specification).
#include <algorithm>
#include <optional>
#include <vector>

#include "analytics/gold/gold.hpp"
#include "analytics/gold/upsert.hpp"
#include "util/time.hpp"

namespace ocppgw::analytics::gold {

using nlohmann::json;
using storage::Statement;
using storage::Status;

namespace {

// Silver is always read from "main": reconcile recomputes into temp from the live Silver.
// A session's rows, found by their business keys (session_business_keys): the start, the stop
// and the range of its readings, three seeks of silver_business_key.
const std::string kSelectEvents =
    std::string(
        "SELECT event_id, event_type, event_ts, ingest_ts, seq_no, meter_wh, connector_id, "
        "stop_reason, instr(flags, '\"CLOCK_SKEW\"') FROM main.silver_events ") +
    kSessionRowsWhere;
constexpr const char* kSelectConflict =
    "SELECT 1 FROM main.quarantine_events WHERE reason = 'CONFLICT' AND charge_point_id = ?1 "
    "AND transaction_id = ?2 AND status IN ('NEW', 'REPAIRED') LIMIT 1";

struct SessionSql {
  explicit SessionSql(const std::string& schema)
      : select_day("SELECT stats_day FROM " + q(schema, "charging_sessions") +
                   " WHERE charge_point_id = ?1 AND transaction_id = ?2"),
        remove("DELETE FROM " + q(schema, "charging_sessions") +
               " WHERE charge_point_id = ?1 AND transaction_id = ?2"),
        upsert(
            upsert_sql(q(schema, "charging_sessions"),
                       {"session_id",       "charge_point_id", "connector_id",   "transaction_id",
                        "start_ts",         "stop_ts",         "first_event_ts", "last_event_ts",
                        "duration_seconds", "meter_start_wh",  "meter_stop_wh",  "last_meter_wh",
                        "energy_kwh",       "energy_is_final", "session_status", "stop_reason",
                        "event_count",      "quality_flags",   "stats_day",      "is_open",
                        "row_hash",         "updated_at"},
                       {"session_id"}, "row_hash <> excluded.row_hash")) {}
  std::string select_day, remove, upsert;
};

// A cached fold is extended by this batch's additions when they all sort after what it has
// seen and no Silver row of the session went away; nullptr: read the session from Silver.
SessionFold* extend_cached_fold(SessionFolds* folds, Batch& b, const SessionKey& key) {
  if (!folds || b.sessions_rewritten.contains(key)) return nullptr;
  auto it = folds->find(key);
  if (it == folds->end()) return nullptr;
  auto added = b.session_additions.find(key);
  if (added == b.session_additions.end()) return &it->second;
  std::vector<SessionEvent>& events = added->second;
  std::sort(events.begin(), events.end(), SessionFold::before);
  if (!it->second.extends(events.front())) return nullptr;
  for (const auto& e : events) it->second.add(e);
  return &it->second;
}

Status fold_from_silver(storage::Db& db, const SessionKey& key, SessionFold* fold) {
  std::vector<SessionEvent> events;
  const SessionBusinessKeys keys = session_business_keys(key.first, key.second);
  Statement& st = db.cached(kSelectEvents);
  st.bind(1, keys.start).bind(2, keys.stop).bind(3, keys.meter_from).bind(4, keys.meter_to);
  while (st.step()) {
    SessionEvent e;
    e.event_id = st.text(0);
    e.type = parse_event_type(st.text_view(1)).value_or(EventType::MeterValues);
    e.event_ts = st.int64(2);
    e.ingest_ts = st.int64(3);
    e.seq_no = st.opt_int64(4);
    e.meter_wh = st.opt_real(5);
    e.connector_id = st.opt_int64(6);
    e.stop_reason = st.opt_text(7);
    e.clock_skew = st.int64(8) > 0;
    events.push_back(std::move(e));
  }
  Status s = st.status();
  st.reset();
  if (!s.ok()) return s;
  std::sort(events.begin(), events.end(), SessionFold::before);
  for (const auto& e : events) fold->add(e);
  return s;
}

Status upsert_session(storage::Db& db, const std::string& sql, const SessionRow& row) {
  return db.cached(sql)
      .bind(1, row.session_id)
      .bind(2, row.charge_point_id)
      .bind(3, row.connector_id)
      .bind(4, row.transaction_id)
      .bind(5, row.start_ts)
      .bind(6, row.stop_ts)
      .bind(7, row.first_event_ts)
      .bind(8, row.last_event_ts)
      .bind(9, row.duration_seconds)
      .bind(10, row.meter_start_wh)
      .bind(11, row.meter_stop_wh)
      .bind(12, row.last_meter_wh)
      .bind(13, row.energy_kwh)
      .bind(14, static_cast<int64_t>(row.energy_is_final))
      .bind(15, row.session_status)
      .bind(16, row.stop_reason)
      .bind(17, row.event_count)
      .bind(18, json(row.quality_flags).dump())
      .bind(19, row.stats_day)
      .bind(20, static_cast<int64_t>(row.is_open))
      .bind(21, row.row_hash)
      .bind(22, util::now_ms())
      .run();
}

// Writes (or deletes) the session's row. Both the day it was counted in and the day it now
// belongs to go to b.days, since a late start can move a session to another day.
Status write_session(const Target& t, const SessionSql& sql, Batch& b, const SessionKey& key,
                     const SessionFold& fold) {
  const auto& [cp, tx] = key;
  Statement& cs = t.db.cached(kSelectConflict);
  cs.bind(1, cp).bind(2, tx);
  bool conflict = cs.step();
  cs.reset();
  Statement& ds = t.db.cached(sql.select_day);
  ds.bind(1, cp).bind(2, tx);
  std::optional<std::string> old_day;
  if (ds.step()) old_day = ds.text(0);
  ds.reset();
  if (old_day) b.days.emplace(cp, *old_day);
  ++b.report->sessions_recomputed;
  if (fold.empty()) return t.db.cached(sql.remove).bind(1, cp).bind(2, tx).run();
  SessionRow row = fold.finish(cp, tx, conflict, t.data_clock_ms, t.rules);
  b.days.emplace(cp, row.stats_day);
  return upsert_session(t.db, sql.upsert, row);
}

}  // namespace

Status recompute_sessions(const Target& t, Batch& b, SessionFolds* folds) {
  const SessionSql sql(t.schema);
  Status s;
  for (const auto& key : b.sessions) {
    if (!s.ok()) break;
    SessionFold* fold = extend_cached_fold(folds, b, key);
    SessionFold fresh;
    if (!fold) {
      s = fold_from_silver(t.db, key, &fresh);
      if (!s.ok()) break;
      if (folds) {
        if (fresh.empty())
          folds->erase(key);
        else
          fold = &((*folds)[key] = fresh);
      }
      if (!fold) fold = &fresh;
      ++b.report->sessions_read;
    }
    s = write_session(t, sql, b, key, *fold);
  }
  return s;
}

}  // namespace ocppgw::analytics::gold
