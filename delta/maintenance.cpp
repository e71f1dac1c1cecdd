// delta/maintenance.cpp
#include "delta/maintenance.hpp"

#include <functional>
#include <set>

#include "delta/fs.hpp"
#include "util/hex.hpp"
#include "util/time.hpp"

namespace ocppgw::delta {

namespace fs = std::filesystem;

namespace {

struct Committed {
  Snapshot after;  // the snapshot at the new version
};

// Prepares a commit on the newest snapshot and creates it as the next version; when another
// writer took that version first, prepares again on top (maintenance commits are computed
// from the current files, so a fresh preparation is all a retry needs).
std::optional<Committed> commit_on_top(
    const DeltaLog& log, const std::function<std::optional<Commit>(const Snapshot&)>& prepare,
    util::Status* status) {
  for (int attempt = 0; attempt < 10; ++attempt) {
    auto snap = log.snapshot(std::nullopt, status);
    if (!snap) return std::nullopt;
    if (snap->version < 0) {
      *status = util::Status::error(log.root().string() + " is not a Delta table (no commit)");
      return std::nullopt;
    }
    auto commit = prepare(*snap);
    if (!commit) return std::nullopt;
    commit->commit_info["readVersion"] = snap->version;
    const int64_t version = snap->version + 1;
    const auto result = log.try_commit(version, *commit, status);
    if (result == DeltaLog::CommitResult::kFailed) return std::nullopt;
    if (result == DeltaLog::CommitResult::kCommitted) {
      snap->apply(*commit);
      snap->version = version;
      return Committed{std::move(*snap)};
    }
  }
  *status = util::Status::error(
      "gave up after 10 attempts: other writers keep taking the next "
      "version of " +
      log.root().string());
  return std::nullopt;
}

nlohmann::json commit_info(const char* operation, nlohmann::json parameters,
                           nlohmann::json metrics) {
  // Readers parse operationParameters and operationMetrics as maps of strings.
  for (auto* j : {&parameters, &metrics})
    for (auto& [k, v] : j->items())
      if (!v.is_string()) v = v.dump();
  return {
      {"timestamp", util::now_ms()}, {"operation", operation}, {"operationParameters", parameters},
      {"operationMetrics", metrics}, {"isBlindAppend", false}, {"engineInfo", "ocppgw-delta"}};
}

}  // namespace

std::string decode_log_path(std::string_view uri) {
  std::string out;
  out.reserve(uri.size());
  for (size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] == '%' && i + 2 < uri.size()) {
      const int hi = util::hex_digit(uri[i + 1]), lo = util::hex_digit(uri[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    out += uri[i];
  }
  return out;
}

std::optional<nlohmann::json> history(const DeltaLog& log, std::optional<int64_t> limit,
                                      util::Status* status) {
  auto listing = log.list(status);
  if (!listing) return std::nullopt;
  nlohmann::json out = nlohmann::json::array();
  for (auto it = listing->commits.rbegin(); it != listing->commits.rend(); ++it) {
    if (limit && static_cast<int64_t>(out.size()) >= *limit) break;
    auto commit = log.read_commit(it->first, status);
    if (!commit) return std::nullopt;
    nlohmann::json entry = commit->commit_info;
    entry["version"] = it->first;
    if (auto ts = entry.find("timestamp"); ts != entry.end() && ts->is_number_integer())
      entry["time"] = util::format_rfc3339_ms(ts->get<int64_t>());
    entry["numAddedFiles"] = commit->adds.size();
    entry["numRemovedFiles"] = commit->removes.size();
    out.push_back(std::move(entry));
  }
  return out;
}

std::optional<RestoreOutcome> restore(const DeltaLog& log, int64_t version,
                                      std::chrono::milliseconds log_retention,
                                      util::Status* status) {
  auto old = log.snapshot(version, status);
  if (!old) return std::nullopt;
  // Every file of the old version must still be there: vacuum deletes removed files after the
  // retention, and a restore that named missing files would break every reader.
  for (const auto& [path, add] : old->files) {
    std::error_code ec;
    if (!fs::exists(log.root() / decode_log_path(path), ec)) {
      *status =
          util::Status::error("cannot restore version " + std::to_string(version) + ": its file " +
                              path + " is gone (vacuumed after the retention period)");
      return std::nullopt;
    }
  }
  RestoreOutcome out;
  out.restored_version = version;
  auto committed = commit_on_top(
      log,
      [&](const Snapshot& now) -> std::optional<Commit> {
        Commit c;
        const int64_t ts = util::now_ms();
        out.files_added = out.files_removed = 0;
        for (const auto& [path, add] : old->files)
          if (!now.files.count(path)) {
            AddFile a = add;
            a.data_change = true;
            a.modification_time = ts;
            c.adds.push_back(std::move(a));
            ++out.files_added;
          }
        for (const auto& [path, add] : now.files)
          if (!old->files.count(path)) {
            c.removes.push_back({path, ts, true, add.partition_values, add.size});
            ++out.files_removed;
          }
        if (old->metadata && now.metadata &&
            (old->metadata->schema_string != now.metadata->schema_string ||
             old->metadata->partition_columns != now.metadata->partition_columns))
          c.metadata = old->metadata;
        c.commit_info = commit_info(
            "RESTORE", {{"version", std::to_string(version)}},
            {{"numRestoredFiles", out.files_added}, {"numRemovedFiles", out.files_removed}});
        return c;
      },
      status);
  if (!committed) return std::nullopt;
  out.version = committed->after.version;
  out.follow_up = log.follow_up(committed->after, log_retention);
  return out;
}

std::optional<VacuumOutcome> vacuum(const DeltaLog& log, const VacuumOptions& options,
                                    util::Status* status) {
  auto snap = log.snapshot(std::nullopt, status);
  if (!snap) return std::nullopt;
  if (snap->version < 0) {
    *status = util::Status::error(log.root().string() + " is not a Delta table (no commit)");
    return std::nullopt;
  }
  std::set<std::string> live;
  for (const auto& [path, add] : snap->files) live.insert(decode_log_path(path));
  std::map<std::string, int64_t> removed_at;  // tombstoned file -> deletion timestamp
  for (const auto& [path, rm] : snap->tombstones)
    removed_at[decode_log_path(path)] = rm.deletion_timestamp;

  const int64_t cutoff_ms = util::now_ms() - options.retention.count();
  const auto cutoff_mtime = fs::file_time_type::clock::now() - options.retention;
  VacuumOutcome out;
  std::vector<fs::path> dirs;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(log.root(), ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.starts_with("_") || name.starts_with(".")) {
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    if (it->is_directory(ec)) {
      dirs.push_back(it->path());
      continue;
    }
    const std::string relative = it->path().lexically_relative(log.root()).generic_string();
    if (live.count(relative)) continue;
    auto tomb = removed_at.find(relative);
    // A removed file: by when it was removed. A file no commit names: by when it was written
    // (a writer between placing its files and committing them must not lose them).
    const bool expired = tomb != removed_at.end() ? tomb->second < cutoff_ms
                                                  : it->last_write_time(ec) < cutoff_mtime;
    if (!expired || ec) continue;
    const auto size = it->file_size(ec);
    if (!options.dry_run && !fs::remove(it->path(), ec)) continue;
    out.deleted.push_back(relative);
    out.bytes += static_cast<int64_t>(size);
  }
  if (ec) {
    *status = util::Status::error("listing " + log.root().string() + ": " + ec.message());
    return std::nullopt;
  }
  if (options.dry_run) return out;
  // Deepest first, so a partition folder left empty by the deletions goes too.
  for (auto d = dirs.rbegin(); d != dirs.rend(); ++d)
    if (fs::is_empty(*d, ec) && fs::remove(*d, ec)) ++out.directories_deleted;

  auto committed = commit_on_top(
      log,
      [&](const Snapshot&) -> std::optional<Commit> {
        Commit c;
        c.commit_info = commit_info("VACUUM END", {{"status", "COMPLETED"}},
                                    {{"numDeletedFiles", static_cast<int64_t>(out.deleted.size())},
                                     {"numVacuumedDirectories", out.directories_deleted}});
        c.commit_info["operationParameters"]["retentionHours"] = std::to_string(
            std::chrono::duration_cast<std::chrono::hours>(options.retention).count());
        return c;
      },
      status);
  if (!committed) return std::nullopt;
  out.version = committed->after.version;
  log.follow_up(committed->after, options.log_retention);
  return out;
}

}  // namespace ocppgw::delta
