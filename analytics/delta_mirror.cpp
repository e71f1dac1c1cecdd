// analytics/delta_mirror.cpp
#include "analytics/delta_mirror.hpp"

#include <map>
#include <set>

#include <openssl/evp.h>

#include "analytics/delta_staging.hpp"
#include "analytics/delta_tables.hpp"
#include "delta/data_file.hpp"
#include "delta/fs.hpp"
#include "delta/maintenance.hpp"
#include "delta/replace_partitions.hpp"
#include "storage/db.hpp"
#include "util/hex.hpp"
#include "util/time.hpp"

namespace ocppgw::analytics {

namespace fs = std::filesystem;
using util::Status;

namespace {

// The add action tag carrying the fingerprint of the partition's rows when it was written.
constexpr const char* kFingerprintTag = "ocppgw.partitionFingerprint";

// SHA-256 over the rows of one partition, each value with a type tag so that NULL, 0 and ""
// differ, hashed as its typed bytes. Rows arrive in the table's ORDER BY, so equal content gives an
// equal fingerprint.
class Fingerprint {
 public:
  Fingerprint() : ctx_(EVP_MD_CTX_new()) { EVP_DigestInit_ex(ctx_, EVP_sha256(), nullptr); }
  ~Fingerprint() { EVP_MD_CTX_free(ctx_); }
  Fingerprint(Fingerprint&& o) noexcept : ctx_(o.ctx_) { o.ctx_ = nullptr; }
  Fingerprint(const Fingerprint&) = delete;
  Fingerprint& operator=(const Fingerprint&) = delete;
  Fingerprint& operator=(Fingerprint&&) = delete;

  void add(const storage::Statement& st, int column, delta::ColumnType type) {
    if (st.is_null(column)) return feed('N', "", 0);
    switch (type) {
      case delta::ColumnType::kDouble: {
        const double v = st.real(column);  // all bits: text would round to 15 digits
        return feed('D', reinterpret_cast<const char*>(&v), sizeof v);
      }
      case delta::ColumnType::kString: {
        const std::string_view text = st.text_view(column);
        return feed('S', text.data(), text.size());
      }
      default: {
        const int64_t v = st.int64(column);
        return feed('I', reinterpret_cast<const char*>(&v), sizeof v);
      }
    }
  }
  std::string hex() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_DigestFinal_ex(ctx_, digest, &n);
    return util::to_hex(digest, n);
  }

