// analytics/silver_writer.hpp: step 1 of a batch, one item at a time: Silver, the duplicate
// audit or quarantine, with the event_ids registry that makes technical dedup a single seek
// (claiming the id). The rules it applies (pipeline.hpp has the full statement):
//   - an item that failed validation is quarantined under its reason;
//   - an event_id seen before is a TECHNICAL duplicate (the first copy wins);
//   - a business key in conflict (an unresolved CONFLICT row) quarantines every further event;
//   - a new business key enters Silver; an existing one keeps the winner that sorts first by
//     (event_ts, ingest_ts, event_id), the other goes to the audit as a BUSINESS duplicate and
//     audit rows always name the current winner;
//   - different meter values under one business key are a CONFLICT: the stored winner, its
//     audited duplicates and the newcomer all go to quarantine.
// It also gathers the batch's lag and clock-skew samples and marks the Gold keys to recompute.
// Threading: runs on the pipeline's writer thread inside the batch transaction; a SilverWriter
// lives for one batch.
#pragma once

#include <optional>
#include <string>

#include "analytics/batch.hpp"
#include "analytics/event.hpp"
#include "analytics/silver_rules.hpp"
#include "storage/db.hpp"

namespace ocppgw::analytics {

class SilverWriter {
 public:
  SilverWriter(storage::Db& db, const SilverRules& rules) : db_(db), rules_(rules) {}

  // Routes `item` and counts it in b.report; item.outcome says where it went.
  storage::Status write(Batch& b, Item& item);

 private:
  struct StoredWinner {
    int64_t silver_id = 0;
    Event event;
  };

  void note_validated(Batch& b, const Event& e);
  // Registers event_id as Silver's; false when it was already registered (or *s failed).
  bool claim_id(const std::string& event_id, storage::Status* s);
  bool key_in_conflict(const std::string& business_key);
  std::optional<StoredWinner> find_winner(const std::string& business_key, storage::Status* s);

  storage::Status quarantine(Batch& b, Item& item, const Verdict& v,
                             const std::optional<std::string>& tx,
                             const std::optional<std::string>& business_key,
                             std::optional<double> meter);
  storage::Status insert_silver(Batch& b, const Event& e, const std::string& business_key,
                                bool* inserted = nullptr);
  storage::Status delete_silver(int64_t silver_id);

  storage::Status join_conflict(Batch& b, Item& item, const std::string& business_key);
  storage::Status start_conflict(Batch& b, Item& item, const StoredWinner& w,
                                 const std::string& business_key);
  storage::Status quarantine_winner(Batch& b, const StoredWinner& w,
                                    const std::string& business_key, const Verdict& v);
  storage::Status quarantine_audited(Batch& b, const Event& w, const std::string& business_key,
                                     const Verdict& v);
  storage::Status keep_as_duplicate(Batch& b, Item& item, const Event& w,
                                    const std::string& business_key);
  storage::Status replace_winner(Batch& b, Item& item, const StoredWinner& w,
                                 const std::string& business_key);

  storage::Db& db_;
  const SilverRules& rules_;
};

}  // namespace ocppgw::analytics
