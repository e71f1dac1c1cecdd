// sim/store_queries.hpp: every SQL statement the ground-truth check runs against the gateway's
// event log (storage/migrations/*.sql) and the analytics store (analytics/migrations/*.sql), in
// one place, so a renamed table or column is a one-line change here and nowhere else.
// Constants only.
#pragma once

#include <string_view>

namespace ocppgw::sim::sql {

// ---- gateway event log (data/ocppgw.db) ----
inline constexpr std::string_view kEventCount = "SELECT count(*) FROM events";
inline constexpr std::string_view kEventsByAction =
    "SELECT json_extract(json, '$.ocpp_action'), count(*) FROM events "
    "WHERE event_type NOT IN ('Invalid', 'Connection') GROUP BY 1";
inline constexpr std::string_view kInvalidEvents =
    "SELECT count(*) FROM events WHERE event_type = 'Invalid'";
// Matches the flags array only: a LIKE over the whole JSON would also count events whose raw
// text or extra happens to contain the flag's name.
inline constexpr std::string_view kFlaggedEvents =
    "SELECT count(*) FROM events, json_each(events.json, '$.flags') AS f WHERE f.value = ?1";
// Transaction-bearing 1.6 events still carrying the merged "-1" session the gateway no longer
// makes, and unlinked synthetic ("-1:...") ones without their OFFLINE_TRANSACTION flag.
inline constexpr std::string_view kMergedMinus1Events =
    "SELECT count(*) FROM events WHERE json_extract(json, '$.transaction_id') = '-1'";
inline constexpr std::string_view kUnflaggedSyntheticEvents =
    "SELECT count(*) FROM events WHERE json_extract(json, '$.transaction_id') LIKE '-1:%' "
    "AND NOT EXISTS (SELECT 1 FROM json_each(events.json, '$.flags') AS f "
    "WHERE f.value = 'OFFLINE_TRANSACTION')";
inline constexpr std::string_view kLinkedEvents =
    "SELECT count(*) FROM events, json_each(events.json, '$.flags') AS f "
    "WHERE f.value LIKE 'TRANSACTION_LINKED_%'";
// Columns: meter_start, meter_stop (NULL until stopped).
inline constexpr std::string_view kTransaction16 =
    "SELECT meter_start, meter_stop FROM transactions16 "
    "WHERE charge_point_id = ?1 AND transaction_id = ?2";

// ---- analytics store (data/analytics.db) ----
inline constexpr std::string_view kRawTotal =
    "SELECT value FROM pipeline_state WHERE key = 'raw_total'";
// Columns: silver, duplicates, quarantine.
inline constexpr std::string_view kConservation =
    "SELECT (SELECT value FROM table_counts WHERE name = 'silver'), "
    "(SELECT value FROM table_counts WHERE name = 'duplicates'), "
    "(SELECT value FROM table_counts WHERE name = 'quarantine')";
inline constexpr std::string_view kDuplicatesByType =
    "SELECT duplicate_type, count(*) FROM duplicate_events_audit GROUP BY 1";
inline constexpr std::string_view kQuarantineByReason =
    "SELECT reason, count(*) FROM quarantine_events GROUP BY 1";
// Columns: energy_kwh, energy_is_final, session_status, quality_flags, meter_start_wh,
// meter_stop_wh.
inline constexpr std::string_view kSession =
    "SELECT energy_kwh, energy_is_final, session_status, quality_flags, meter_start_wh, "
    "meter_stop_wh FROM charging_sessions WHERE charge_point_id = ?1 AND transaction_id = ?2";
// Column: status. 1.6 statuses have evse 0; 2.0.1 statuses carry the evse id.
inline constexpr std::string_view kConnectorStatus =
    "SELECT status FROM connector_current_status "
    "WHERE charge_point_id = ?1 AND evse_id = ?2 AND connector_id = ?3";

inline constexpr std::string_view kDuplicateTechnical = "TECHNICAL";
inline constexpr std::string_view kDuplicateBusiness = "BUSINESS";
inline constexpr std::string_view kReasonConflict = "CONFLICT";
inline constexpr std::string_view kReasonCorrupt = "CORRUPT_PAYLOAD";
inline constexpr std::string_view kSessionCompleted = "COMPLETED";
inline constexpr std::string_view kFlagMeterAnomaly = "METER_ANOMALY";
inline constexpr std::string_view kFlagOfflineTransaction = "OFFLINE_TRANSACTION";

}  // namespace ocppgw::sim::sql
