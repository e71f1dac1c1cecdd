// analytics/pipeline_state.cpp: reads and writes of pipeline_state and table_counts.
#include "analytics/pipeline_state.hpp"

#include <utility>

namespace ocppgw::analytics {

using storage::Statement;
using storage::Status;

int64_t read_state(storage::Db& db, std::string_view key) {
  Statement& st = db.cached("SELECT value FROM pipeline_state WHERE key = ?1");
  st.bind(1, key);
  int64_t v = st.step() ? st.int64(0) : 0;
  st.reset();
  return v;
}

Status write_state(storage::Db& db, std::string_view key, int64_t value) {
  return db
      .cached(
          "INSERT INTO pipeline_state(key, value) VALUES(?1, ?2) "
          "ON CONFLICT(key) DO UPDATE SET value = excluded.value")
      .bind(1, key)
      .bind(2, value)
      .run();
}

ConservationCounts read_counts(storage::Db& db) {
  ConservationCounts c;
  c.raw = read_state(db, "raw_total");
  Statement& st = db.cached("SELECT name, value FROM table_counts");
  while (st.step()) {
    auto name = st.text_view(0);
    if (name == "silver")
      c.silver = st.int64(1);
    else if (name == "duplicates")
      c.duplicates = st.int64(1);
    else if (name == "quarantine")
      c.quarantine = st.int64(1);
  }
  st.reset();
  return c;
}

Status add_inserted_rows(storage::Db& db, int64_t silver, int64_t duplicates, int64_t quarantine) {
  Status s;
  for (auto [name, n] : {std::pair<std::string_view, int64_t>{"silver", silver},
                         {"duplicates", duplicates},
                         {"quarantine", quarantine}}) {
    if (n == 0 || !s.ok()) continue;
    s = db.cached("UPDATE table_counts SET value = value + ?2 WHERE name = ?1")
            .bind(1, name)
            .bind(2, n)
            .run();
  }
  return s;
}

}  // namespace ocppgw::analytics
