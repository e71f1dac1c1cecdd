// tests/unit/analytics/test_support.cpp: canonical dumps of SQLite tables for comparisons.
#include "tests/unit/analytics/test_support.hpp"

#include <cstdio>

#include <sqlite3.h>

namespace ocppgw::analytics::testing {

std::string dump_query(storage::Db& db, const std::string& sql) {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db.handle(), sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << sqlite3_errmsg(db.handle()) << " in " << sql;
    return {};
  }
  std::string out;
  while (sqlite3_step(st) == SQLITE_ROW) {
    int n = sqlite3_column_count(st);
    for (int c = 0; c < n; ++c) {
      if (c) out += '\t';
      switch (sqlite3_column_type(st, c)) {
        case SQLITE_NULL:
          out += "NULL";
          break;
        case SQLITE_INTEGER:
          out += std::to_string(sqlite3_column_int64(st, c));
          break;
        case SQLITE_FLOAT: {
          char buf[40];
          std::snprintf(buf, sizeof buf, "%.17g", sqlite3_column_double(st, c));
          out += buf;
          break;
        }
        default:
          out += reinterpret_cast<const char*>(sqlite3_column_text(st, c));
          break;
      }
    }
    out += '\n';
  }
  sqlite3_finalize(st);
  return out;
}

std::string dump_gold(storage::Db& db) {
  std::string out;
  out += "# charging_sessions\n" +
         dump_query(db,
                    "SELECT session_id, charge_point_id, connector_id, transaction_id, start_ts, "
                    "stop_ts, first_event_ts, last_event_ts, duration_seconds, meter_start_wh, "
                    "meter_stop_wh, last_meter_wh, energy_kwh, energy_is_final, session_status, "
                    "stop_reason, event_count, quality_flags, stats_day, is_open, row_hash "
                    "FROM charging_sessions ORDER BY charge_point_id, transaction_id");
  out += "# connector_status_history\n" +
         dump_query(db,
                    "SELECT * FROM connector_status_history ORDER BY charge_point_id, evse_id, "
                    "connector_id, valid_from, event_id");
  out +=
      "# connector_current_status\n" +
      dump_query(
          db,
          "SELECT * FROM connector_current_status ORDER BY charge_point_id, evse_id, connector_id");
  out += "# charge_point_health\n" +
         dump_query(db, "SELECT * FROM charge_point_health ORDER BY charge_point_id");
  out += "# charging_stats_daily\n" +
         dump_query(db, "SELECT * FROM charging_stats_daily ORDER BY charge_point_id, day");
  return out;
}

}  // namespace ocppgw::analytics::testing
