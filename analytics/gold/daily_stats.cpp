// analytics/gold/daily_stats.cpp: charging_stats_daily, one row per (charge point, day).
// Rules: docs/analytics_rules.md (analytics/spark/ implements the same specification).
#include <string>
#include <vector>

#include "analytics/gold/gold.hpp"
#include "analytics/gold/upsert.hpp"

namespace ocppgw::analytics::gold {

using storage::Statement;
using storage::Status;

namespace {

// Only the columns compute_daily reads; the sessions come from the same schema, as they were
// just written by recompute_sessions.
std::vector<SessionRow> read_day_sessions(storage::Db& db, const std::string& sql,
                                          const std::string& cp, const std::string& day) {
  std::vector<SessionRow> sessions;
  Statement& st = db.cached(sql);
  st.bind(1, cp).bind(2, day);
  while (st.step()) {
    SessionRow row;
    row.transaction_id = st.text(0);
    row.start_ts = st.opt_int64(1);
    row.session_status = st.text(2);
    row.duration_seconds = st.opt_int64(3);
    row.energy_kwh = st.opt_real(4);
    row.energy_is_final = st.int64(5) != 0;
    sessions.push_back(std::move(row));
  }
  st.reset();
  return sessions;
}

Status upsert_daily(storage::Db& db, const std::string& sql, const std::string& cp,
                    const std::string& day, const DailyRow& d) {
  return db.cached(sql)
      .bind(1, cp)
      .bind(2, day)
      .bind(3, d.sessions_total)
      .bind(4, d.sessions_started)
      .bind(5, d.sessions_completed)
      .bind(6, d.sessions_timed_out)
      .bind(7, d.sessions_in_progress)
      .bind(8, d.sessions_start_missing)
      .bind(9, d.energy_kwh_final)
      .bind(10, d.energy_kwh_provisional)
      .bind(11, d.avg_duration_seconds)
      .run();
}

}  // namespace

Status recompute_daily_stats(const Target& t, Batch& b) {
  const std::string sel_sessions =
      "SELECT transaction_id, start_ts, session_status, duration_seconds, energy_kwh, "
      "energy_is_final FROM " +
      q(t.schema, "charging_sessions") + " WHERE charge_point_id = ?1 AND stats_day = ?2";
  const std::string upsert = upsert_sql(
      q(t.schema, "charging_stats_daily"),
      {"charge_point_id", "day", "sessions_total", "sessions_started", "sessions_completed",
       "sessions_timed_out", "sessions_in_progress", "sessions_start_missing", "energy_kwh_final",
       "energy_kwh_provisional", "avg_duration_seconds"},
      {"charge_point_id", "day"});
  const std::string remove = "DELETE FROM " + q(t.schema, "charging_stats_daily") +
                             " WHERE charge_point_id = ?1 AND day = ?2";
  Status s;
  for (const auto& [cp, day] : b.days) {
    if (!s.ok()) break;
    std::vector<SessionRow> sessions = read_day_sessions(t.db, sel_sessions, cp, day);
    ++b.report->days_recomputed;
    if (sessions.empty()) {
      s = t.db.cached(remove).bind(1, cp).bind(2, day).run();
      continue;
    }
    s = upsert_daily(t.db, upsert, cp, day, compute_daily(std::move(sessions)));
  }
  return s;
}

}  // namespace ocppgw::analytics::gold
