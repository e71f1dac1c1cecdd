// analytics/delta_tables.cpp
#include "analytics/delta_tables.hpp"

namespace ocppgw::analytics {

namespace {

using delta::Column;
using T = delta::ColumnType;

constexpr bool kRequired = false;

// The UTC day of a millisecond timestamp column, as Delta's date partition value.
std::string utc_day(const std::string& ms_column) {
  return "strftime('%Y-%m-%d', " + ms_column + " / 1000, 'unixepoch')";
}

std::vector<MirroredTable> build() {
  std::vector<MirroredTable> t;
  t.push_back(
      {"charging_sessions",
       {{{"session_id", T::kString, kRequired},
         {"charge_point_id", T::kString, kRequired},
         {"connector_id", T::kLong},
         {"transaction_id", T::kString, kRequired},
         {"start_ts", T::kTimestamp},
         {"stop_ts", T::kTimestamp},
         {"first_event_ts", T::kTimestamp, kRequired},
         {"last_event_ts", T::kTimestamp, kRequired},
         {"duration_seconds", T::kLong},
         {"meter_start_wh", T::kDouble},
         {"meter_stop_wh", T::kDouble},
         {"last_meter_wh", T::kDouble},
         {"energy_kwh", T::kDouble},
         {"energy_is_final", T::kBoolean, kRequired},
         {"session_status", T::kString, kRequired},
         {"stop_reason", T::kString},
         {"event_count", T::kLong, kRequired},
         {"quality_flags", T::kString, kRequired},
         {"is_open", T::kBoolean, kRequired},
         {"updated_at", T::kTimestamp, kRequired},
         {"stats_day", T::kDate, kRequired}},
        {"stats_day"}},
       "SELECT stats_day, session_id, charge_point_id, connector_id, transaction_id, start_ts, "
       "stop_ts, first_event_ts, last_event_ts, duration_seconds, meter_start_wh, meter_stop_wh, "
       "last_meter_wh, energy_kwh, energy_is_final, session_status, stop_reason, event_count, "
       "quality_flags, is_open, updated_at FROM charging_sessions ORDER BY stats_day, session_id",
       {"session_id"}});
  t.push_back({"connector_status_history",
               {{{"charge_point_id", T::kString, kRequired},
                 {"evse_id", T::kLong, kRequired},
                 {"connector_id", T::kLong, kRequired},
                 {"valid_from", T::kTimestamp, kRequired},
                 {"event_id", T::kString, kRequired},
                 {"valid_to", T::kTimestamp},
                 {"status", T::kString, kRequired},
                 {"error_code", T::kString},
                 {"seq_no", T::kLong},
                 {"valid_from_date", T::kDate, kRequired}},
                {"valid_from_date"}},
               "SELECT " + utc_day("valid_from") +
                   " AS d, charge_point_id, evse_id, connector_id, valid_from, event_id, "
                   "valid_to, status, error_code, seq_no FROM connector_status_history "
                   "ORDER BY d, charge_point_id, evse_id, connector_id, valid_from, event_id",
               {"charge_point_id", "evse_id", "connector_id", "valid_from", "event_id"}});
  t.push_back({"connector_current_status",
               {{{"charge_point_id", T::kString, kRequired},
                 {"evse_id", T::kLong, kRequired},
                 {"connector_id", T::kLong, kRequired},
                 {"status", T::kString, kRequired},
                 {"error_code", T::kString},
                 {"status_since", T::kTimestamp, kRequired},
                 {"event_id", T::kString, kRequired},
                 {"seq_no", T::kLong}},
                {}},
               "SELECT NULL, charge_point_id, evse_id, connector_id, status, error_code, "
               "status_since, event_id, seq_no FROM connector_current_status "
               "ORDER BY charge_point_id, evse_id, connector_id",
               {"charge_point_id", "evse_id", "connector_id"}});
  t.push_back({"charge_point_health",
               {{{"charge_point_id", T::kString, kRequired},
                 {"last_heartbeat_ts", T::kTimestamp},
                 {"last_seen_ts", T::kTimestamp, kRequired},
                 {"connection_state", T::kString},
                 {"connection_changed_ts", T::kTimestamp},
                 {"last_boot_ts", T::kTimestamp},
                 {"vendor", T::kString},
                 {"model", T::kString},
                 {"firmware_version", T::kString},
                 {"heartbeat_interval_s", T::kLong, kRequired},
                 {"offline_deadline_ts", T::kTimestamp, kRequired},
                 {"liveness", T::kString, kRequired}},
                {}},
               "SELECT NULL, charge_point_id, last_heartbeat_ts, last_seen_ts, connection_state, "
               "connection_changed_ts, last_boot_ts, vendor, model, firmware_version, "
               "heartbeat_interval_s, offline_deadline_ts, liveness FROM charge_point_health "
               "ORDER BY charge_point_id",
               {"charge_point_id"}});
  t.push_back({"charging_stats_daily",
               {{{"charge_point_id", T::kString, kRequired},
                 {"sessions_total", T::kLong, kRequired},
                 {"sessions_started", T::kLong, kRequired},
                 {"sessions_completed", T::kLong, kRequired},
                 {"sessions_timed_out", T::kLong, kRequired},
                 {"sessions_in_progress", T::kLong, kRequired},
                 {"sessions_start_missing", T::kLong, kRequired},
                 {"energy_kwh_final", T::kDouble, kRequired},
                 {"energy_kwh_provisional", T::kDouble, kRequired},
                 {"avg_duration_seconds", T::kDouble},
                 {"day", T::kDate, kRequired}},
                {"day"}},
               "SELECT day, charge_point_id, sessions_total, sessions_started, "
               "sessions_completed, sessions_timed_out, sessions_in_progress, "
               "sessions_start_missing, energy_kwh_final, energy_kwh_provisional, "
               "avg_duration_seconds FROM charging_stats_daily ORDER BY day, charge_point_id",
               {"charge_point_id"}});
  t.push_back({"silver_events",
               {{{"silver_id", T::kLong, kRequired},
                 {"event_id", T::kString, kRequired},
                 {"business_key", T::kString, kRequired},
                 {"charge_point_id", T::kString, kRequired},
                 {"connector_id", T::kLong},
                 {"evse_id", T::kLong},
                 {"event_type", T::kString, kRequired},
                 {"ocpp_action", T::kString, kRequired},
                 {"message_id", T::kString},
                 {"event_ts", T::kTimestamp, kRequired},
                 {"ingest_ts", T::kTimestamp, kRequired},
                 {"transaction_id", T::kString},
                 {"seq_no", T::kLong},
                 {"trigger_reason", T::kString},
                 {"meter_wh", T::kDouble},
                 {"power_w", T::kDouble},
                 {"current_a", T::kDouble},
                 {"voltage_v", T::kDouble},
                 {"soc_pct", T::kDouble},
                 {"connector_status", T::kString},
                 {"error_code", T::kString},
                 {"stop_reason", T::kString},
                 {"id_token_hash", T::kString},
                 {"ocpp_version", T::kString, kRequired},
                 {"schema_version", T::kLong, kRequired},
                 {"gateway_node", T::kString, kRequired},
                 {"flags", T::kString, kRequired},
                 {"extra", T::kString, kRequired},
                 {"source", T::kString, kRequired},
                 {"batch_id", T::kLong, kRequired},
                 {"event_date", T::kDate, kRequired}},
                {"event_date"}},
               "SELECT " + utc_day("event_ts") +
                   " AS d, silver_id, event_id, business_key, charge_point_id, connector_id, "
                   "evse_id, event_type, ocpp_action, message_id, event_ts, ingest_ts, "
                   "transaction_id, seq_no, trigger_reason, meter_wh, power_w, current_a, "
                   "voltage_v, soc_pct, connector_status, error_code, stop_reason, "
                   "id_token_hash, ocpp_version, schema_version, gateway_node, flags, extra, "
                   "source, batch_id FROM silver_events ORDER BY d, silver_id",
               {"event_id"}});
  t.push_back({"quarantine_events",
               {{{"quarantine_id", T::kLong, kRequired},
                 {"event_id", T::kString},
                 {"charge_point_id", T::kString},
                 {"transaction_id", T::kString},
                 {"business_key", T::kString},
                 {"meter_wh", T::kDouble},
                 {"reason", T::kString, kRequired},
                 {"violations", T::kString, kRequired},
                 {"detail", T::kString, kRequired},
                 {"raw_payload", T::kString, kRequired},
                 {"kafka_key", T::kString},
                 {"source", T::kString, kRequired},
                 {"status", T::kString, kRequired},
                 {"repaired_payload", T::kString},
                 {"reviewed_by", T::kString},
                 {"replay_outcome", T::kString},
                 {"quarantined_at", T::kTimestamp, kRequired},
                 {"batch_id", T::kLong, kRequired},
                 {"quarantined_date", T::kDate, kRequired}},
                {"quarantined_date"}},
               "SELECT " + utc_day("quarantined_at") +
                   " AS d, quarantine_id, event_id, charge_point_id, transaction_id, "
                   "business_key, meter_wh, reason, violations, detail, raw_payload, kafka_key, "
                   "source, status, repaired_payload, reviewed_by, replay_outcome, "
                   "quarantined_at, batch_id FROM quarantine_events ORDER BY d, quarantine_id",
               {"quarantine_id"}});
  t.push_back({"dq_batches",
               {{{"batch_id", T::kLong, kRequired},
                 {"source", T::kString, kRequired},
                 {"finished_at", T::kTimestamp, kRequired},
                 {"raw", T::kLong, kRequired},
                 {"silver", T::kLong, kRequired},
                 {"technical_duplicates", T::kLong, kRequired},
                 {"business_duplicates", T::kLong, kRequired},
                 {"quarantined", T::kLong, kRequired},
                 {"quarantined_by_reason", T::kString, kRequired},
                 {"conflicts", T::kLong, kRequired},
                 {"demoted_winners", T::kLong, kRequired},
                 {"unknown_field_events", T::kLong, kRequired},
                 {"lag_p50_ms", T::kLong},
                 {"lag_p95_ms", T::kLong},
                 {"lag_p99_ms", T::kLong},
                 {"sessions_recomputed", T::kLong, kRequired},
                 {"sessions_swept", T::kLong, kRequired},
                 {"raw_total", T::kLong, kRequired},
                 {"silver_total", T::kLong, kRequired},
                 {"duplicate_total", T::kLong, kRequired},
                 {"quarantine_total", T::kLong, kRequired},
                 {"conservation_ok", T::kBoolean, kRequired},
                 {"duration_us", T::kLong, kRequired},
                 {"finished_date", T::kDate, kRequired}},
                {"finished_date"}},
               "SELECT " + utc_day("finished_at") +
                   " AS d, batch_id, source, finished_at, raw, silver, technical_duplicates, "
                   "business_duplicates, quarantined, quarantined_by_reason, conflicts, "
                   "demoted_winners, unknown_field_events, lag_p50_ms, lag_p95_ms, lag_p99_ms, "
                   "sessions_recomputed, sessions_swept, raw_total, silver_total, "
                   "duplicate_total, quarantine_total, conservation_ok, duration_us "
                   "FROM dq_batches ORDER BY d, batch_id",
               {"batch_id"}});
  return t;
}

}  // namespace

const std::vector<MirroredTable>& mirrored_tables() {
  static const std::vector<MirroredTable> tables = build();
  return tables;
}

}  // namespace ocppgw::analytics
