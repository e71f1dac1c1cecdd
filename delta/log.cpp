// delta/log.cpp
#include "delta/log.hpp"

#include <charconv>

#include "delta/fs.hpp"

namespace ocppgw::delta {

using nlohmann::json;

std::string version_name(int64_t version) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%020lld", static_cast<long long>(version));
  return buf;
}

std::optional<int64_t> Snapshot::txn_version(const std::string& app_id) const {
  auto it = txns.find(app_id);
  if (it == txns.end()) return std::nullopt;
  return it->second.version;
}

void Snapshot::apply(const Commit& c) {
  if (c.protocol) protocol = *c.protocol;
  if (c.metadata) metadata = c.metadata;
  for (const Txn& t : c.txns) txns[t.app_id] = t;
  // Within one commit a path is removed and added at most once each; removes first, so a
  // commit that re-adds a path (a metadata update) keeps it live.
  for (const RemoveFile& r : c.removes) {
    files.erase(r.path);
    tombstones[r.path] = r;
  }
  for (const AddFile& a : c.adds) {
    tombstones.erase(a.path);
    files[a.path] = a;
  }
  if (auto ts = c.commit_info.find("timestamp");
      ts != c.commit_info.end() && ts->is_number_integer())
    latest_commit_timestamp = ts->get<int64_t>();
}

namespace {

json partition_json(const PartitionValues& values) {
  json out = json::object();
  for (const auto& [k, v] : values) out[k] = v ? json(*v) : json(nullptr);
  return out;
}

PartitionValues partition_from_json(const json& j) {
  PartitionValues out;
  if (!j.is_object()) return out;
  for (const auto& [k, v] : j.items())
    out[k] = v.is_string() ? std::optional<std::string>(v.get<std::string>()) : std::nullopt;
  return out;
}

template <typename T>
T value_or(const json& j, const char* key, T fallback) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  return it->get<T>();
}

std::map<std::string, std::string> string_map(const json& j) {
  std::map<std::string, std::string> out;
  if (!j.is_object()) return out;
  for (const auto& [k, v] : j.items())
    if (v.is_string()) out[k] = v.get<std::string>();
  return out;
}

}  // namespace

std::string serialize_commit(const Commit& c) {
  std::string out;
  auto line = [&out](const json& j) {
    out += j.dump();
    out += '\n';
  };
  // commitInfo first: readers that show history (Spark, delta-rs) read it from the first line.
  line({{"commitInfo", c.commit_info}});
  if (c.protocol)
    line({{"protocol",
           {{"minReaderVersion", c.protocol->min_reader_version},
            {"minWriterVersion", c.protocol->min_writer_version}}}});
  if (c.metadata) {
    const Metadata& m = *c.metadata;
    line({{"metaData",
           {{"id", m.id},
            {"name", m.name},
            {"format", {{"provider", "parquet"}, {"options", json::object()}}},
            {"schemaString", m.schema_string},
            {"partitionColumns", m.partition_columns},
            {"configuration", m.configuration},
            {"createdTime", m.created_time}}}});
  }
  for (const Txn& t : c.txns)
    line({{"txn", {{"appId", t.app_id}, {"version", t.version}, {"lastUpdated", t.last_updated}}}});
  for (const RemoveFile& r : c.removes)
    line({{"remove",
           {{"path", r.path},
            {"deletionTimestamp", r.deletion_timestamp},
            {"dataChange", r.data_change},
            {"extendedFileMetadata", true},
            {"partitionValues", partition_json(r.partition_values)},
            {"size", r.size}}}});
  for (const AddFile& a : c.adds) {
    json add = {{"path", a.path},
                {"partitionValues", partition_json(a.partition_values)},
                {"size", a.size},
                {"modificationTime", a.modification_time},
                {"dataChange", a.data_change},
                {"stats", a.stats}};
    if (!a.tags.empty()) add["tags"] = a.tags;
    line({{"add", add}});
  }
  return out;
}

