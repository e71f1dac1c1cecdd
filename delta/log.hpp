// delta/log.hpp: a Delta table's transaction log (_delta_log/), to the Delta protocol
// (docs/delta.md): the actions we write and read, the snapshot they add up to at a version,
// and the commit of a new version (a file that is created only if absent, so two writers
// never both get one version). Reader version 1 and writer version 2: no table features.
// Thread contract: a DeltaLog object is used by one thread; several processes may commit to
// one table at the same time (the file system arbitrates).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/status.hpp"

namespace ocppgw::delta {

// Partition column -> value; nullopt is a null partition value.
using PartitionValues = std::map<std::string, std::optional<std::string>>;

struct Protocol {
  int min_reader_version = 1;
  int min_writer_version = 2;
};

struct Metadata {
  std::string id;
  std::string name;
  std::string schema_string;
  std::vector<std::string> partition_columns;
  std::map<std::string, std::string> configuration;
  int64_t created_time = 0;
};

struct AddFile {
  std::string path;  // relative to the table root, URI-encoded as in the log
  PartitionValues partition_values;
  int64_t size = 0;
  int64_t modification_time = 0;
  bool data_change = true;
  std::string stats;  // JSON text
  std::map<std::string, std::string> tags;
};

struct RemoveFile {
  std::string path;
  int64_t deletion_timestamp = 0;
  bool data_change = true;
  PartitionValues partition_values;
  int64_t size = 0;
};

struct Txn {
  std::string app_id;
  int64_t version = 0;
  int64_t last_updated = 0;
};

// The actions of one commit. commit_info is free-form provenance (commitInfo action).
struct Commit {
  std::optional<Protocol> protocol;
  std::optional<Metadata> metadata;
  std::vector<Txn> txns;
  std::vector<AddFile> adds;
  std::vector<RemoveFile> removes;
  nlohmann::json commit_info = nlohmann::json::object();
};

// The table at one version: the result of replaying its log.
struct Snapshot {
  int64_t version = -1;  // -1: no commit yet (the table does not exist)
  Protocol protocol;
  std::optional<Metadata> metadata;
  std::map<std::string, AddFile> files;  // live files by path
  std::map<std::string, RemoveFile> tombstones;
  std::map<std::string, Txn> txns;  // latest per app id
  int64_t latest_commit_timestamp = 0;

  std::optional<int64_t> txn_version(const std::string& app_id) const;
  void apply(const Commit& commit);
};

// Every action of a commit file, one JSON document per line.
std::string serialize_commit(const Commit& commit);
std::optional<Commit> parse_commit(const std::string& text, util::Status* status);
// Adds one action (its name and body, as on a commit file's line) to `commit`; throws
// nlohmann::json::exception when a required field is missing. Commit files and checkpoints
// (whose rows are converted to the same JSON) share it.
void parse_action(const std::string& kind, const nlohmann::json& action, Commit& commit);

// A checkpoint is written after every commit whose version is a multiple of this.
inline constexpr int64_t kCheckpointInterval = 10;
// Delta's default `delta.logRetentionDuration`: time travel reaches back at least this far.
inline constexpr std::chrono::hours kDefaultLogRetention{30 * 24};

// The files of the log folder, by version. A multi-part checkpoint is listed only when all its
// parts are present.
struct LogListing {
  std::map<int64_t, std::filesystem::path> commits;
  std::map<int64_t, std::vector<std::filesystem::path>> checkpoints;
  std::vector<std::filesystem::path> temporary;  // leftovers of interrupted writes (hidden)
};

// What follows a commit: the checkpoint when one is due, then the clean-up of expired log files.
// Neither can lose the commit, so a failure is reported rather than returned as an error.
struct CommitFollowUp {
  bool checkpointed = false;
  std::string checkpoint_error;
  int64_t log_files_deleted = 0;
  std::string cleanup_error;
};

class DeltaLog {
 public:
  explicit DeltaLog(std::filesystem::path table_root);

  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path log_dir() const { return root_ / "_delta_log"; }
  std::filesystem::path commit_path(int64_t version) const;

  // The newest version whose commit file exists, -1 when none.
  std::optional<int64_t> latest_version(util::Status* status) const;
  std::optional<LogListing> list(util::Status* status) const;
  // The snapshot at `version` (the newest when nullopt): the newest complete checkpoint at or
  // below it, then the JSON commits after that checkpoint. A version whose log was cleaned up
  // (older than the log retention) is an error that says so.
  std::optional<Snapshot> snapshot(std::optional<int64_t> version, util::Status* status) const;
  // The oldest version that can still be reconstructed (-1: no table).
  std::optional<int64_t> oldest_version(util::Status* status) const;
  std::optional<Commit> read_commit(int64_t version, util::Status* status) const;

  enum class CommitResult { kCommitted, kVersionTaken, kFailed };
  // Writes `commit` as version `version` unless that version exists already.
  CommitResult try_commit(int64_t version, const Commit& commit, util::Status* status) const;

  // Writes the checkpoint of `snapshot` (a Parquet file through Arrow) and then points
  // _last_checkpoint at it. Readers fall back to the JSON commits while either is missing.
  util::Status write_checkpoint(const Snapshot& snapshot) const;
  // The actions of a checkpoint (all its parts), as one commit.
  std::optional<Commit> read_checkpoint(const std::vector<std::filesystem::path>& parts,
                                        util::Status* status) const;

  // Deletes the commits and checkpoints every kept version can do without: those below the
  // newest checkpoint whose predecessors are all older than `retention`, oldest first, so a
  // crash in between leaves a log that still starts at a checkpoint. Also deletes temporary
  // files of interrupted writes older than an hour. Returns the number of files deleted.
  std::optional<int64_t> cleanup_expired_logs(std::chrono::milliseconds retention,
                                              util::Status* status) const;

  // Called by every writer after it committed `after` (the snapshot at the new version):
  // checkpoint when due (every `checkpoint_interval` versions; 0: never), then
  // cleanup_expired_logs.
  CommitFollowUp follow_up(const Snapshot& after, std::chrono::milliseconds log_retention,
                           int64_t checkpoint_interval = kCheckpointInterval) const;

 private:
  std::filesystem::path root_;
};

// Formats a version as the 20-digit zero-padded name of its log files.
std::string version_name(int64_t version);

}  // namespace ocppgw::delta
