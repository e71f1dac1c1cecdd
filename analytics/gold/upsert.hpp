// analytics/gold/upsert.hpp: SQL text shared by the Gold recompute. Each Gold table is written
// either in the live schema ("main") or, by reconcile, in scratch copies ("temp"), so every
// statement names its table through q(). Header-only: string building, no state, any thread.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <string>
#include <string_view>

namespace ocppgw::analytics::gold {

inline std::string q(const std::string& schema, const char* table) { return schema + "." + table; }

// "INSERT INTO t(c1..cn) VALUES(?1..?n) ON CONFLICT(keys) DO UPDATE SET c = excluded.c" for every
// non-key column, plus an optional WHERE on the update. Gold rows are replaced whole by their
// recompute, so each upsert has this one shape; spelling it once keeps columns and placeholders
// from drifting apart.
inline std::string upsert_sql(const std::string& table,
                              std::initializer_list<std::string_view> columns,
                              std::initializer_list<std::string_view> keys,
                              std::string_view update_where = {}) {
  std::string cols, params, sets;
  int i = 0;
  for (auto c : columns) {
    cols += (i ? ", " : "") + std::string(c);
    params += (i ? ", ?" : "?") + std::to_string(i + 1);
    ++i;
    if (std::find(keys.begin(), keys.end(), c) != keys.end()) continue;
    sets += (sets.empty() ? "" : ", ") + std::string(c) + " = excluded." + std::string(c);
  }
  std::string key_list;
  for (auto k : keys) key_list += (key_list.empty() ? "" : ", ") + std::string(k);
  std::string sql = "INSERT INTO " + table + "(" + cols + ") VALUES(" + params + ") ON CONFLICT(" +
                    key_list + ") DO UPDATE SET " + sets;
  if (!update_where.empty()) sql += " WHERE " + std::string(update_where);
  return sql;
}

}  // namespace ocppgw::analytics::gold