void parse_action(const std::string& kind, const json& act, Commit& c) {
  if (kind == "add") {
    AddFile a;
    a.path = act.at("path").get<std::string>();
    a.partition_values = partition_from_json(value_or(act, "partitionValues", json::object()));
    a.size = value_or<int64_t>(act, "size", 0);
    a.modification_time = value_or<int64_t>(act, "modificationTime", 0);
    a.data_change = value_or<bool>(act, "dataChange", true);
    a.stats = value_or<std::string>(act, "stats", "");
    a.tags = string_map(value_or(act, "tags", json::object()));
    c.adds.push_back(std::move(a));
  } else if (kind == "remove") {
    RemoveFile r;
    r.path = act.at("path").get<std::string>();
    r.deletion_timestamp = value_or<int64_t>(act, "deletionTimestamp", 0);
    r.data_change = value_or<bool>(act, "dataChange", true);
    r.partition_values = partition_from_json(value_or(act, "partitionValues", json::object()));
    r.size = value_or<int64_t>(act, "size", 0);
    c.removes.push_back(std::move(r));
  } else if (kind == "txn") {
    c.txns.push_back({act.at("appId").get<std::string>(), act.at("version").get<int64_t>(),
                      value_or<int64_t>(act, "lastUpdated", 0)});
  } else if (kind == "metaData") {
    Metadata m;
    m.id = act.at("id").get<std::string>();
    m.name = value_or<std::string>(act, "name", "");
    m.schema_string = act.at("schemaString").get<std::string>();
    m.partition_columns = value_or<std::vector<std::string>>(act, "partitionColumns", {});
    m.configuration = string_map(value_or(act, "configuration", json::object()));
    m.created_time = value_or<int64_t>(act, "createdTime", 0);
    c.metadata = std::move(m);
  } else if (kind == "protocol") {
    c.protocol =
        Protocol{act.at("minReaderVersion").get<int>(), act.at("minWriterVersion").get<int>()};
  } else if (kind == "commitInfo") {
    c.commit_info = act;
  }
  // Other actions (cdc, domainMetadata, ...) do not change what this writer tracks.
}

std::optional<Commit> parse_commit(const std::string& text, util::Status* status) {
  Commit c;
  size_t pos = 0;
  try {
    while (pos < text.size()) {
      size_t end = text.find('\n', pos);
      if (end == std::string::npos) end = text.size();
      const std::string_view line(text.data() + pos, end - pos);
      pos = end + 1;
      if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
      const json j = json::parse(line);
      // Each line is one action: an object with a single key naming it.
      if (!j.is_object() || j.size() != 1) continue;
      parse_action(j.begin().key(), j.begin().value(), c);
    }
  } catch (const json::exception& e) {
    *status = util::Status::error(std::string("bad commit: ") + e.what());
    return std::nullopt;
  }
  return c;
}

DeltaLog::DeltaLog(std::filesystem::path table_root) : root_(std::move(table_root)) {}

std::filesystem::path DeltaLog::commit_path(int64_t version) const {
  return log_dir() / (version_name(version) + ".json");
}

