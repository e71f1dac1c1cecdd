// analytics/delta_mirror.hpp: mirrors the analytics tables (analytics/delta_tables.hpp) to
// Delta Lake tables under a root folder, one Delta table per analytics table (docs/delta.md).
//
// One cycle reads one consistent snapshot of the analytics store (a single read transaction,
// beside the pipeline's writer thanks to WAL, so ingest never waits) and, per table:
//   1. fingerprints every partition (daily partitions; small tables are one partition) and
//      compares with the fingerprints tagged on the Delta table's current files: only the
//      partitions whose rows changed since the last cycle are written;
//   2. writes them as Parquet files into the table's _staging/<cycle>/ folder;
//   3. audits the staged files as read back from disk: row counts equal the snapshot's, the
//      primary key is unique, required columns hold no null (write-audit-publish);
//   4. moves them into place and commits one Delta version that replaces exactly those
//      partitions, with the txn (app id, the snapshot's analytics batch sequence), so a cycle
//      retried on the same snapshot is recognised and adds nothing.
// A failed audit commits nothing for that table, keeps the staged files for inspection and is
// reported (the worker raises it as an alert in /health); the next cycle tries again.
// Thread contract: a DeltaMirror runs one cycle at a time on the calling thread; the gateway runs
// it on a timer in a DeltaMirrorWorker (analytics/delta_mirror_worker.hpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "delta/log.hpp"
#include "delta/maintenance.hpp"
#include "util/status.hpp"

namespace ocppgw::analytics {

struct DeltaMirrorOptions {
  std::string analytics_db_path = "data/analytics.db";
  std::filesystem::path root = "data/delta";
  // The txn app id; two gateways mirroring into one root must use different ones.
  std::string app_id = "ocppgw-delta-mirror";
  int64_t rows_per_row_group = 64 * 1024;
  // Staged files of failed audits are kept this long for inspection, then deleted.
  std::chrono::seconds staging_retention{24 * 3600};
  // Time travel reaches back at least this far; older log files are deleted after checkpoints.
  std::chrono::milliseconds log_retention = delta::kDefaultLogRetention;
  // A checkpoint every this many versions (0: never; bench/delta_bench compares).
  int64_t checkpoint_interval = delta::kCheckpointInterval;
  // Vacuum deletes data files removed this long ago (and files no commit names, this old).
  std::chrono::milliseconds file_retention = delta::kDefaultFileRetention;
  // The worker vacuums every table this often (0: never; `ocppgw delta vacuum` still can).
  std::chrono::hours vacuum_interval{24};
  // Fault injection for tests: the first staged row of this table is written twice; or the
  // snapshot's conservation check fails.
  std::string inject_duplicate_row_in;
  bool inject_conservation_violation = false;
};

struct TableCycleReport {
  enum class Outcome { kUnchanged, kCommitted, kAlreadyApplied, kConflict, kAuditFailed, kFailed };
  std::string table;
  Outcome outcome = Outcome::kUnchanged;
  int64_t version = -1;  // the Delta version committed (or found)
  int64_t partitions_replaced = 0;
  int64_t files_added = 0;
  int64_t files_removed = 0;
  int64_t rows_written = 0;
  bool checkpointed = false;
  int64_t log_files_deleted = 0;
  std::string detail;  // why it failed, or what the audit found
};

struct CycleReport {
  int64_t snapshot_batch_seq = 0;  // the txn version of this cycle
  int64_t started_at_ms = 0;
  int64_t duration_ms = 0;
  int64_t rows_read = 0;
  int64_t rows_written = 0;
  std::vector<TableCycleReport> tables;
  bool ok() const;  // no table failed or failed its audit
};

nlohmann::json to_json(const CycleReport& report);
const char* to_string(TableCycleReport::Outcome outcome);

class DeltaMirror {
 public:
  explicit DeltaMirror(DeltaMirrorOptions options);
  // nullopt: the snapshot could not be read at all (*status says why).
  std::optional<CycleReport> run_cycle(util::Status* status);
  // Vacuums the named tables (every mirrored table when empty) with options().file_retention;
  // a JSON report per table ({"deleted_files", "deleted_bytes", "version"} or {"error"}).
  nlohmann::json vacuum(const std::vector<std::string>& tables, bool dry_run);
  const DeltaMirrorOptions& options() const { return options_; }
  // The Delta table of a mirrored table, or an error naming the mirrored tables.
  static std::optional<delta::DeltaLog> table(const DeltaMirrorOptions& options,
                                              const std::string& name, util::Status* status);

 private:
  DeltaMirrorOptions options_;
};

}  // namespace ocppgw::analytics
