// storage/db.cpp
#include "storage/db.hpp"

#include <malloc.h>
#include <sqlite3.h>

#include <atomic>
#include <cstdlib>

namespace ocppgw::storage {

namespace {

// SQLite's own memory statistics (SQLITE_CONFIG_MEMSTATUS, on by default) take a global mutex on
// every allocation, and SQLite allocates for most statements it steps: about a tenth of the
// analytics pipeline's time (`bench/analytics_bench`). The gateway only needs the total in use,
// so SQLite allocates through these functions, which keep it in one relaxed atomic counter.
std::atomic<int64_t> sqlite_bytes{0};

int64_t usable(void* p) { return static_cast<int64_t>(malloc_usable_size(p)); }

void* counted_malloc(int n) {
  void* p = std::malloc(static_cast<size_t>(n));
  if (p) sqlite_bytes.fetch_add(usable(p), std::memory_order_relaxed);
  return p;
}
void counted_free(void* p) {
  if (!p) return;
  sqlite_bytes.fetch_sub(usable(p), std::memory_order_relaxed);
  std::free(p);
}
void* counted_realloc(void* p, int n) {
  const int64_t old = p ? usable(p) : 0;
  void* q = std::realloc(p, static_cast<size_t>(n));
  if (q) sqlite_bytes.fetch_add(usable(q) - old, std::memory_order_relaxed);
  return q;
}
int counted_size(void* p) { return p ? static_cast<int>(usable(p)) : 0; }
int round_up(int n) { return (n + 7) & ~7; }
int mem_init(void*) { return SQLITE_OK; }
void mem_shutdown(void*) {}

// Must run before SQLite initialises (the first open); if something else initialised it first,
// SQLite refuses and keeps its own statistics, which sqlite_memory_used() then reports.
bool counting_allocator_installed() {
  static const bool installed = [] {
    static const sqlite3_mem_methods methods{counted_malloc, counted_free, counted_realloc,
                                             counted_size,   round_up,     mem_init,
                                             mem_shutdown,   nullptr};
    return sqlite3_config(SQLITE_CONFIG_MALLOC, &methods) == SQLITE_OK &&
           sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) == SQLITE_OK;
  }();
  return installed;
}

}  // namespace

Statement::~Statement() {
  if (stmt_) sqlite3_finalize(stmt_);
}

Statement::Statement(Statement&& o) noexcept
    : db_(o.db_),
      stmt_(o.stmt_),
      status_(std::move(o.status_)),
      prepare_error_(std::move(o.prepare_error_)) {
  o.stmt_ = nullptr;
}

Statement& Statement::operator=(Statement&& o) noexcept {
  if (this != &o) {
    if (stmt_) sqlite3_finalize(stmt_);
    db_ = o.db_;
    stmt_ = o.stmt_;
    status_ = std::move(o.status_);
    prepare_error_ = std::move(o.prepare_error_);
    o.stmt_ = nullptr;
  }
  return *this;
}

Statement& Statement::bind(int i, std::nullptr_t) {
  sqlite3_bind_null(stmt_, i);
  return *this;
}
Statement& Statement::bind(int i, int64_t v) {
  sqlite3_bind_int64(stmt_, i, v);
  return *this;
}
Statement& Statement::bind(int i, double v) {
  sqlite3_bind_double(stmt_, i, v);
  return *this;
}
Statement& Statement::bind(int i, std::string_view v) {
  sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  return *this;
}
Statement& Statement::bind_borrowed(int i, std::string_view v) {
  sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
  return *this;
}
Statement& Statement::bind(int i, const Value& v) {
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>)
          bind(i, nullptr);
        else
          bind(i, x);
      },
      v);
  return *this;
}

bool Statement::step() {
  if (!stmt_) {
    status_ = prepare_error_.ok() ? Status::error("statement not prepared") : prepare_error_;
    return false;
  }
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc != SQLITE_DONE)
    status_ = Status::error(std::string(sqlite3_errmsg(db_)) + " (" + sqlite3_errstr(rc) + ")");
  return false;
}

Status Statement::run() {
  status_ = Status();
  while (step()) {
  }
  Status s = status_;
  reset();
  return s;
}

void Statement::reset() {
  if (!stmt_) return;
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  status_ = Status();
}

bool Statement::is_null(int c) const { return sqlite3_column_type(stmt_, c) == SQLITE_NULL; }
int64_t Statement::int64(int c) const { return sqlite3_column_int64(stmt_, c); }
double Statement::real(int c) const { return sqlite3_column_double(stmt_, c); }
std::string Statement::text(int c) const { return std::string(text_view(c)); }
std::string_view Statement::text_view(int c) const {
  auto p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, c));
  return p ? std::string_view(p, static_cast<size_t>(sqlite3_column_bytes(stmt_, c)))
           : std::string_view();
}
std::optional<int64_t> Statement::opt_int64(int c) const {
  return is_null(c) ? std::nullopt : std::optional<int64_t>(int64(c));
}
std::optional<double> Statement::opt_real(int c) const {
  return is_null(c) ? std::nullopt : std::optional<double>(real(c));
}
std::optional<std::string> Statement::opt_text(int c) const {
  return is_null(c) ? std::nullopt : std::optional<std::string>(text(c));
}