namespace {

// "<20 digits>" at the start of `name`, followed by exactly `rest`'s shape; nullopt otherwise.
std::optional<int64_t> version_prefix(std::string_view name) {
  if (name.size() < 21 || name[20] != '.') return std::nullopt;
  int64_t v = 0;
  auto [ptr, err] = std::from_chars(name.data(), name.data() + 20, v);
  if (err != std::errc() || ptr != name.data() + 20) return std::nullopt;
  return v;
}

bool all_digits(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

}  // namespace

std::optional<LogListing> DeltaLog::list(util::Status* status) const {
  LogListing out;
  std::error_code ec;
  if (!std::filesystem::exists(log_dir(), ec)) return out;
  // Multi-part checkpoints: version -> (declared part count, parts found by number).
  std::map<int64_t, std::pair<int64_t, std::map<int64_t, std::filesystem::path>>> parts;
  for (const auto& entry : std::filesystem::directory_iterator(log_dir(), ec)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(".")) {
      out.temporary.push_back(entry.path());
      continue;
    }
    const auto v = version_prefix(name);
    if (!v) continue;
    const std::string_view rest = std::string_view(name).substr(20);
    if (rest == ".json") {
      out.commits[*v] = entry.path();
    } else if (rest == ".checkpoint.parquet") {
      out.checkpoints[*v] = {entry.path()};
    } else if (rest.starts_with(".checkpoint.") && rest.ends_with(".parquet") &&
               rest.size() == 12 + 10 + 1 + 10 + 8) {
      // <version>.checkpoint.<part>.<parts>.parquet, both 10 digits.
      const auto part = rest.substr(12, 10), count = rest.substr(23, 10);
      if (!all_digits(part) || !all_digits(count)) continue;
      auto& [declared, found] = parts[*v];
      declared = std::stoll(std::string(count));
      found[std::stoll(std::string(part))] = entry.path();
    }
  }
  if (ec) {
    *status = util::Status::error("listing " + log_dir().string() + ": " + ec.message());
    return std::nullopt;
  }
  for (auto& [v, p] : parts) {
    auto& [declared, found] = p;
    if (static_cast<int64_t>(found.size()) != declared || out.checkpoints.count(v)) continue;
    std::vector<std::filesystem::path> files;
    for (auto& [n, path] : found) files.push_back(path);
    out.checkpoints[v] = std::move(files);
  }
  return out;
}

std::optional<int64_t> DeltaLog::latest_version(util::Status* status) const {
  auto listing = list(status);
  if (!listing) return std::nullopt;
  return listing->commits.empty() ? -1 : listing->commits.rbegin()->first;
}

std::optional<int64_t> DeltaLog::oldest_version(util::Status* status) const {
  auto listing = list(status);
  if (!listing) return std::nullopt;
  if (listing->commits.empty()) return -1;
  // Version 0's commit, or else the oldest checkpoint: the log starts there after a clean-up.
  if (listing->commits.begin()->first == 0) return 0;
  return listing->checkpoints.empty() ? listing->commits.begin()->first
                                      : listing->checkpoints.begin()->first;
}

std::optional<Commit> DeltaLog::read_commit(int64_t version, util::Status* status) const {
  const std::string text = read_file(commit_path(version), status);
  if (!status->ok()) return std::nullopt;
  return parse_commit(text, status);
}

std::optional<Snapshot> DeltaLog::snapshot(std::optional<int64_t> version,
                                           util::Status* status) const {
  // The folder listing is authoritative on a POSIX file system, so _last_checkpoint (a hint
  // for object stores, where listing is slow) is written for other readers but not read here.
  auto listing = list(status);
  if (!listing) return std::nullopt;
  const int64_t latest = listing->commits.empty() ? -1 : listing->commits.rbegin()->first;
  const int64_t target = version.value_or(latest);
  if (target > latest || target < -1) {
    *status = util::Status::error("version " + std::to_string(target) + " does not exist (latest " +
                                  std::to_string(latest) + ")");
    return std::nullopt;
  }
  Snapshot snap;
  if (target < 0) return snap;
  // Start from the newest readable checkpoint at or below the target; an unreadable one (torn
  // by a foreign writer, say) falls back to the one before it, or to the JSON commits.
  int64_t next = 0;
  for (auto it = listing->checkpoints.upper_bound(target); it != listing->checkpoints.begin();) {
    --it;
    util::Status cs;
    auto actions = read_checkpoint(it->second, &cs);
    if (!actions) continue;
    snap.apply(*actions);
    snap.version = it->first;
    next = it->first + 1;
    break;
  }
  for (int64_t v = next; v <= target; ++v) {
    if (!listing->commits.count(v)) {
      *status = util::Status::error(
          "version " + std::to_string(target) + " of " + root_.string() +
          " cannot be read: the log from version " + std::to_string(v) +
          " is gone (older than the log retention and cleaned up, or never written)");
      return std::nullopt;
    }
    auto commit = read_commit(v, status);
    if (!commit) return std::nullopt;
    snap.apply(*commit);
    snap.version = v;
  }
  if (snap.protocol.min_writer_version > 2 || snap.protocol.min_reader_version > 1) {
    *status = util::Status::error(root_.string() + " needs reader " +
                                  std::to_string(snap.protocol.min_reader_version) + " / writer " +
                                  std::to_string(snap.protocol.min_writer_version) +
                                  "; this writer supports reader 1 / writer 2");
    return std::nullopt;
  }
  return snap;
}

