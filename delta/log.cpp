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
      const std::string& kind = j.begin().key();
      const json& act = j.begin().value();
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

std::optional<int64_t> DeltaLog::latest_version(util::Status* status) const {
  std::error_code ec;
  if (!std::filesystem::exists(log_dir(), ec)) return -1;
  int64_t latest = -1;
  for (const auto& entry : std::filesystem::directory_iterator(log_dir(), ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() != 25 || name.substr(20) != ".json") continue;
    int64_t v = 0;
    auto [ptr, err] = std::from_chars(name.data(), name.data() + 20, v);
    if (err == std::errc() && ptr == name.data() + 20) latest = std::max(latest, v);
  }
  if (ec) {
    *status = util::Status::error("listing " + log_dir().string() + ": " + ec.message());
    return std::nullopt;
  }
  return latest;
}

std::optional<Commit> DeltaLog::read_commit(int64_t version, util::Status* status) const {
  const std::string text = read_file(commit_path(version), status);
  if (!status->ok()) return std::nullopt;
  return parse_commit(text, status);
}

std::optional<Snapshot> DeltaLog::snapshot(std::optional<int64_t> version,
                                           util::Status* status) const {
  auto latest = latest_version(status);
  if (!latest) return std::nullopt;
  const int64_t target = version.value_or(*latest);
  if (target > *latest) {
    *status = util::Status::error("version " + std::to_string(target) + " does not exist");
    return std::nullopt;
  }
  // Replays every JSON commit: this writer keeps them all (log cleanup is not done yet, see
  // docs/delta.md), so the checkpoint is for other readers' speed, not needed here.
  Snapshot snap;
  for (int64_t v = 0; v <= target; ++v) {
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
