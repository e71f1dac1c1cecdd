// analytics/delta_mirror.cpp
#include "analytics/delta_mirror.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <map>
#include <set>

#include <openssl/evp.h>

#include "analytics/delta_tables.hpp"
#include "delta/data_file.hpp"
#include "delta/fs.hpp"
#include "delta/replace_partitions.hpp"
#include "storage/db.hpp"
#include "util/hex.hpp"
#include "util/logging.hpp"
#include "util/time.hpp"

namespace ocppgw::analytics {

namespace fs = std::filesystem;
using util::Status;

namespace {

// The add action tag carrying the fingerprint of the partition's rows when it was written.
constexpr const char* kFingerprintTag = "ocppgw.partitionFingerprint";
constexpr const char* kStagingDir = "_staging";

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

// Deletes staging folders older than the retention (left by failed audits or crashes).
void clean_staging(const fs::path& table_root, std::chrono::seconds retention) {
  std::error_code ec;
  const fs::path staging = table_root / kStagingDir;
  if (!fs::exists(staging, ec)) return;
  const auto cutoff = fs::file_time_type::clock::now() - retention;
  for (const auto& entry : fs::directory_iterator(staging, ec))
    if (entry.last_write_time(ec) < cutoff) fs::remove_all(entry.path(), ec);
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

  TableCycleReport run(int64_t* rows_read) {
    clean_staging(log_.root(), options_.staging_retention);
    Status s;
    auto snap = log_.snapshot(std::nullopt, &s);
    if (!snap) return failed("reading the Delta log: " + s.message());
    if (auto done = snap->txn_version(options_.app_id); done && *done >= batch_seq_) {
      report_.outcome = TableCycleReport::Outcome::kAlreadyApplied;
      report_.version = snap->version;
      return report_;
    }
    if (!fingerprint_source(rows_read, &s))
      return failed("reading " + table_.name + ": " + s.message());
    const auto changed = changed_partitions(*snap);
    if (changed.empty() && snap->version >= 0) return report_;  // kUnchanged

    const fs::path staging = log_.root() / kStagingDir / delta::random_uuid();
    std::vector<Staged> staged;
    if (!stage(changed, staging, &staged, &s)) return failed("staging: " + s.message());
    if (std::string problem = audit(changed, staging, staged); !problem.empty()) {
      report_.outcome = TableCycleReport::Outcome::kAuditFailed;
      report_.detail = problem + " (staged files kept in " + staging.string() + ")";
      return report_;
    }
    return publish(changed, staging, staged);
  }

 private:
  struct Staged {
    std::string partition;  // value ("" for a whole table)
    fs::path relative;      // partition folder / file name, under the table root
    delta::WrittenFile file;
  };

  TableCycleReport failed(std::string why) {
    report_.outcome = TableCycleReport::Outcome::kFailed;
    report_.detail = std::move(why);
    return report_;
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
  bool stage(const std::set<std::string>& changed, const fs::path& staging,
             std::vector<Staged>* out, Status* status) {
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
  std::string audit(const std::set<std::string>& changed, const fs::path& staging,
                    const std::vector<Staged>& staged) {
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

  TableCycleReport publish(const std::set<std::string>& changed, const fs::path& staging,
                           const std::vector<Staged>& staged) {
    // Move the audited files into their partition folders (same file system: atomic renames),
    // then commit. A crash in between leaves unreferenced files only, which readers ignore.
    std::vector<fs::path> placed;
    std::error_code ec;
    delta::ReplacePartitions request;
    request.table_name = table_.name;
    request.schema = table_.schema;
    request.txn = {options_.app_id, batch_seq_, 0};
    request.operation_parameters = {{"analyticsBatchSeq", std::to_string(batch_seq_)}};
    const int64_t now = util::now_ms();
    for (const Staged& f : staged) {
      const fs::path target = log_.root() / f.relative;
      fs::create_directories(target.parent_path(), ec);
      fs::rename(staging / f.relative, target, ec);
      if (ec) return failed("moving " + f.relative.string() + " into place: " + ec.message());
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
    for (const std::string& part : changed) request.partitions.insert(partition_values(part));
    fs::remove_all(staging, ec);

    Status s;
    auto outcome = delta::replace_partitions(log_, request, &s);
    if (!outcome) return failed("commit: " + s.message());
    report_.version = outcome->version;
    switch (outcome->kind) {
      case delta::ReplaceOutcome::Kind::kCommitted:
        report_.outcome = TableCycleReport::Outcome::kCommitted;
        report_.partitions_replaced = static_cast<int64_t>(changed.size());
        report_.files_added = static_cast<int64_t>(staged.size());
        report_.files_removed = outcome->removed_files;
        report_.checkpointed = outcome->checkpointed;
        if (!outcome->checkpoint_error.empty())
          report_.detail = "checkpoint not written: " + outcome->checkpoint_error;
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
  TableCycleReport report_;
};

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
  for (const MirroredTable& table : mirrored_tables()) {
    TableCycle cycle(table, options_, *db, report.snapshot_batch_seq);
    report.tables.push_back(cycle.run(&report.rows_read));
    report.rows_written += report.tables.back().rows_written;
  }
  db->rollback();  // read-only: nothing to keep
  report.duration_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
          .count();
  return report;
}

DeltaMirrorWorker::DeltaMirrorWorker(DeltaMirrorOptions options, std::chrono::seconds interval,
                                     int nice)
    : mirror_(std::move(options)), interval_(interval), nice_(nice) {}

DeltaMirrorWorker::~DeltaMirrorWorker() { stop(); }

void DeltaMirrorWorker::start() {
  thread_ = std::thread([this] { run(); });
}

void DeltaMirrorWorker::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

nlohmann::json DeltaMirrorWorker::health() const {
  std::lock_guard lock(mutex_);
  nlohmann::json j = {{"cycles", cycles_},
                      {"failed_cycles", failed_cycles_},
                      {"audit_failures_total", audit_failures_},
                      {"interval_s", interval_.count()}};
  if (!last_cycle_.is_null()) j["last_cycle"] = last_cycle_;
  if (!tables_.empty()) j["tables"] = tables_;
  if (!alert_.empty()) j["alert"] = alert_;
  return j;
}

void DeltaMirrorWorker::run() {
  if (::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), nice_) != 0)
    log::warn("delta_mirror", "", {{"error", "could not lower the mirror thread's priority"}});
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (wake_.wait_for(lock, interval_, [this] { return stopping_; })) break;
    lock.unlock();
    Status s;
    auto report = mirror_.run_cycle(&s);
    lock.lock();
    ++cycles_;
    if (!report) {
      ++failed_cycles_;
      alert_ = "mirror cycle failed: " + s.message();
      log::warn("delta_mirror", "", {{"error", s.message()}});
      continue;
    }
    last_cycle_ = to_json(*report);
    alert_.clear();
    const std::string finished =
        util::format_rfc3339_ms(report->started_at_ms + report->duration_ms);
    for (const auto& t : report->tables) {
      nlohmann::json& table = tables_[t.table];
      table["outcome"] = to_string(t.outcome);
      if (t.version >= 0) table["version"] = t.version;
      if (t.outcome == TableCycleReport::Outcome::kCommitted) table["last_commit"] = finished;
      if (t.outcome == TableCycleReport::Outcome::kAuditFailed) ++audit_failures_;
      if (t.outcome == TableCycleReport::Outcome::kAuditFailed ||
          t.outcome == TableCycleReport::Outcome::kFailed) {
        alert_ +=
            (alert_.empty() ? "" : "; ") + t.table + ": " + to_string(t.outcome) + ": " + t.detail;
      }
    }
    if (!report->ok()) {
      ++failed_cycles_;
      log::warn("delta_mirror", "", {{"alert", alert_}});
    }
  }
}

}  // namespace ocppgw::analytics