std::optional<int64_t> DeltaLog::cleanup_expired_logs(std::chrono::milliseconds retention,
                                                      util::Status* status) const {
  auto listing = list(status);
  if (!listing) return std::nullopt;
  const auto now = std::filesystem::file_time_type::clock::now();
  const auto cutoff = now - retention;
  std::error_code ec;
  // The newest checkpoint below which every commit is expired. Versions from it on stay
  // readable; every version below it is older than the retention.
  int64_t keep_from = -1;
  auto commit = listing->commits.begin();
  for (const auto& [cp, files] : listing->checkpoints) {
    bool all_expired = true;
    for (; commit != listing->commits.end() && commit->first < cp; ++commit)
      if (std::filesystem::last_write_time(commit->second, ec) >= cutoff || ec) {
        all_expired = false;
        break;
      }
    if (!all_expired) break;
    keep_from = cp;
  }
  int64_t deleted = 0;
  auto remove = [&](const std::filesystem::path& p) {
    if (std::filesystem::remove(p, ec)) ++deleted;
    if (ec) *status = util::Status::error("deleting " + p.string() + ": " + ec.message());
    return !ec;
  };
  // Oldest first: a crash part-way leaves the checkpoint at keep_from and everything after it.
  for (const auto& [v, path] : listing->commits) {
    if (v >= keep_from) break;
    for (auto cp = listing->checkpoints.find(v); cp != listing->checkpoints.end() && cp->first == v;
         ++cp)
      for (const auto& part : cp->second)
        if (!remove(part)) return std::nullopt;
    if (!remove(path)) return std::nullopt;
  }
  for (const auto& [v, cp_parts] : listing->checkpoints) {
    if (v >= keep_from) break;
    for (const auto& part : cp_parts)
      if (std::filesystem::exists(part, ec) && !remove(part)) return std::nullopt;
  }
  // No writer takes an hour over one file: older hidden files are leftovers of a crash.
  for (const auto& tmp : listing->temporary)
    if (std::filesystem::last_write_time(tmp, ec) < now - std::chrono::hours(1) && !ec) remove(tmp);
  return deleted;
}

CommitFollowUp DeltaLog::follow_up(const Snapshot& after, std::chrono::milliseconds log_retention,
                                   int64_t checkpoint_interval) const {
  CommitFollowUp out;
  if (checkpoint_interval <= 0 || after.version <= 0 || after.version % checkpoint_interval != 0)
    return out;
  if (const util::Status cs = write_checkpoint(after); !cs.ok()) {
    out.checkpoint_error = cs.message();
    return out;
  }
  out.checkpointed = true;
  // Clean-up only after a new checkpoint: that is when older files can become unneeded.
  util::Status s;
  if (auto n = cleanup_expired_logs(log_retention, &s)) out.log_files_deleted = *n;
  if (!s.ok()) out.cleanup_error = s.message();
  return out;
}

DeltaLog::CommitResult DeltaLog::try_commit(int64_t version, const Commit& commit,
                                            util::Status* status) const {
  std::error_code ec;
  std::filesystem::create_directories(log_dir(), ec);
  if (ec) {
    *status = util::Status::error("creating " + log_dir().string() + ": " + ec.message());
    return CommitResult::kFailed;
  }
  util::Status s;
  const auto result = create_exclusive(commit_path(version), serialize_commit(commit), &s);
  if (!s.ok()) {
    *status = s;
    return CommitResult::kFailed;
  }
  return result == CreateResult::kCreated ? CommitResult::kCommitted : CommitResult::kVersionTaken;
}

}  // namespace ocppgw::delta
