// analytics/reconcile.hpp: the check that Gold is a pure function of Silver. Every Gold table is
// recomputed from all of Silver into temp copies (same keys and indexes) by the same code as a
// batch (gold/gold.hpp, without cached session folds, so the folds are checked too), compared
// row for row with the live tables, and with `repair` copied over them. Conservation is
// re-counted with COUNT(*) rather than taken from the trigger counters. A mismatch records a
// dq_alerts row and logs an error. ReconcileReport lives here, next to the code that fills it;
// pipeline.hpp includes this header, so its users see it as before.
// Threading: the pipeline's writer thread (call it through Pipeline::reconcile); it runs in its
// own transaction.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "analytics/batch_report.hpp"
#include "analytics/gold_rules.hpp"
#include "storage/db.hpp"

namespace ocppgw::analytics {

struct ReconcileReport {
  storage::Status status;
  bool gold_matches = true;
  ConservationCounts counted;  // full COUNT(*) of the tables, not the trigger counters
  bool conservation_ok = true;
  nlohmann::json tables =
      nlohmann::json::object();  // table -> {only_in_gold, only_in_recomputed, samples}
  bool repaired = false;
  nlohmann::json to_json() const;
};

ReconcileReport reconcile_gold(storage::Db& db, const GoldRules& rules, int64_t data_clock_ms,
                               bool repair);

}  // namespace ocppgw::analytics
