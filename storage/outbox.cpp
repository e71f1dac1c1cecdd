// storage/outbox.cpp: reads and deletes outbox rows (see outbox.hpp). One connection, one thread.
#include "storage/outbox.hpp"

namespace ocppgw::storage {
namespace {

void set(Status* out, const Status& s) {
  if (out) *out = s;
}

}  // namespace

std::vector<OutboxRow> Outbox::peek(int64_t after_seq, size_t limit, Status* status) {
  std::vector<OutboxRow> rows;
  Statement& st = db_.cached(
      "SELECT e.seq, e.charge_point_id, e.event_type, e.ocpp_version, e.ingest_ts_ms, e.json "
      "FROM outbox o JOIN events e ON e.seq = o.event_seq "
      "WHERE o.event_seq > ? ORDER BY o.event_seq LIMIT ?");
  st.bind(1, after_seq).bind(2, static_cast<int64_t>(limit));
  while (st.step()) {
    rows.push_back(
        OutboxRow{st.int64(0), st.text(1), st.text(2), st.text(3), st.int64(4), st.text(5)});
  }
  set(status, st.status());
  st.reset();
  return rows;
}

Status Outbox::remove(std::span<const int64_t> seqs) {
  if (seqs.empty()) return Status();
  Status s = db_.begin_immediate();
  if (!s.ok()) return s;
  Statement& st = db_.cached("DELETE FROM outbox WHERE event_seq = ?");
  for (int64_t seq : seqs) {
    s = st.bind(1, seq).run();
    if (!s.ok()) break;
  }
  if (s.ok()) s = db_.commit();
  if (!s.ok()) db_.rollback();
  return s;
}

int64_t Outbox::depth(Status* status) {
  Statement& st = db_.cached("SELECT count(*) FROM outbox");
  int64_t n = st.step() ? st.int64(0) : 0;
  set(status, st.status());
  st.reset();
  return n;
}

std::optional<int64_t> Outbox::oldest_ingest_ms(Status* status) {
  // The oldest row by seq is the oldest committed; its ingest time is what lag is measured by.
  Statement& st = db_.cached(
      "SELECT e.ingest_ts_ms FROM outbox o JOIN events e ON e.seq = o.event_seq "
      "ORDER BY o.event_seq LIMIT 1");
  std::optional<int64_t> ms;
  if (st.step()) ms = st.int64(0);
  set(status, st.status());
  st.reset();
  return ms;
}

}  // namespace ocppgw::storage
