// delta/log.hpp: a Delta table's transaction log (_delta_log/), to the Delta protocol
// (docs/delta.md): the actions we write and read, the snapshot they add up to at a version,
// and the commit of a new version (a file that is created only if absent, so two writers
// never both get one version). Reader version 1 and writer version 2: no table features.
// Thread contract: a DeltaLog object is used by one thread; several processes may commit to
// one table at the same time (the file system arbitrates).
#pragma once

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

class DeltaLog {
 public:
  explicit DeltaLog(std::filesystem::path table_root);

  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path log_dir() const { return root_ / "_delta_log"; }
  std::filesystem::path commit_path(int64_t version) const;

  // The newest version whose commit file exists, -1 when none.
  std::optional<int64_t> latest_version(util::Status* status) const;
  // The snapshot at `version` (the newest when nullopt).
  std::optional<Snapshot> snapshot(std::optional<int64_t> version, util::Status* status) const;
  std::optional<Commit> read_commit(int64_t version, util::Status* status) const;

  enum class CommitResult { kCommitted, kVersionTaken, kFailed };
  // Writes `commit` as version `version` unless that version exists already.
  CommitResult try_commit(int64_t version, const Commit& commit, util::Status* status) const;

  // Writes the checkpoint of `snapshot` (a Parquet file through Arrow) and then points
  // _last_checkpoint at it. Readers fall back to the JSON commits while either is missing.
  util::Status write_checkpoint(const Snapshot& snapshot) const;

 private:
  std::filesystem::path root_;
};

// Formats a version as the 20-digit zero-padded name of its log files.
std::string version_name(int64_t version);

}  // namespace ocppgw::delta
