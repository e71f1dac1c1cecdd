// delta/replace_partitions.cpp
#include "delta/replace_partitions.hpp"

#include "delta/fs.hpp"
#include "util/time.hpp"

namespace ocppgw::delta {

namespace {

bool in_scope(const ReplacePartitions& r, const PartitionValues& values) {
  return r.schema.partition_columns.empty() || r.partitions.count(values) > 0;
}

// Did `commit` (made by someone else after our snapshot) touch what we replace?
bool touches(const ReplacePartitions& r, const Commit& commit) {
  if (commit.metadata || commit.protocol) return true;  // schema or protocol changed under us
  for (const auto& a : commit.adds)
    if (in_scope(r, a.partition_values)) return true;
  for (const auto& rm : commit.removes)
    if (in_scope(r, rm.partition_values)) return true;
  return false;
}

Commit prepare(const ReplacePartitions& r, const Snapshot& snap, int64_t now_ms, int64_t* removed) {
  Commit c;
  if (snap.version < 0) {
    c.protocol = Protocol{};
    Metadata m;
    m.id = random_uuid();
    m.name = r.table_name;
    m.schema_string = r.schema.delta_schema_string();
    m.partition_columns = r.schema.partition_columns;
    m.created_time = now_ms;
    c.metadata = std::move(m);
  }
  *removed = 0;
  for (const auto& [path, file] : snap.files) {
    if (!in_scope(r, file.partition_values)) continue;
    c.removes.push_back({path, now_ms, true, file.partition_values, file.size});
    ++*removed;
  }
  c.adds = r.adds;
  Txn t = r.txn;
  t.last_updated = now_ms;
  c.txns.push_back(std::move(t));
  nlohmann::json predicate = nlohmann::json::array();
  for (const auto& p : r.partitions) {
    nlohmann::json one = nlohmann::json::object();
    for (const auto& [k, v] : p) one[k] = v ? nlohmann::json(*v) : nlohmann::json(nullptr);
    predicate.push_back(one);
  }
  // Readers parse operationParameters as a map of strings (Spark does), so values are text.
  nlohmann::json params = {{"mode", "Overwrite"},
                           {"partitionBy", nlohmann::json(r.schema.partition_columns).dump()}};
  if (!r.schema.partition_columns.empty()) params["replacePartitions"] = predicate.dump();
  for (const auto& [k, v] : r.operation_parameters.items())
    params[k] = v.is_string() ? v.get<std::string>() : v.dump();
  c.commit_info = {{"timestamp", now_ms},
                   {"operation", snap.version < 0 ? "CREATE TABLE AS SELECT" : "WRITE"},
                   {"operationParameters", params},
                   {"isBlindAppend", false},
                   {"engineInfo", "ocppgw-delta-mirror"},
                   {"operationMetrics",
                    {{"numFiles", std::to_string(r.adds.size())},
                     {"numRemovedFiles", std::to_string(*removed)}}}};
  // The version this commit was prepared on; none for the commit that creates the table
  // (readers parse it as unsigned).
  if (snap.version >= 0) c.commit_info["readVersion"] = snap.version;
  return c;
}

}  // namespace

std::optional<ReplaceOutcome> replace_partitions(const DeltaLog& log, const ReplacePartitions& r,
                                                 util::Status* status) {
  ReplaceOutcome out;
  auto snap = log.snapshot(std::nullopt, status);
  if (!snap) return std::nullopt;
  while (out.attempts < r.max_attempts) {
    ++out.attempts;
    if (auto done = snap->txn_version(r.txn.app_id); done && *done >= r.txn.version) {
      out.kind = ReplaceOutcome::Kind::kAlreadyApplied;
      out.version = snap->version;
      return out;
    }
    const int64_t now = util::now_ms();
    const Commit commit = prepare(r, *snap, now, &out.removed_files);
    const int64_t version = snap->version + 1;
    if (r.before_commit) r.before_commit(version);
    fault_point("before_commit", r.table_name);
    const auto result = log.try_commit(version, commit, status);
    if (result == DeltaLog::CommitResult::kFailed) return std::nullopt;
    if (result == DeltaLog::CommitResult::kCommitted) {
      out.kind = ReplaceOutcome::Kind::kCommitted;
      out.version = version;
      snap->apply(commit);
      snap->version = version;
      out.follow_up = log.follow_up(*snap, r.log_retention, r.checkpoint_interval);
      return out;
    }
    // Lost the race for `version`: look at what the winners committed.
    auto latest = log.latest_version(status);
    if (!latest) return std::nullopt;
    for (int64_t v = version; v <= *latest; ++v) {
      auto theirs = log.read_commit(v, status);
      if (!theirs) return std::nullopt;
      for (const Txn& t : theirs->txns)
        if (t.app_id == r.txn.app_id && t.version >= r.txn.version) {
          out.kind = ReplaceOutcome::Kind::kAlreadyApplied;
          out.version = v;
          return out;
        }
      if (snap->version >= 0 && touches(r, *theirs)) {
        out.kind = ReplaceOutcome::Kind::kConflict;
        out.version = v;
        return out;
      }
      snap->apply(*theirs);
      snap->version = v;
    }
  }
  *status = util::Status::error("gave up after " + std::to_string(out.attempts) +
                                " attempts: other writers keep taking the next version");
  return std::nullopt;
}

}  // namespace ocppgw::delta
