// delta/maintenance.hpp: what an operator does to a Delta table besides writing it (docs/delta.md,
// "Maintenance"): read its history, restore an old version, and vacuum the data files no
// version within the retention needs. Restore and vacuum are commits like any other: they take
// the next free version, retry on a lost race, and are followed by checkpoint and log clean-up.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "delta/log.hpp"
#include "util/status.hpp"

namespace ocppgw::delta {

// Delta's default `delta.deletedFileRetentionDuration`: a removed file stays this long, so
// readers of older versions and slow concurrent readers find it.
inline constexpr std::chrono::hours kDefaultFileRetention{7 * 24};

// The commits still in the log, newest first: version, timestamp and the commitInfo (operation,
// operationParameters, operationMetrics, engineInfo, readVersion), as Spark's DESCRIBE HISTORY.
std::optional<nlohmann::json> history(const DeltaLog& log, std::optional<int64_t> limit,
                                      util::Status* status);

struct RestoreOutcome {
  int64_t version = -1;  // the new version, whose files are those of the restored one
  int64_t restored_version = -1;
  int64_t files_added = 0;
  int64_t files_removed = 0;
  CommitFollowUp follow_up;
};

// Commits a new version whose live files are exactly those of `version`. Refused when a file
// of that version is gone (vacuumed): restoring it would produce a table that cannot be read.
std::optional<RestoreOutcome> restore(const DeltaLog& log, int64_t version,
                                      std::chrono::milliseconds log_retention,
                                      util::Status* status);

struct VacuumOptions {
  std::chrono::milliseconds retention = kDefaultFileRetention;
  bool dry_run = false;
  std::chrono::milliseconds log_retention = kDefaultLogRetention;
};

struct VacuumOutcome {
  std::vector<std::string> deleted;  // relative paths (would be deleted, on a dry run)
  int64_t bytes = 0;
  int64_t directories_deleted = 0;
  int64_t version = -1;  // the VACUUM commit (none on a dry run)
};

// Deletes the data files under the table root that the current version does not reference and
// that are older than the retention: files removed by a commit more than `retention` ago, and
// files no commit ever referenced (left by a writer that crashed before its commit) whose
// modification time is older than that. Folders whose name starts with '_' or '.' (the log,
// staging) are not touched. Then records a "VACUUM END" commit (commitInfo only) so the
// history shows it.
std::optional<VacuumOutcome> vacuum(const DeltaLog& log, const VacuumOptions& options,
                                    util::Status* status);

// The file path an add/remove action names, as a path relative to the table root: the log
// holds it URI-encoded (RFC 2396: '%XX' escapes).
std::string decode_log_path(std::string_view uri);

}  // namespace ocppgw::delta
