// analytics/dq_metrics.hpp: step 3 of a batch, data quality: the dq_batches row, rolling totals
// (dq_totals), the lag histogram, clock skew per charge point, and the conservation check
//   raw = silver + duplicates + live quarantine
// against the trigger-kept table counts. A violation does not roll the batch back: it records a
// dq_alerts row, bumps conservation_violations and logs an error, so operators see it.
// Threading: the pipeline's writer thread, inside the batch transaction, after the Gold
// recompute (the dq_batches row carries the recompute counters).
#pragma once

#include "analytics/batch.hpp"
#include "storage/db.hpp"

namespace ocppgw::analytics {

// Also fills r.lag_p*_ms, r.totals and r.conservation_ok; sorts b.lags.
storage::Status record_batch_metrics(storage::Db& db, Batch& b, BatchReport& r);

}  // namespace ocppgw::analytics
