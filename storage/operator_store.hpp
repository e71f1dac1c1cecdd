// storage/operator_store.hpp: the operators, operator_sessions and audit_log tables (migration
// 0004): accounts of the people using the REST API, their login sessions, and the audit log.
// Like storage/charge_point_credentials.hpp the store only persists what csms/operators computes
// (password hashes, SHA-256 of session tokens); it never sees a password or a token. An
// OperatorStore wraps one connection and is used by one thread at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/db.hpp"

namespace ocppgw::storage {

struct OperatorRecord {
  std::string name;
  std::string role;       // viewer | operator | admin (the table checks it)
  std::string algorithm;  // "pbkdf2-sha256"
  int64_t iterations = 0;
  std::string salt_hex;
  std::string derived_key_hex;
  int64_t created_ms = 0;
  int64_t updated_ms = 0;
};

struct OperatorSessionRecord {
  std::string token_sha256;  // hex
  std::string operator_name;
  std::string csrf_token;
  int64_t created_ms = 0;
  int64_t expires_ms = 0;
  std::string role;  // of the operator, read with the session (not a column of the session)
};

struct AuditRecord {
  int64_t id = 0;  // assigned by append()
  int64_t ts_ms = 0;
  std::string actor;
  std::string action;
  std::string target;
  std::string details = "{}";  // JSON object text
  std::string outcome;
};

class OperatorStore {
 public:
  explicit OperatorStore(Db& db) : db_(db) {}

  // ---- operators ----
  // Adds a new operator; *exists (when given) is set, and nothing written, if the name is taken.
  Status insert(const OperatorRecord& record, bool* exists = nullptr);
  // Replaces the password fields of `record.name` (and updated_ms).
  Status update_password(const OperatorRecord& record, bool* found = nullptr);
  Status update_role(std::string_view name, std::string_view role, int64_t updated_ms,
                     bool* found = nullptr);
  // Removes the operator and, by cascade, their sessions.
  Status remove(std::string_view name, bool* found = nullptr);
  std::optional<OperatorRecord> find(std::string_view name, Status* status = nullptr);
  // Every operator, ordered by name.
  std::vector<OperatorRecord> list(Status* status = nullptr);
  int64_t count(Status* status = nullptr);
  int64_t count_role(std::string_view role, Status* status = nullptr);

  // ---- sessions ----
  Status insert_session(const OperatorSessionRecord& session);
  // The session with this token hash, with its operator's current role.
  std::optional<OperatorSessionRecord> find_session(std::string_view token_sha256,
                                                    Status* status = nullptr);
  Status remove_session(std::string_view token_sha256, bool* found = nullptr);
  Status remove_sessions_of(std::string_view name);
  // Deletes sessions that expired before `before_ms`.
  Status purge_sessions(int64_t before_ms);

  // ---- audit log ----
  // Appends `record` (its id is ignored); *id (when given) is the new row's id.
  Status append_audit(const AuditRecord& record, int64_t* id = nullptr);
  // Newest first: up to `limit` rows with id < before_id (every row when before_id is nullopt).
  std::vector<AuditRecord> list_audit(std::optional<int64_t> before_id, int64_t limit,
                                      Status* status = nullptr);

 private:
  Db& db_;
};

}  // namespace ocppgw::storage
