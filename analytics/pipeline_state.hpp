// analytics/pipeline_state.hpp: the pipeline's counters in the store (pipeline_state: batch
// sequence, raw counter, data clock, event-log watermark, alert counters; table_counts: the
// per-table row counts, from SQLite's change counts of the inserts and from triggers on
// deletes). They live in the store rather than in memory so
// that they commit or roll back with the batch that changed them. A file of its own because the
// batch driver, the data-quality step and reconcile all read them.
// Threading: called on the writer's connection (Pipeline's thread), inside or outside a batch.
#pragma once

#include <cstdint>
#include <string_view>

#include "analytics/batch_report.hpp"
#include "storage/db.hpp"

namespace ocppgw::analytics {

// 0 when the key was never written (or was cleared by a reset).
int64_t read_state(storage::Db& db, std::string_view key);
storage::Status write_state(storage::Db& db, std::string_view key, int64_t value);
// The raw counter with the table counts: cheap enough to check after every batch.
ConservationCounts read_counts(storage::Db& db);
// Adds a batch's inserted rows to table_counts (analytics/migrations/0002 says why per batch).
storage::Status add_inserted_rows(storage::Db& db, int64_t silver, int64_t duplicates,
                                  int64_t quarantine);

}  // namespace ocppgw::analytics
