// analytics/gold/gold.hpp: step 2 of a batch, the Gold recompute: for every key the batch
// touched (Batch::sessions, connectors, charge_points, days), read all of the key's Silver rows,
// derive the row with gold_rules.hpp and write it. One file per Gold table; the SQL lives here,
// the derivations stay in the pure gold_rules.*. Reconcile runs the same functions into temp
// copies of the tables, so "Gold is a pure function of Silver" is checked on this code path.
// Threading: the pipeline's writer thread, inside the transaction of the batch or the reconcile.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "analytics/batch.hpp"
#include "analytics/gold_rules.hpp"
#include "storage/db.hpp"

namespace ocppgw::analytics::gold {

struct Target {
  storage::Db& db;
  const GoldRules& rules;
  int64_t data_clock_ms = 0;  // drives timeouts and liveness; wall time never does
  std::string schema;         // "main": live Gold; "temp": reconcile's copies
};

// Each session's fold as of the last committed batch (see SessionFold).
using SessionFolds = std::map<SessionKey, SessionFold>;

// charging_sessions. With `folds`, a cached fold that this batch's events extend in sort order
// is reused and the folds are kept up to date; without (reconcile) every session is read from
// Silver. Adds the days a session leaves or enters to b.days.
storage::Status recompute_sessions(const Target& t, Batch& b, SessionFolds* folds);
// connector_status_history and connector_current_status.
storage::Status recompute_connector_status(const Target& t, Batch& b);
// charge_point_health, from Silver and the sessions already written (last_seen_ts).
storage::Status recompute_charge_point_health(const Target& t, Batch& b);
// charging_stats_daily, from the sessions already written for each (charge point, day).
storage::Status recompute_daily_stats(const Target& t, Batch& b);

// All four. Sessions go first: they add to b.days, and health and daily stats read the written
// sessions.
inline storage::Status recompute_gold(const Target& t, Batch& b, SessionFolds* folds) {
  storage::Status s = recompute_sessions(t, b, folds);
  if (s.ok()) s = recompute_connector_status(t, b);
  if (s.ok()) s = recompute_charge_point_health(t, b);
  if (s.ok()) s = recompute_daily_stats(t, b);
  return s;
}

}  // namespace ocppgw::analytics::gold
