// analytics/silver_writer.cpp: Silver dedup and quarantine, one item at a time.
// Rules: docs/analytics_rules.md (analytics/spark/ implements the same specification).
#include "analytics/silver_writer.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <vector>

#include "util/time.hpp"

namespace ocppgw::analytics {

using nlohmann::json;
using storage::Statement;
using storage::Status;

namespace {

// Where an event_id went: S(ilver), D(uplicate audit) or Q(uarantine).
Status register_id(storage::Db& db, const std::string& event_id, std::string_view place) {
  return db
      .cached(
          "INSERT INTO event_ids(event_id, place) VALUES(event_id_key(?1), ?2) "
          "ON CONFLICT(event_id) DO UPDATE SET place = excluded.place")
      .bind(1, event_id)
      .bind(2, place)
      .run();
}

// Runs an insert into one of the Silver outputs and adds the rows SQLite says it inserted to
// the batch's count for that table (table_counts is updated from it once per batch).
Status run_counted_insert(storage::Db& db, Statement& insert, int64_t& inserted) {
  Status s = insert.run();
  if (s.ok()) inserted += db.changes();
  return s;
}

Status insert_quarantine(storage::Db& db, Batch& b, const std::optional<std::string>& event_id,
                         const std::optional<std::string>& cp, const std::optional<std::string>& tx,
                         const std::optional<std::string>& business_key,
                         std::optional<double> meter, const Verdict& v, std::string_view raw,
                         const std::optional<std::string>& kafka_key) {
  Statement& insert =
      db.cached(
            "INSERT INTO quarantine_events(event_id, charge_point_id, transaction_id, "
            "business_key, meter_wh, reason, violations, detail, raw_payload, kafka_key, source, "
            "status, quarantined_at, batch_id) "
            "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, 'NEW', ?12, ?13)")
          .bind(1, event_id)
          .bind(2, cp)
          .bind(3, tx)
          .bind(4, business_key)
          .bind(5, meter)
          .bind(6, v.reason)
          .bind(7, json(v.violations).dump())
          .bind(8, v.detail)
          .bind(9, raw)
          .bind(10, kafka_key)
          .bind(11, b.source_name)
          .bind(12, util::now_ms())
          .bind(13, b.batch_id);
  return run_counted_insert(db, insert, b.inserted.quarantine);
}

Status insert_audit(storage::Db& db, Batch& b, const Event& e, std::string_view type,
                    const std::string& winner, const std::optional<std::string>& business_key,
                    std::string_view payload) {
  Statement& insert =
      db.cached(
            "INSERT INTO duplicate_events_audit(event_id, duplicate_type, winner_event_id, "
            "business_key, charge_point_id, event_type, event_ts, ingest_ts, payload, source, "
            "batch_id) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)")
          .bind(1, e.event_id)
          .bind(2, type)
          .bind(3, winner)
          .bind(4, business_key)
          .bind(5, e.charge_point_id)
          .bind(6, to_string(e.event_type))
          .bind(7, e.event_ts_ms)
          .bind(8, e.ingest_ts_ms)
          .bind(9, payload)
          .bind(10, b.source_name)
          .bind(11, b.batch_id);
  return run_counted_insert(db, insert, b.inserted.duplicates);
}

bool meters_differ(std::optional<double> a, std::optional<double> b) {
  if (a.has_value() != b.has_value()) return true;
  return a && std::fabs(*a - *b) > 1e-9;
}

std::string meter_text(std::optional<double> m) { return m ? json(*m).dump() : "null"; }

}  // namespace

Status SilverWriter::write(Batch& b, Item& item) {
  BatchReport& r = *b.report;
  if (item.counts_raw) ++r.raw;
  if (!item.verdict.ok())
    return quarantine(b, item, item.verdict, std::nullopt, std::nullopt, std::nullopt);

  Event& e = *item.event;
  note_validated(b, e);
  // Claiming the id and testing for it is one B-tree seek instead of a lookup and a later
  // insert; the claim says Silver, and the paths that end elsewhere re-register it.
  Status s;
  if (!claim_id(e.event_id, &s)) {
    if (!s.ok()) return s;
    ++r.technical_duplicates;
    item.outcome = "duplicate:TECHNICAL";
    return insert_audit(db_, b, e, "TECHNICAL", e.event_id, std::nullopt, item.raw_text());
  }
  b.touch(e);
  const std::string bk = business_key(e);
  if (key_in_conflict(bk)) return join_conflict(b, item, bk);

  // Most keys are new: the insert is also the uniqueness probe, and only a taken key costs a
  // second seek to read the stored winner.
  bool inserted = false;
  s = insert_silver(b, e, bk, &inserted);
  if (!s.ok()) return s;
  if (inserted) {
    ++r.silver;
    item.outcome = "silver";
    return s;
  }
  std::optional<StoredWinner> w = find_winner(bk, &s);
  if (!s.ok()) return s;
  if (!w) return Status::error("business key " + bk + " is taken but has no Silver row");
  if (meters_differ(w->event.meter_wh, e.meter_wh)) return start_conflict(b, item, *w, bk);
  const Event& old = w->event;
  const bool new_wins = std::tuple(e.event_ts_ms, e.ingest_ts_ms, e.event_id) <
                        std::tuple(old.event_ts_ms, old.ingest_ts_ms, old.event_id);
  if (!new_wins) return keep_as_duplicate(b, item, old, bk);
  return replace_winner(b, item, *w, bk);
}

// Lag, data clock and clock skew are sampled from every validated event, duplicates included:
// they describe the feed, not what Silver keeps.
void SilverWriter::note_validated(Batch& b, const Event& e) {
  int64_t lag = e.ingest_ts_ms - e.event_ts_ms;
  b.lags.push_back(lag);
  b.validated_clock = std::max(
      b.validated_clock, std::min(e.event_ts_ms, e.ingest_ts_ms + rules_.clock_skew_tolerance_ms));
  SkewStat& sk = b.skew[e.charge_point_id];
  ++sk.events;
  sk.last_offset = -lag;
  if (-lag > rules_.clock_skew_tolerance_ms) ++sk.skewed;
  sk.max_ahead = std::max(sk.max_ahead, -lag);
  if (has_unknown_fields(e)) ++b.report->unknown_field_events;
}

bool SilverWriter::claim_id(const std::string& event_id, Status* s) {
  static const std::string sql =
      "INSERT INTO event_ids(event_id, place) VALUES(event_id_key(?1), 'S') "
      "ON CONFLICT(event_id) DO NOTHING";
  *s = db_.cached(sql).bind_borrowed(1, event_id).run();
  return s->ok() && db_.changes() == 1;
}

bool SilverWriter::key_in_conflict(const std::string& business_key) {
  Statement& st = db_.cached(
      "SELECT meter_wh FROM quarantine_events WHERE reason = 'CONFLICT' AND business_key = ?1 "
      "AND status IN ('NEW', 'REPAIRED') LIMIT 1");
  st.bind(1, business_key);
  bool conflicted = st.step();
  st.reset();
  return conflicted;
}

std::optional<SilverWriter::StoredWinner> SilverWriter::find_winner(const std::string& business_key,
                                                                    Status* s) {
  static const std::string sql = std::string("SELECT silver_id, ") + kSilverColumns +
                                 ", source FROM silver_events WHERE business_key = ?1";
  Statement& find = db_.cached(sql);
  find.bind(1, business_key);
  if (!find.step()) {
    *s = find.status();
    find.reset();
    return std::nullopt;
  }
  StoredWinner w;
  w.silver_id = find.int64(0);
  w.event = event_from_silver_row(find, 1);
  find.reset();
  return w;
}

Status SilverWriter::quarantine(Batch& b, Item& item, const Verdict& v,
                                const std::optional<std::string>& tx,
                                const std::optional<std::string>& business_key,
                                std::optional<double> meter) {
  BatchReport& r = *b.report;
  ++r.quarantined;
  ++r.quarantined_by_reason[v.reason];
  item.outcome = "quarantine:" + v.reason;
  return insert_quarantine(db_, b, item.event_id, item.charge_point_id, tx, business_key, meter, v,
                           item.raw_text(), item.kafka_key);
}

// With `inserted`, a taken business key is not an error: nothing is written and *inserted is
// false. The event's id is registered as Silver's by claim_id (or by the caller).
Status SilverWriter::insert_silver(Batch& b, const Event& e, const std::string& business_key,
                                   bool* inserted) {
  static const std::string sql = std::string("INSERT INTO silver_events(") + kSilverColumns +
                                 ", source, batch_id) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
                                 "?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, "
                                 "?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29)";
  static const std::string if_new = sql + " ON CONFLICT(business_key) DO NOTHING";
  Statement& ins = db_.cached(inserted ? if_new : sql);
  bind_event(ins, 1, e, business_key);
  ins.bind(28, b.source_name).bind(29, b.batch_id);
  const int64_t before = b.inserted.silver;
  Status s = run_counted_insert(db_, ins, b.inserted.silver);
  if (inserted) {
    *inserted = b.inserted.silver > before;
    if (!*inserted) return s;
  }
  b.added_to_silver(e);
  return s;
}

Status SilverWriter::delete_silver(int64_t silver_id) {
  return db_.cached("DELETE FROM silver_events WHERE silver_id = ?1").bind(1, silver_id).run();
}

// The key is already in conflict: this event joins its other readings in quarantine.
Status SilverWriter::join_conflict(Batch& b, Item& item, const std::string& business_key) {
  const Event& e = *item.event;
  Verdict v;
  v.add(reason::kConflict,
        "business key " + business_key + " is in conflict (different meter values)");
  ++b.report->conflicts;
  Status s = register_id(db_, e.event_id, "Q");
  if (s.ok()) s = quarantine(b, item, v, e.transaction_id, business_key, e.meter_wh);
  return s;
}

// Neither reading can be trusted over the other, so the stored winner, its audited duplicates
// and this event all leave Silver and the audit; the outcome then does not depend on arrival
// order.
Status SilverWriter::start_conflict(Batch& b, Item& item, const StoredWinner& w,
                                    const std::string& business_key) {
  const Event& e = *item.event;
  Verdict v;
  v.add(reason::kConflict, "business key " + business_key + " has meter_wh " +
                               meter_text(w.event.meter_wh) + " and " + meter_text(e.meter_wh));
  Status s = quarantine_winner(b, w, business_key, v);
  if (s.ok()) s = quarantine_audited(b, w.event, business_key, v);
  ++b.report->conflicts;
  if (s.ok()) s = register_id(db_, e.event_id, "Q");
  if (s.ok()) s = quarantine(b, item, v, e.transaction_id, business_key, e.meter_wh);
  return s;
}

Status SilverWriter::quarantine_winner(Batch& b, const StoredWinner& w,
                                       const std::string& business_key, const Verdict& v) {
  BatchReport& r = *b.report;
  const Event& we = w.event;
  Status s = insert_quarantine(db_, b, we.event_id, we.charge_point_id, we.transaction_id,
                               business_key, we.meter_wh, v, to_json_string(we), std::nullopt);
  if (s.ok()) s = delete_silver(w.silver_id);
  b.removed_from_silver(we);
  if (s.ok()) s = register_id(db_, we.event_id, "Q");
  --r.silver;
  ++r.quarantined;
  ++r.quarantined_by_reason[v.reason];
  ++r.conflicts;
  return s;
}

// The winner's audited BUSINESS duplicates carry its meter value (they matched it when they
// arrived), so they are quarantined under the winner's fields.
Status SilverWriter::quarantine_audited(Batch& b, const Event& w, const std::string& business_key,
                                        const Verdict& v) {
  BatchReport& r = *b.report;
  std::vector<std::tuple<int64_t, std::string, std::string>> audited;
  {
    Statement& st = db_.cached(
        "SELECT audit_id, event_id, payload FROM duplicate_events_audit "
        "WHERE business_key = ?1 AND duplicate_type = 'BUSINESS'");
    st.bind(1, business_key);
    while (st.step()) audited.emplace_back(st.int64(0), st.text(1), st.text(2));
    st.reset();
  }
  Status s;
  for (auto& [audit_id, event_id, payload] : audited) {
    if (!s.ok()) break;
    s = insert_quarantine(db_, b, event_id, w.charge_point_id, w.transaction_id, business_key,
                          w.meter_wh, v, payload, std::nullopt);
    if (s.ok())
      s = db_.cached("DELETE FROM duplicate_events_audit WHERE audit_id = ?1")
              .bind(1, audit_id)
              .run();
    if (s.ok()) s = register_id(db_, event_id, "Q");
    --r.business_duplicates;
    ++r.quarantined;
    ++r.quarantined_by_reason[v.reason];
    ++r.conflicts;
  }
  return s;
}

Status SilverWriter::keep_as_duplicate(Batch& b, Item& item, const Event& w,
                                       const std::string& business_key) {
  const Event& e = *item.event;
  ++b.report->business_duplicates;
  item.outcome = "duplicate:BUSINESS";
  Status s = insert_audit(db_, b, e, "BUSINESS", w.event_id, business_key, item.raw_text());
  if (s.ok()) s = register_id(db_, e.event_id, "D");
  return s;
}

// The newcomer is the deterministic winner: demote the stored one to the audit and re-point
// the audit rows of the key to the newcomer.
Status SilverWriter::replace_winner(Batch& b, Item& item, const StoredWinner& w,
                                    const std::string& business_key) {
  BatchReport& r = *b.report;
  const Event& e = *item.event;
  Status s =
      insert_audit(db_, b, w.event, "BUSINESS", e.event_id, business_key, to_json_string(w.event));
  if (s.ok()) s = delete_silver(w.silver_id);
  b.removed_from_silver(w.event);
  if (s.ok())
    s = db_.cached(
               "UPDATE duplicate_events_audit SET winner_event_id = ?1 "
               "WHERE business_key = ?2 AND duplicate_type = 'BUSINESS'")
            .bind(1, e.event_id)
            .bind(2, business_key)
            .run();
  if (s.ok()) s = register_id(db_, w.event.event_id, "D");
  if (!s.ok()) return s;
  s = insert_silver(b, e, business_key);
  ++r.demoted_winners;
  ++r.business_duplicates;
  item.outcome = "silver";
  return s;
}

}  // namespace ocppgw::analytics
