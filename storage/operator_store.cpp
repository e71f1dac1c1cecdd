// storage/operator_store.cpp: the operators, operator_sessions and audit_log tables (see the
// header).
#include "storage/operator_store.hpp"

namespace ocppgw::storage {
namespace {

constexpr std::string_view kOperatorColumns =
    "SELECT name, role, algorithm, iterations, salt_hex, derived_key_hex, created_ms, updated_ms "
    "FROM operators";

OperatorRecord read_operator(const Statement& st) {
  return {st.text(0), st.text(1), st.text(2),  st.int64(3),
          st.text(4), st.text(5), st.int64(6), st.int64(7)};
}

OperatorSessionRecord read_session(const Statement& st) {
  return {st.text(0), st.text(1), st.text(2), st.int64(3), st.int64(4), st.text(5)};
}

AuditRecord read_audit(const Statement& st) {
  return {st.int64(0), st.int64(1), st.text(2), st.text(3), st.text(4), st.text(5), st.text(6)};
}

Status check_password_fields(const OperatorRecord& r) {
  if (r.name.empty()) return Status::error("operator name is empty");
  if (r.iterations <= 0 || r.salt_hex.empty() || r.derived_key_hex.empty())
    return Status::error("password hash for " + r.name + " is incomplete");
  return {};
}

// `found` from the row count of the statement just run.
Status with_found(Db& db, Status s, bool* found) {
  if (found) *found = s.ok() && db.changes() > 0;
  return s;
}

}  // namespace

Status OperatorStore::insert(const OperatorRecord& r, bool* exists) {
  if (auto s = check_password_fields(r); !s.ok()) return s;
  // DO NOTHING rather than a constraint error, so "taken" is told apart from a failed write.
  Status s = db_.cached(
                    "INSERT INTO operators (name, role, algorithm, iterations, salt_hex, "
                    "derived_key_hex, created_ms, updated_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (name) DO NOTHING")
                 .bind(1, r.name)
                 .bind(2, r.role)
                 .bind(3, r.algorithm)
                 .bind(4, r.iterations)
                 .bind(5, r.salt_hex)
                 .bind(6, r.derived_key_hex)
                 .bind(7, r.created_ms)
                 .bind(8, r.updated_ms)
                 .run();
  if (exists) *exists = s.ok() && db_.changes() == 0;
  return s;
}

Status OperatorStore::update_password(const OperatorRecord& r, bool* found) {
  if (auto s = check_password_fields(r); !s.ok()) return s;
  return with_found(db_,
                    db_.cached("UPDATE operators SET algorithm = ?, iterations = ?, salt_hex = ?, "
                               "derived_key_hex = ?, updated_ms = ? WHERE name = ?")
                        .bind(1, r.algorithm)
                        .bind(2, r.iterations)
                        .bind(3, r.salt_hex)
                        .bind(4, r.derived_key_hex)
                        .bind(5, r.updated_ms)
                        .bind(6, r.name)
                        .run(),
                    found);
}

Status OperatorStore::update_role(std::string_view name, std::string_view role, int64_t updated_ms,
                                  bool* found) {
  return with_found(db_,
                    db_.cached("UPDATE operators SET role = ?, updated_ms = ? WHERE name = ?")
                        .bind(1, role)
                        .bind(2, updated_ms)
                        .bind(3, name)
                        .run(),
                    found);
}

Status OperatorStore::remove(std::string_view name, bool* found) {
  return with_found(db_, db_.cached("DELETE FROM operators WHERE name = ?").bind(1, name).run(),
                    found);
}

std::optional<OperatorRecord> OperatorStore::find(std::string_view name, Status* status) {
  static const std::string kSql = std::string(kOperatorColumns) + " WHERE name = ?";
  return db_.query_one(kSql, read_operator, status, name);
}

std::vector<OperatorRecord> OperatorStore::list(Status* status) {
  static const std::string kSql = std::string(kOperatorColumns) + " ORDER BY name";
  return db_.query_all(kSql, read_operator, status);
}

int64_t OperatorStore::count(Status* status) {
  return db_
      .query_one(
          "SELECT COUNT(*) FROM operators", [](const Statement& st) { return st.int64(0); }, status)
      .value_or(0);
}

int64_t OperatorStore::count_role(std::string_view role, Status* status) {
  return db_
      .query_one(
          "SELECT COUNT(*) FROM operators WHERE role = ?",
          [](const Statement& st) { return st.int64(0); }, status, role)
      .value_or(0);
}

Status OperatorStore::insert_session(const OperatorSessionRecord& s) {
  return db_
      .cached(
          "INSERT INTO operator_sessions (token_sha256, operator_name, csrf_token, created_ms, "
          "expires_ms) VALUES (?, ?, ?, ?, ?)")
      .bind(1, s.token_sha256)
      .bind(2, s.operator_name)
      .bind(3, s.csrf_token)
      .bind(4, s.created_ms)
      .bind(5, s.expires_ms)
      .run();
}

std::optional<OperatorSessionRecord> OperatorStore::find_session(std::string_view token_sha256,
                                                                 Status* status) {
  // The role comes from the operator row, so a role change applies to open sessions at once.
  return db_.query_one(
      "SELECT s.token_sha256, s.operator_name, s.csrf_token, s.created_ms, s.expires_ms, o.role "
      "FROM operator_sessions s JOIN operators o ON o.name = s.operator_name "
      "WHERE s.token_sha256 = ?",
      read_session, status, token_sha256);
}

Status OperatorStore::remove_session(std::string_view token_sha256, bool* found) {
  return with_found(db_,
                    db_.cached("DELETE FROM operator_sessions WHERE token_sha256 = ?")
                        .bind(1, token_sha256)
                        .run(),
                    found);
}

Status OperatorStore::remove_sessions_of(std::string_view name) {
  return db_.cached("DELETE FROM operator_sessions WHERE operator_name = ?").bind(1, name).run();
}

Status OperatorStore::purge_sessions(int64_t before_ms) {
  return db_.cached("DELETE FROM operator_sessions WHERE expires_ms < ?").bind(1, before_ms).run();
}

Status OperatorStore::append_audit(const AuditRecord& r, int64_t* id) {
  Status s = db_.cached(
                    "INSERT INTO audit_log (ts_ms, actor, action, target, details, outcome) "
                    "VALUES (?, ?, ?, ?, ?, ?)")
                 .bind(1, r.ts_ms)
                 .bind(2, r.actor)
                 .bind(3, r.action)
                 .bind(4, r.target)
                 .bind(5, r.details.empty() ? std::string("{}") : r.details)
                 .bind(6, r.outcome)
                 .run();
  if (id) *id = s.ok() ? db_.last_insert_rowid() : 0;
  return s;
}

std::vector<AuditRecord> OperatorStore::list_audit(std::optional<int64_t> before_id, int64_t limit,
                                                   Status* status) {
  // One statement for both cases: a missing cursor reads from the newest row.
  return db_.query_all(
      "SELECT id, ts_ms, actor, action, target, details, outcome FROM audit_log "
      "WHERE id < ? ORDER BY id DESC LIMIT ?",
      read_audit, status, before_id.value_or(INT64_MAX), limit);
}

}  // namespace ocppgw::storage
