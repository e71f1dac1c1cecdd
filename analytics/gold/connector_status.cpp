// analytics/gold/connector_status.cpp: connector_status_history (one interval per status event)
// and connector_current_status (its last interval).
// Rules: docs/analytics_rules.md (analytics/spark/ implements the same specification).
#include <climits>
#include <vector>

#include "analytics/gold/gold.hpp"
#include "analytics/gold/upsert.hpp"

namespace ocppgw::analytics::gold {

using storage::Statement;
using storage::Status;

namespace {

// Through silver_cp_type_ts (kOutsideSessions: the condition of that partial index).
const std::string kSelectStatus =
    std::string(
        "SELECT event_id, event_ts, seq_no, connector_status, error_code FROM main.silver_events "
        "WHERE charge_point_id = ?1 AND event_type = 'StatusNotification' AND event_ts >= ?2 "
        "AND COALESCE(evse_id, 0) = ?3 AND COALESCE(connector_id, 0) = ?4 AND ") +
    kOutsideSessions;

struct ConnectorSql {
  explicit ConnectorSql(const std::string& schema)
      : select_prev("SELECT MAX(valid_from) FROM " + q(schema, "connector_status_history") +
                    " WHERE charge_point_id = ?1 AND evse_id = ?2 AND connector_id = ?3 "
                    "AND valid_from < ?4"),
        delete_history("DELETE FROM " + q(schema, "connector_status_history") +
                       " WHERE charge_point_id = ?1 AND evse_id = ?2 AND connector_id = ?3 "
                       "AND valid_from >= ?4"),
        insert_history("INSERT INTO " + q(schema, "connector_status_history") +
                       "(charge_point_id, evse_id, connector_id, valid_from, event_id, "
                       "valid_to, status, error_code, seq_no) VALUES(?1, ?2, ?3, ?4, ?5, "
                       "?6, ?7, ?8, ?9)"),
        upsert_current(upsert_sql(q(schema, "connector_current_status"),
                                  {"charge_point_id", "evse_id", "connector_id", "status",
                                   "error_code", "status_since", "event_id", "seq_no"},
                                  {"charge_point_id", "evse_id", "connector_id"})),
        delete_current("DELETE FROM " + q(schema, "connector_current_status") +
                       " WHERE charge_point_id = ?1 AND evse_id = ?2 AND connector_id = ?3") {}
  std::string select_prev, delete_history, insert_history, upsert_current, delete_current;
};

// Intervals that start before the one holding the earliest affected event cannot change, so
// the history is rewritten from that interval on (INT64_MIN: from the beginning). A live batch
// then costs O(its new events), not O(the connector's history).
int64_t rewrite_from(storage::Db& db, const ConnectorSql& sql, const ConnectorKey& key,
                     const std::optional<int64_t>& min_ts) {
  int64_t lower = INT64_MIN;
  if (!min_ts) return lower;
  const auto& [cp, evse, conn] = key;
  Statement& st = db.cached(sql.select_prev);
  st.bind(1, cp).bind(2, evse).bind(3, conn).bind(4, *min_ts);
  if (st.step() && !st.is_null(0)) lower = st.int64(0);
  st.reset();
  return lower;
}

std::vector<StatusEvent> read_status_events(storage::Db& db, const ConnectorKey& key,
                                            int64_t lower) {
  const auto& [cp, evse, conn] = key;
  std::vector<StatusEvent> events;
  Statement& st = db.cached(kSelectStatus);
  st.bind(1, cp).bind(2, lower).bind(3, evse).bind(4, conn);
  while (st.step())
    events.push_back({st.text(0), st.int64(1), st.opt_int64(2), st.text(3), st.opt_text(4)});
  st.reset();
  return events;
}

Status insert_intervals(storage::Db& db, const ConnectorSql& sql, const ConnectorKey& key,
                        const std::vector<StatusInterval>& intervals) {
  const auto& [cp, evse, conn] = key;
  Status s;
  for (const auto& iv : intervals) {
    if (!s.ok()) break;
    s = db.cached(sql.insert_history)
            .bind(1, cp)
            .bind(2, evse)
            .bind(3, conn)
            .bind(4, iv.valid_from)
            .bind(5, iv.event_id)
            .bind(6, iv.valid_to)
            .bind(7, iv.status)
            .bind(8, iv.error_code)
            .bind(9, iv.seq_no)
            .run();
  }
  return s;
}

// With no new interval the current status stands, unless the whole history was rewritten and
// came out empty: then the connector has no status left.
Status write_current(storage::Db& db, const ConnectorSql& sql, const ConnectorKey& key,
                     const std::vector<StatusInterval>& intervals, int64_t lower) {
  const auto& [cp, evse, conn] = key;
  if (!intervals.empty()) {
    const auto& last = intervals.back();
    return db.cached(sql.upsert_current)
        .bind(1, cp)
        .bind(2, evse)
        .bind(3, conn)
        .bind(4, last.status)
        .bind(5, last.error_code)
        .bind(6, last.valid_from)
        .bind(7, last.event_id)
        .bind(8, last.seq_no)
        .run();
  }
  if (lower == INT64_MIN)
    return db.cached(sql.delete_current).bind(1, cp).bind(2, evse).bind(3, conn).run();
  return Status();
}

}  // namespace

Status recompute_connector_status(const Target& t, Batch& b) {
  const ConnectorSql sql(t.schema);
  Status s;
  for (const auto& [key, min_ts] : b.connectors) {
    if (!s.ok()) break;
    const auto& [cp, evse, conn] = key;
    const int64_t lower = rewrite_from(t.db, sql, key, min_ts);
    s = t.db.cached(sql.delete_history)
            .bind(1, cp)
            .bind(2, evse)
            .bind(3, conn)
            .bind(4, lower)
            .run();
    if (!s.ok()) break;
    auto intervals = compute_status_intervals(read_status_events(t.db, key, lower));
    s = insert_intervals(t.db, sql, key, intervals);
    if (!s.ok()) break;
    ++b.report->connectors_recomputed;
    s = write_current(t.db, sql, key, intervals, lower);
  }
  return s;
}

}  // namespace ocppgw::analytics::gold
