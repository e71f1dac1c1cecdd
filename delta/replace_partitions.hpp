// delta/replace_partitions.hpp: the one write the mirror makes, as a Delta transaction:
// replace every file of some partitions (or of the whole table) by new files, atomically,
// tagged with an application transaction (txn appId + version) so that a retry of the same
// work is recognised and skipped (replaceWhere semantics with idempotent writes; docs/delta.md).
//
// Optimistic concurrency: the commit is prepared against the newest snapshot and created as
// the next version only if that version is still free. When another writer took it, the
// commits in between are checked: one that recorded our app id at our version or later means
// the work is done (skipped); one that touched the partitions we replace is a conflict (the
// caller tries again with fresh data); anything else is harmless, and the commit is prepared
// again on top of the new version.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "delta/log.hpp"
#include "delta/schema.hpp"
#include "util/status.hpp"

namespace ocppgw::delta {

struct ReplacePartitions {
  std::string table_name;
  TableSchema schema;
  // The partitions whose files are all removed; ignored for an unpartitioned table (the
  // whole table is replaced).
  std::set<PartitionValues> partitions;
  std::vector<AddFile> adds;  // the new files, already in place under the table root
  Txn txn;
  nlohmann::json operation_parameters = nlohmann::json::object();
  int max_attempts = 10;
  std::chrono::milliseconds log_retention = kDefaultLogRetention;
  int64_t checkpoint_interval = kCheckpointInterval;
  // Called on each attempt after the snapshot is read and before the commit is tried: where
  // another writer's commit can land. Tests use it to race deterministically; null otherwise.
  std::function<void(int64_t next_version)> before_commit;
};

struct ReplaceOutcome {
  enum class Kind { kCommitted, kAlreadyApplied, kConflict } kind = Kind::kCommitted;
  int64_t version = -1;  // the version committed, or the one found to hold our txn
  int64_t removed_files = 0;
  int attempts = 0;
  CommitFollowUp follow_up;  // checkpoint and log clean-up after the commit
};

std::optional<ReplaceOutcome> replace_partitions(const DeltaLog& log,
                                                 const ReplacePartitions& request,
                                                 util::Status* status);

}  // namespace ocppgw::delta