 private:
  void feed(char tag, const char* data, size_t n) {
    const uint64_t len = n;
    EVP_DigestUpdate(ctx_, &tag, 1);
    EVP_DigestUpdate(ctx_, &len, sizeof len);
    EVP_DigestUpdate(ctx_, data, n);
  }
  EVP_MD_CTX* ctx_;
};

struct PartitionState {
  int64_t rows = 0;
  Fingerprint fingerprint;
  std::string hex;
};

// Hive-style folder name of a partition value: characters outside [A-Za-z0-9._-] are
// %XX-escaped (dates need none). The log path is the URI form of the file path, so the '%'
// of an escape is itself encoded there.
std::string escape_partition_value(const std::string& v) {
  std::string out;
  for (unsigned char c : v) {
    if (std::isalnum(c) || c == '.' || c == '_' || c == '-') {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

std::string uri_path(const std::string& path) {
  std::string out;
  for (char c : path) out += c == '%' ? std::string("%25") : std::string(1, c);
  return out;
}

void append_value(delta::DataFileBuilder& b, size_t i, const delta::Column& col,
                  const storage::Statement& st, int sql_col) {
  if (st.is_null(sql_col)) return b.append_null(i);
  switch (col.type) {
    case delta::ColumnType::kLong:
      return b.append_long(i, st.int64(sql_col));
    case delta::ColumnType::kDouble:
      return b.append_double(i, st.real(sql_col));
    case delta::ColumnType::kString:
      return b.append_string(i, st.text_view(sql_col));
    case delta::ColumnType::kBoolean:
      return b.append_bool(i, st.int64(sql_col) != 0);
    case delta::ColumnType::kTimestamp:
      return b.append_timestamp_ms(i, st.int64(sql_col));
    case delta::ColumnType::kDate:
      // Data columns of type date are stored as SQLite integers (days since the epoch).
      return b.append_date(i, static_cast<int32_t>(st.int64(sql_col)));
  }
}

class TableCycle {
 public:
  TableCycle(const MirroredTable& table, const DeltaMirrorOptions& options, storage::Db& db,
             int64_t batch_seq)
      : table_(table),
        options_(options),
        db_(db),
        batch_seq_(batch_seq),
        log_(options.root / table.name),
        data_columns_(table.schema.data_columns()),
        partitioned_(!table.schema.partition_columns.empty()) {
    report_.table = table.name;
  }

  // Write and audit: reads the Delta table and the snapshot, stages the changed partitions
  // and audits them. true when there is something to commit (then publish() does it).
  bool prepare(int64_t* rows_read) {
    clean_staging(log_, options_.staging_retention);
    Status s;
    auto snap = log_.snapshot(std::nullopt, &s);
    if (!snap) return failed("reading the Delta log: " + s.message());
    if (auto done = snap->txn_version(options_.app_id); done && *done >= batch_seq_) {
      report_.outcome = TableCycleReport::Outcome::kAlreadyApplied;
      report_.version = snap->version;
      return false;
    }
    if (!fingerprint_source(rows_read, &s))
      return failed("reading " + table_.name + ": " + s.message());
    changed_ = changed_partitions(*snap);
    if (changed_.empty() && snap->version >= 0) return false;  // kUnchanged

    staging_ = std::make_unique<StagingDir>(log_.root() / kStagingDir / delta::random_uuid());
    if (s = staging_->create(); !s.ok()) return failed("staging: " + s.message());
    if (!stage(&s)) return failed("staging: " + s.message());
    if (std::string problem = audit(); !problem.empty()) return audit_failed(problem);
    return true;
  }

  // The audit of the whole snapshot failed (the conservation law): nothing is published.
  void fail_audit(const std::string& problem) { audit_failed(problem); }

  // Publish: moves the audited files into place and commits them; the staging folder goes.
  TableCycleReport publish() {
    TableCycleReport r = commit();
    staging_->remove();
    return r;
  }

  const TableCycleReport& report() const { return report_; }

 private:
  struct Staged {
    std::string partition;  // value ("" for a whole table)
    fs::path relative;      // partition folder / file name, under the table root
    delta::WrittenFile file;
  };

  bool failed(std::string why) {
    report_.outcome = TableCycleReport::Outcome::kFailed;
    report_.detail = std::move(why);
    return false;
  }
  bool audit_failed(const std::string& problem) {
    report_.outcome = TableCycleReport::Outcome::kAuditFailed;
    report_.detail = problem;
    if (staging_) {
      staging_->mark_audit_failed();
      report_.detail += " (staged files kept in " + staging_->path().string() + ")";
    }
    return false;
  }

  delta::PartitionValues partition_values(const std::string& value) const {
    if (!partitioned_) return {};
    return {{table_.schema.partition_columns[0], value}};
  }

  bool fingerprint_source(int64_t* rows_read, Status* status) {
    storage::Statement st = db_.prepare(table_.select_sql, status);
    if (!st) return false;
    const int ncols = static_cast<int>(data_columns_.size()) + 1;
    while (st.step()) {
      const std::string part = partitioned_ ? st.text(0) : std::string();
      PartitionState& p = source_[part];
      ++p.rows;
      for (int c = 1; c < ncols; ++c)
        p.fingerprint.add(st, c, data_columns_[static_cast<size_t>(c - 1)].type);
      ++*rows_read;
    }
    if (!st.status().ok()) {
      *status = st.status();
      return false;
    }
    for (auto& [part, p] : source_) p.hex = p.fingerprint.hex();
    return true;
  }

  // Partitions whose rows differ from what the Delta table holds, including partitions that
  // are gone from the source (replaced by nothing).
  std::set<std::string> changed_partitions(const delta::Snapshot& snap) const {
    std::map<std::string, std::set<std::string>> in_delta;  // partition -> fingerprints
    for (const auto& [path, f] : snap.files) {
      std::string part;
      if (partitioned_) {
        auto it = f.partition_values.find(table_.schema.partition_columns[0]);
        part = (it != f.partition_values.end() && it->second) ? *it->second : std::string();
      }
      auto tag = f.tags.find(kFingerprintTag);
      // A file written by someone else (no tag) makes the partition's content unknown.
      in_delta[part].insert(tag == f.tags.end() ? std::string("?") : tag->second);
    }
    std::set<std::string> changed;
    for (const auto& [part, p] : source_) {
      auto it = in_delta.find(part);
      if (it == in_delta.end() || it->second != std::set<std::string>{p.hex}) changed.insert(part);
    }
    for (const auto& [part, fps] : in_delta)
      if (!source_.count(part)) changed.insert(part);
    // An empty whole table still needs its (empty) Delta table to exist.
    if (!partitioned_ && source_.empty() && snap.version < 0) changed.insert("");
    return changed;
  }

  // Second pass over the same snapshot: the rows of the changed partitions, one file each.
  bool stage(Status* status) {
    const std::set<std::string>& changed = changed_;
    const fs::path& staging = staging_->path();
    std::vector<Staged>* out = &staged_;
    storage::Statement st = db_.prepare(table_.select_sql, status);
    if (!st) return false;
    delta::DataFileBuilder builder(data_columns_);
    std::string current;
    bool have_current = false;
    bool injected = options_.inject_duplicate_row_in != table_.name;
    auto flush = [&]() -> bool {
      if (!have_current) return true;
      const std::string dir =
          partitioned_ ? table_.schema.partition_columns[0] + "=" + escape_partition_value(current)
                       : std::string();
      const std::string name = "part-00000-" + delta::random_uuid() + ".c000.zstd.parquet";
      const fs::path relative = dir.empty() ? fs::path(name) : fs::path(dir) / name;
      std::error_code ec;
      fs::create_directories((staging / relative).parent_path(), ec);
      if (ec) {
        *status = Status::error("creating " + (staging / relative).parent_path().string() + ": " +
                                ec.message());
        return false;
      }
      auto written = builder.write(staging / relative, {options_.rows_per_row_group}, status);
      if (!written) return false;
      out->push_back({current, relative, std::move(*written)});
      return true;
    };
    const int ncols = static_cast<int>(data_columns_.size());
    while (st.step()) {
      const std::string part = partitioned_ ? st.text(0) : std::string();
      if (!changed.count(part)) continue;
      if (!have_current || part != current) {
        if (!flush()) return false;
        current = part;
        have_current = true;
      }
      const int copies = injected ? 1 : 2;
      injected = true;
      for (int k = 0; k < copies; ++k)
        for (int c = 0; c < ncols; ++c)
          append_value(builder, static_cast<size_t>(c), data_columns_[static_cast<size_t>(c)], st,
                       c + 1);
    }
    if (!st.status().ok()) {
      *status = st.status();
      return false;
    }
    return flush();
  }

  // Reads the staged files back and checks them against the snapshot. "" when they pass.
  std::string audit() {
    const std::set<std::string>& changed = changed_;
    const fs::path& staging = staging_->path();
    const std::vector<Staged>& staged = staged_;
    std::map<std::string, int64_t> rows;
    std::set<std::string> keys;
    for (const Staged& f : staged) {
      Status s;
      auto scan = delta::scan_data_file(staging / f.relative, table_.key_columns, &s);
      if (!scan) return "cannot read back " + f.relative.string() + ": " + s.message();
      rows[f.partition] += scan->rows;
      for (size_t c = 0; c < scan->column_names.size(); ++c) {
        const delta::Column* col = table_.schema.find(scan->column_names[c]);
        if (col && !col->nullable && scan->null_counts[c] > 0)
          return "required column " + col->name + " has " + std::to_string(scan->null_counts[c]) +
                 " null(s) in partition '" + f.partition + "'";
      }
      for (const std::string& k : scan->keys)
        if (!keys.insert(f.partition + '\x1d' + k).second)
          return "duplicate primary key (" + join_keys() + ") in partition '" + f.partition + "'";
    }
    for (const std::string& part : changed) {
      auto src = source_.find(part);
      const int64_t expected = src == source_.end() ? 0 : src->second.rows;
      const int64_t got = rows.count(part) ? rows[part] : 0;
      if (got != expected)
        return "partition '" + part + "' staged " + std::to_string(got) +
               " rows, the snapshot has " + std::to_string(expected);
    }
    return "";
  }

  std::string join_keys() const {
    std::string out;
    for (const auto& k : table_.key_columns) out += (out.empty() ? "" : ", ") + k;
    return out;
  }

  TableCycleReport commit() {
    // Move the audited files into their partition folders (same file system: atomic renames),
    // then commit. The manifest written first lets the next cycle delete what a crash in
    // between leaves in the table (clean_staging).
    const fs::path& staging = staging_->path();
    std::vector<fs::path> relative;
    for (const Staged& f : staged_) relative.push_back(f.relative);
    if (Status s = staging_->write_manifest(relative); !s.ok()) {
      failed("writing the staging manifest: " + s.message());
      return report_;
    }
    std::vector<fs::path> placed;
    std::error_code ec;
    delta::ReplacePartitions request;
    request.table_name = table_.name;
    request.schema = table_.schema;
    request.txn = {options_.app_id, batch_seq_, 0};
    request.operation_parameters = {{"analyticsBatchSeq", std::to_string(batch_seq_)}};
    request.log_retention = options_.log_retention;
    request.checkpoint_interval = options_.checkpoint_interval;
    const int64_t now = util::now_ms();
    for (const Staged& f : staged_) {
      const fs::path target = log_.root() / f.relative;
      fs::create_directories(target.parent_path(), ec);
      fs::rename(staging / f.relative, target, ec);
      if (ec) {
        failed("moving " + f.relative.string() + " into place: " + ec.message());
        return report_;
      }
      placed.push_back(target);
      delta::AddFile add;
      add.path = uri_path(f.relative.generic_string());
      add.partition_values = partition_values(f.partition);
      add.size = f.file.size;
      add.modification_time = now;
      add.stats = f.file.stats.dump();
      add.tags[kFingerprintTag] = source_.at(f.partition).hex;
      request.adds.push_back(std::move(add));
      report_.rows_written += f.file.rows;
    }
    for (const std::string& part : changed_) request.partitions.insert(partition_values(part));
    delta::fault_point("placed", table_.name);

    Status s;
    auto outcome = delta::replace_partitions(log_, request, &s);
    if (!outcome) {
      // Whether the commit file exists is unknown only if the write itself failed; the next
      // cycle's clean-up decides by the log which placed files to delete.
      report_.rows_written = 0;
      failed("commit: " + s.message());
      return report_;
    }
    report_.version = outcome->version;
    switch (outcome->kind) {
      case delta::ReplaceOutcome::Kind::kCommitted:
        report_.outcome = TableCycleReport::Outcome::kCommitted;
        report_.partitions_replaced = static_cast<int64_t>(changed_.size());
        report_.files_added = static_cast<int64_t>(staged_.size());
        report_.files_removed = outcome->removed_files;
        report_.checkpointed = outcome->follow_up.checkpointed;
        report_.log_files_deleted = outcome->follow_up.log_files_deleted;
        if (!outcome->follow_up.checkpoint_error.empty())
          report_.detail = "checkpoint not written: " + outcome->follow_up.checkpoint_error;
        if (!outcome->follow_up.cleanup_error.empty())
          report_.detail = "log clean-up: " + outcome->follow_up.cleanup_error;
        delta::fault_point("committed", table_.name);
        return report_;
      case delta::ReplaceOutcome::Kind::kAlreadyApplied:
        report_.outcome = TableCycleReport::Outcome::kAlreadyApplied;
        break;
      case delta::ReplaceOutcome::Kind::kConflict:
        report_.outcome = TableCycleReport::Outcome::kConflict;
        report_.detail = "another writer changed these partitions; retried next cycle";
        break;
    }
    // Not committed: the placed files are referenced by no version.
    report_.rows_written = 0;
    for (const auto& p : placed) fs::remove(p, ec);
    return report_;
  }

  const MirroredTable& table_;
  const DeltaMirrorOptions& options_;
  storage::Db& db_;
  int64_t batch_seq_;
  delta::DeltaLog log_;
  std::vector<delta::Column> data_columns_;
  bool partitioned_;
  std::map<std::string, PartitionState> source_;
  std::set<std::string> changed_;
  std::unique_ptr<StagingDir> staging_;
  std::vector<Staged> staged_;
  TableCycleReport report_;
};

// The conservation law of the snapshot (docs/analytics_rules.md): every raw event the pipeline
// took in is in exactly one of silver_events, duplicate_events_audit and quarantine_events.
// Counted in the cycle's read transaction, so the mirrored tables are complete exactly when
// it holds. "" when it does.
std::string conservation_problem(storage::Db& db) {
  Status s;
  auto count = [&](const char* sql) {
    return db
        .query_one(
            sql, [](const storage::Statement& st) { return st.int64(0); }, &s)
        .value_or(-1);
  };
  const int64_t raw = count("SELECT value FROM pipeline_state WHERE key = 'raw_total'");
  const int64_t silver = count("SELECT COUNT(*) FROM silver_events");
  const int64_t duplicates = count("SELECT COUNT(*) FROM duplicate_events_audit");
  const int64_t quarantine = count("SELECT COUNT(*) FROM quarantine_events");
  if (!s.ok()) return "conservation law not checked: " + s.message();
  if (raw < 0) return "";  // no batch yet: nothing was taken in
  if (raw == silver + duplicates + quarantine) return "";
  return "conservation law violated in the snapshot: raw " + std::to_string(raw) + " != silver " +
         std::to_string(silver) + " + duplicates " + std::to_string(duplicates) + " + quarantine " +
         std::to_string(quarantine);
}

}  // namespace

const char* to_string(TableCycleReport::Outcome o) {
  switch (o) {
    case TableCycleReport::Outcome::kUnchanged:
      return "unchanged";
    case TableCycleReport::Outcome::kCommitted:
      return "committed";
    case TableCycleReport::Outcome::kAlreadyApplied:
      return "already_applied";
    case TableCycleReport::Outcome::kConflict:
      return "conflict";
    case TableCycleReport::Outcome::kAuditFailed:
      return "audit_failed";
    case TableCycleReport::Outcome::kFailed:
      return "failed";
  }
  return "failed";
}

bool CycleReport::ok() const {
  for (const auto& t : tables)
    if (t.outcome == TableCycleReport::Outcome::kAuditFailed ||
        t.outcome == TableCycleReport::Outcome::kFailed)
      return false;
  return true;
}

nlohmann::json to_json(const CycleReport& r) {
  nlohmann::json tables = nlohmann::json::object();
  for (const auto& t : r.tables) {
    nlohmann::json j = {{"outcome", to_string(t.outcome)}, {"version", t.version}};
    if (t.outcome == TableCycleReport::Outcome::kCommitted) {
      j["partitions_replaced"] = t.partitions_replaced;
      j["files_added"] = t.files_added;
      j["files_removed"] = t.files_removed;
      j["rows_written"] = t.rows_written;
      j["checkpointed"] = t.checkpointed;
      if (t.log_files_deleted > 0) j["log_files_deleted"] = t.log_files_deleted;
    }
    if (!t.detail.empty()) j["detail"] = t.detail;
    tables[t.table] = std::move(j);
  }
  return {{"ok", r.ok()},
          {"analytics_batch_seq", r.snapshot_batch_seq},
          {"started_at", util::format_rfc3339_ms(r.started_at_ms)},
          {"duration_ms", r.duration_ms},
          {"rows_read", r.rows_read},
          {"rows_written", r.rows_written},
          {"tables", tables}};
}

DeltaMirror::DeltaMirror(DeltaMirrorOptions options) : options_(std::move(options)) {}

std::optional<CycleReport> DeltaMirror::run_cycle(Status* status) {
  CycleReport report;
  report.started_at_ms = util::now_ms();
  const auto t0 = std::chrono::steady_clock::now();
  storage::OpenOptions o;
  o.read_only = true;
  auto db = storage::Db::open(options_.analytics_db_path, o, status);
  if (!db) return std::nullopt;
  // One read transaction for every table: all of them mirror the same snapshot, and WAL lets
  // the pipeline keep committing meanwhile.
  if (auto s = db->exec("BEGIN"); !s.ok()) {
    *status = s;
    return std::nullopt;
  }
  Status s;
  auto seq = db->query_one(
      "SELECT value FROM pipeline_state WHERE key = 'batch_seq'",
      [](const storage::Statement& st) { return st.int64(0); }, &s);
  if (!s.ok()) {
    *status = Status::error("reading the analytics store: " + s.message());
    db->rollback();
    return std::nullopt;
  }
  report.snapshot_batch_seq = seq.value_or(0);
  // Write and audit every table first, publish only when all of the snapshot passed: a
  // violation of the conservation law means the snapshot itself is wrong, and no table of it
  // is published.
  std::vector<std::unique_ptr<TableCycle>> cycles;
  std::vector<TableCycle*> ready;
  for (const MirroredTable& table : mirrored_tables()) {
    cycles.push_back(std::make_unique<TableCycle>(table, options_, *db, report.snapshot_batch_seq));
    if (cycles.back()->prepare(&report.rows_read)) ready.push_back(cycles.back().get());
  }
  std::string conservation = ready.empty() ? "" : conservation_problem(*db);
  if (options_.inject_conservation_violation && !ready.empty())
    conservation = "conservation law violated in the snapshot (injected by a test)";
  if (!ready.empty() && conservation.empty()) delta::fault_point("staged");
  for (TableCycle* cycle : ready) {
    if (conservation.empty())
      cycle->publish();
    else
      cycle->fail_audit(conservation);
  }
  for (const auto& cycle : cycles) {
    report.tables.push_back(cycle->report());
    report.rows_written += cycle->report().rows_written;
  }
  db->rollback();  // read-only: nothing to keep
  report.duration_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
          .count();
  return report;
}

std::optional<delta::DeltaLog> DeltaMirror::table(const DeltaMirrorOptions& options,
                                                  const std::string& name, Status* status) {
  std::string names;
  for (const MirroredTable& t : mirrored_tables()) {
    if (t.name == name) return delta::DeltaLog(options.root / name);
    names += (names.empty() ? "" : ", ") + t.name;
  }
  *status = Status::error("no mirrored table '" + name + "' (the tables: " + names + ")");
  return std::nullopt;
}

nlohmann::json DeltaMirror::vacuum(const std::vector<std::string>& tables, bool dry_run) {
  std::vector<std::string> names = tables;
  if (names.empty())
    for (const MirroredTable& t : mirrored_tables()) names.push_back(t.name);
  nlohmann::json out = nlohmann::json::object();
  delta::VacuumOptions v;
  v.retention = options_.file_retention;
  v.log_retention = options_.log_retention;
  v.dry_run = dry_run;
  for (const std::string& name : names) {
    Status s;
    auto log = table(options_, name, &s);
    std::optional<delta::VacuumOutcome> done;
    if (log && log->latest_version(&s).value_or(-1) < 0) {
      out[name] = {{"skipped", "no Delta table yet"}};
      continue;
    }
    if (log) done = delta::vacuum(*log, v, &s);
    if (!done) {
      out[name] = {{"error", s.message()}};
      continue;
    }
    nlohmann::json j = {{"deleted_files", done->deleted.size()},
                        {"deleted_bytes", done->bytes},
                        {"deleted_directories", done->directories_deleted}};
    if (dry_run) j["would_delete"] = done->deleted;
    if (done->version >= 0) j["version"] = done->version;
    out[name] = std::move(j);
  }
  return out;
}

}  // namespace ocppgw::analytics