std::unique_ptr<Db> Db::open(const std::string& path, const OpenOptions& options, Status* status) {
  counting_allocator_installed();
  sqlite3* handle = nullptr;
  int flags =
      options.read_only ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  flags |= SQLITE_OPEN_NOMUTEX;  // one thread at a time per connection, by contract
  int rc = sqlite3_open_v2(path.c_str(), &handle, flags, nullptr);
  if (rc != SQLITE_OK) {
    if (status)
      *status = Status::error("cannot open " + path + ": " +
                              (handle ? sqlite3_errmsg(handle) : sqlite3_errstr(rc)));
    sqlite3_close(handle);
    return nullptr;
  }
  std::unique_ptr<Db> db(new Db(handle, path));
  sqlite3_busy_timeout(handle, options.busy_timeout_ms);
  Status s = db->exec(options.read_only ? "PRAGMA query_only=1"
                                        : "PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON");
  if (s.ok())
    s = db->exec(options.synchronous_full ? "PRAGMA synchronous=FULL"
                                          : "PRAGMA synchronous=NORMAL");
  if (!s.ok()) {
    if (status) *status = s;
    return nullptr;
  }
  if (status) *status = Status();
  return db;
}

Db::~Db() {
  cache_.clear();  // statements must be finalised before the connection closes
  sqlite3_close_v2(db_);
}

Status Db::exec(std::string_view sql) {
  char* err = nullptr;
  std::string text(sql);
  int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &err);
  if (rc == SQLITE_OK) return Status();
  std::string message = err ? err : sqlite3_errstr(rc);
  sqlite3_free(err);
  return Status::error(message);
}

Statement Db::prepare(std::string_view sql, Status* status) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                              SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) {
    if (status)
      *status = Status::error(std::string(sqlite3_errmsg(db_)) + " in: " + std::string(sql));
    return Statement();
  }
  if (status) *status = Status();
  return Statement(db_, stmt);
}

Statement& Db::cached(std::string_view sql) {
  Status s;
  if (Statement* st = cached(sql, &s)) return *st;
  // Not cached, so a later call retries the prepare; the caller sees the error on step().
  static thread_local Statement failed;
  failed = Statement();
  failed.prepare_error_ = s;
  return failed;
}

Statement* Db::cached(std::string_view sql, Status* status) {
  auto it = cache_.find(sql);
  if (it == cache_.end()) {
    Status s;
    Statement st = prepare(sql, &s);
    if (!s.ok()) {
      if (status) *status = s;
      return nullptr;
    }
    it = cache_.emplace(std::string(sql), std::move(st)).first;
  }
  it->second.reset();
  if (status) *status = Status();
  return &it->second;
}

void Db::rollback() { exec("ROLLBACK"); }

int64_t Db::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }
int Db::changes() const { return sqlite3_changes(db_); }

Status migrate(Db& db, const std::map<std::string_view, std::string_view>& migrations) {
  Status s = db.exec(
      "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_ms INTEGER "
      "NOT NULL)");
  if (!s.ok()) return Status::error("schema_migrations: " + s.message());
  // std::map iterates in name order. The "already applied?" check runs inside the migration's
  // own write transaction, so two processes migrating the same file cannot both apply it.
  for (const auto& [name, sql] : migrations) {
    s = db.begin_immediate();
    if (!s.ok()) return Status::error("migration " + std::string(name) + ": " + s.message());
    Statement& check = db.cached("SELECT 1 FROM schema_migrations WHERE name = ?");
    check.bind(1, name);
    bool applied = check.step();
    s = check.status();
    check.reset();
    if (s.ok() && !applied) s = db.exec(sql);
    if (s.ok() && !applied) {
      Statement& record = db.cached(
          "INSERT INTO schema_migrations (name, applied_ms) "
          "VALUES (?, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))");
      s = record.bind(1, name).run();
    }
    if (s.ok()) s = db.commit();
    if (!s.ok()) {
      db.rollback();
      return Status::error("migration " + std::string(name) + ": " + s.message());
    }
  }
  return Status();
}

int64_t sqlite_memory_used() {
  return counting_allocator_installed() ? sqlite_bytes.load(std::memory_order_relaxed)
                                        : sqlite3_memory_used();
}

}  // namespace ocppgw::storage
