// analytics/gold/charge_point_health.cpp: charge_point_health, one row per charge point.
// Rules: docs/analytics_rules.md (analytics/spark/ implements the same specification).
#include <string>

#include "analytics/gold/gold.hpp"
#include "analytics/gold/upsert.hpp"

namespace ocppgw::analytics::gold {

using nlohmann::json;
using storage::Statement;
using storage::Status;

namespace {

// Each reads silver_cp_type_ts, which holds every Silver row but the meter readings of
// transactions (kOutsideSessions).
const std::string kSelectHeartbeat =
    std::string(
        "SELECT MAX(event_ts) FROM main.silver_events WHERE charge_point_id = ?1 AND "
        "event_type = 'Heartbeat' AND ") +
    kOutsideSessions;
const std::string kSelectLatest =
    std::string(
        "SELECT event_ts, extra FROM main.silver_events WHERE charge_point_id = ?1 AND "
        "event_type = ?2 AND ") +
    kOutsideSessions + " ORDER BY event_ts DESC, event_id DESC LIMIT 1";

// Last seen over every event type: one index seek per type on (charge point, type, event_ts),
// rather than one scan over all of the charge point's events. The meter readings of
// transactions are not in that index; the latest of them is the latest last_event_ts of the
// charge point's sessions, which recompute_gold has written before health.
std::string last_seen_sql(const std::string& schema) {
  std::string sql = "SELECT MAX(m) FROM (";
  for (int t = 0; t <= static_cast<int>(EventType::Invalid); ++t) {
    sql +=
        "SELECT MAX(event_ts) AS m FROM main.silver_events WHERE charge_point_id = ?1 AND "
        "event_type = '" +
        std::string(to_string(static_cast<EventType>(t))) + "' AND " + kOutsideSessions +
        " UNION ALL ";
  }
  sql += "SELECT MAX(last_event_ts) FROM " + q(schema, "charging_sessions") +
         " WHERE charge_point_id = ?1)";
  return sql;
}

// Everything but last_seen_ts, which the caller has already read.
void read_health_input(storage::Db& db, const std::string& cp, HealthInput* in) {
  Statement& hb = db.cached(kSelectHeartbeat);
  hb.bind(1, cp);
  if (hb.step()) in->last_heartbeat_ts = hb.opt_int64(0);
  hb.reset();
  Statement& conn = db.cached(kSelectLatest);
  conn.bind(1, cp).bind(2, "Connection");
  if (conn.step()) {
    in->connection_ts = conn.int64(0);
    json extra = json::parse(conn.text_view(1), nullptr, false);
    if (extra.is_object())
      if (auto it = extra.find("state"); it != extra.end() && it->is_string())
        in->connection_state = it->get<std::string>();
  }
  conn.reset();
  Statement& boot = db.cached(kSelectLatest);
  boot.bind(1, cp).bind(2, "BootNotification");
  if (boot.step()) {
    in->boot_ts = boot.int64(0);
    in->boot_extra = json::parse(boot.text_view(1), nullptr, false);
  }
  boot.reset();
}

Status upsert_health(storage::Db& db, const std::string& sql, const std::string& cp,
                     const HealthRow& h) {
  return db.cached(sql)
      .bind(1, cp)
      .bind(2, h.last_heartbeat_ts)
      .bind(3, h.last_seen_ts)
      .bind(4, h.connection_state)
      .bind(5, h.connection_ts)
      .bind(6, h.boot_ts)
      .bind(7, h.vendor)
      .bind(8, h.model)
      .bind(9, h.firmware_version)
      .bind(10, h.heartbeat_interval_s)
      .bind(11, h.offline_deadline_ts)
      .bind(12, h.liveness)
      .run();
}

}  // namespace

Status recompute_charge_point_health(const Target& t, Batch& b) {
  const std::string sel_seen = last_seen_sql(t.schema);
  const std::string upsert =
      upsert_sql(q(t.schema, "charge_point_health"),
                 {"charge_point_id", "last_heartbeat_ts", "last_seen_ts", "connection_state",
                  "connection_changed_ts", "last_boot_ts", "vendor", "model", "firmware_version",
                  "heartbeat_interval_s", "offline_deadline_ts", "liveness"},
                 {"charge_point_id"});
  const std::string remove =
      "DELETE FROM " + q(t.schema, "charge_point_health") + " WHERE charge_point_id = ?1";
  Status s;
  for (const auto& cp : b.charge_points) {
    if (!s.ok()) break;
    HealthInput in;
    Statement& seen = t.db.cached(sel_seen);
    seen.bind(1, cp);
    bool any = seen.step() && !seen.is_null(0);
    if (any) in.last_seen_ts = seen.int64(0);
    seen.reset();
    ++b.report->charge_points_recomputed;
    if (!any) {
      s = t.db.cached(remove).bind(1, cp).run();
      continue;
    }
    read_health_input(t.db, cp, &in);
    s = upsert_health(t.db, upsert, cp, compute_health(in, t.data_clock_ms, t.rules));
  }
  return s;
}

}  // namespace ocppgw::analytics::gold
