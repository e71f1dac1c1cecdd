// storage/db.hpp: a thin RAII layer over SQLite. One Db is one connection and is used by one
// thread at a time (the owner serialises access). Opened in WAL mode with synchronous=FULL so a
// committed transaction survives power loss: the ack-after-durable contract rests on this.
// Errors are values (Status), never exceptions, so a failed commit can be made sticky by the
// caller.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "util/status.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace ocppgw::storage {

// Storage reports failures with the code base's one Status type.
using util::Status;

using Value = std::variant<std::monostate, int64_t, double, std::string>;

class Statement {
 public:
  Statement() = default;
  Statement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  ~Statement();
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Parameters are 1-based as in SQLite.
  Statement& bind(int index, std::nullptr_t);
  Statement& bind(int index, int64_t v);
  Statement& bind(int index, int v) { return bind(index, static_cast<int64_t>(v)); }
  Statement& bind(int index, double v);
  Statement& bind(int index, std::string_view v);  // copied by SQLite (SQLITE_TRANSIENT)
  Statement& bind(int index, const char* v) { return bind(index, std::string_view(v)); }
  Statement& bind(int index, const std::string& v) { return bind(index, std::string_view(v)); }
  Statement& bind(int index, const Value& v);
  template <typename T>
  Statement& bind(int index, const std::optional<T>& v) {
    return v ? bind(index, *v) : bind(index, nullptr);
  }
  // Text that SQLite reads where it is (SQLITE_STATIC) instead of copying it. For the inserts
  // of every frame (the event sink, Silver): each copied column is a malloc, a memcpy and a
  // free, and Debian's SQLite has no lookaside to take the small ones (OMIT_LOOKASIDE). The
  // bytes must stay valid and unchanged until the statement is reset; run() resets, so within
  // one `bind(...).run()` expression anything qualifies, temporaries included.
  Statement& bind_borrowed(int index, std::string_view v);
  Statement& bind_borrowed(int index, const std::string& v) {
    return bind_borrowed(index, std::string_view(v));
  }
  Statement& bind_borrowed(int index, const std::optional<std::string>& v) {
    return v ? bind_borrowed(index, *v) : bind(index, nullptr);
  }

  // true: a row is available; false: done. Errors are reported through status().
  bool step();
  // Runs to completion (for INSERT/UPDATE/DDL) and resets; returns the outcome.
  Status run();
  void reset();  // ready for new bindings; clears the previous ones

  bool is_null(int col) const;
  int64_t int64(int col) const;
  double real(int col) const;
  std::string text(int col) const;
  std::string_view text_view(int col) const;  // valid until the next step/reset
  std::optional<int64_t> opt_int64(int col) const;
  std::optional<double> opt_real(int col) const;
  std::optional<std::string> opt_text(int col) const;

  const Status& status() const { return status_; }
  explicit operator bool() const { return stmt_ != nullptr; }

 private:
  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
  Status status_;
  Status prepare_error_;  // why an empty statement from Db::cached() is empty
  friend class Db;
};

struct OpenOptions {
  bool read_only = false;
  int busy_timeout_ms = 5000;
  // FULL: fsync on every commit (durable). NORMAL is only for read models and tests that
  // measure something else.
  bool synchronous_full = true;
};

class Db {
 public:
  static std::unique_ptr<Db> open(const std::string& path, const OpenOptions& options,
                                  Status* status);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  Status exec(std::string_view sql);  // one or more statements, no results
  // Prepared once per connection and cached by SQL text. The returned statement is reset.
  // If preparing fails, the statement is empty and its step()/run() report the error.
  Statement& cached(std::string_view sql);
  // As above, but nullptr with *status set when the SQL does not prepare (nothing is cached).
  Statement* cached(std::string_view sql, Status* status);
  Statement prepare(std::string_view sql, Status* status = nullptr);

  // A cached query's first row as `read` makes it (nullopt: no row), with `args` bound to ?1..?n;
  // *status (when given) is the query's outcome. The statement is reset afterwards.
  template <typename Read, typename... Args>
  auto query_one(std::string_view sql, Read read, Status* status, const Args&... args) {
    Statement& st = cached(sql);
    int index = 0;
    (st.bind(++index, args), ...);
    std::optional<decltype(read(st))> row;
    if (st.step()) row = read(st);
    if (status) *status = st.status();
    st.reset();
    return row;
  }
  // Every row of a cached query, as `read` makes them, with `args` bound to ?1..?n.
  template <typename Read, typename... Args>
  auto query_all(std::string_view sql, Read read, Status* status, const Args&... args) {
    Statement& st = cached(sql);
    [[maybe_unused]] int index = 0;  // unused when the query has no parameters
    (st.bind(++index, args), ...);
    std::vector<decltype(read(st))> rows;
    while (st.step()) rows.push_back(read(st));
    if (status) *status = st.status();
    st.reset();
    return rows;
  }

  Status begin_immediate() { return exec("BEGIN IMMEDIATE"); }
  Status commit() { return exec("COMMIT"); }
  void rollback();

  int64_t last_insert_rowid() const;
  int changes() const;
  sqlite3* handle() const { return db_; }
  const std::string& path() const { return path_; }

 private:
  Db(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_;
  std::string path_;
  struct SqlHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  // Transparent lookup: a cache hit does not copy the SQL text.
  std::unordered_map<std::string, Statement, SqlHash, std::equal_to<>> cache_;
};

// Applies `migrations` (name -> SQL, applied in name order, e.g. "0001_gateway") that are not yet
// recorded in the database's schema_migrations table, each in its own transaction.
// Idempotent; safe to call at every start. The gateway log and the analytics store are
// separate database files, each with its own migration set.
Status migrate(Db& db, const std::map<std::string_view, std::string_view>& migrations);

// Bytes SQLite holds in this process (page caches of every connection included); /health shows
// it so that memory per connection can be told apart from the bounded caches.
int64_t sqlite_memory_used();

}  // namespace ocppgw::storage
