// storage/event_log.cpp: read access to the events table (see event_log.hpp).
#include "storage/event_log.hpp"

namespace ocppgw::storage {

std::vector<LoggedEvent> read_event_log(Db& db, int64_t after_seq, size_t limit, Status* status) {
  std::vector<LoggedEvent> out;
  Statement& st = db.cached(
      "SELECT seq, event_id, charge_point_id, event_type, json FROM events "
      "WHERE seq > ? ORDER BY seq LIMIT ?");
  st.bind(1, after_seq).bind(2, static_cast<int64_t>(limit));
  while (st.step()) out.push_back({st.int64(0), st.text(1), st.text(2), st.text(3), st.text(4)});
  if (status) *status = st.status();
  st.reset();
  return out;
}

int64_t event_log_count(Db& db, Status* status) {
  Statement& st = db.cached("SELECT count(*) FROM events");
  int64_t n = st.step() ? st.int64(0) : 0;
  if (status) *status = st.status();
  st.reset();
  return n;
}

}  // namespace ocppgw::storage
