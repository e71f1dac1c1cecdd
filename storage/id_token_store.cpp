// storage/id_token_store.cpp: the id_tokens table (see id_token_store.hpp).
#include "storage/id_token_store.hpp"

namespace ocppgw::storage {

bool is_stored_token_status(std::string_view status) {
  return status == "Accepted" || status == "Blocked" || status == "Expired" || status == "Invalid";
}

std::string effective_token_status(const IdTokenRecord& record, int64_t now_ms) {
  if (record.status == "Accepted" && record.expiry_ms && *record.expiry_ms <= now_ms)
    return "Expired";
  return record.status;
}

Status IdTokenStore::upsert(const IdTokenRecord& r) {
  if (!is_stored_token_status(r.status))
    return Status::error("invalid id token status '" + r.status +
                         "' (expected Accepted, Blocked, Expired or Invalid)");
  return db_
      .cached(
          "INSERT INTO id_tokens (id_token_hash, status, expiry_ms, parent_id, updated_ms) "
          "VALUES (?, ?, ?, ?, ?) ON CONFLICT (id_token_hash) DO UPDATE SET "
          "status = excluded.status, expiry_ms = excluded.expiry_ms, "
          "parent_id = excluded.parent_id, updated_ms = excluded.updated_ms")
      .bind(1, r.id_token_hash)
      .bind(2, r.status)
      .bind(3, r.expiry_ms)
      .bind(4, r.parent_id)
      .bind(5, r.updated_ms)
      .run();
}

Status IdTokenStore::set_status(std::string_view hash, std::string_view status, int64_t now_ms,
                                bool* found) {
  if (!is_stored_token_status(status))
    return Status::error("invalid id token status '" + std::string(status) + "'");
  Status s = db_.cached("UPDATE id_tokens SET status = ?, updated_ms = ? WHERE id_token_hash = ?")
                 .bind(1, status)
                 .bind(2, now_ms)
                 .bind(3, hash)
                 .run();
  if (found) *found = s.ok() && db_.changes() > 0;
  return s;
}

Status IdTokenStore::remove(std::string_view hash, bool* found) {
  Status s = db_.cached("DELETE FROM id_tokens WHERE id_token_hash = ?").bind(1, hash).run();
  if (found) *found = s.ok() && db_.changes() > 0;
  return s;
}

namespace {

constexpr std::string_view kColumns =
    "SELECT id_token_hash, status, expiry_ms, parent_id, updated_ms FROM id_tokens";

IdTokenRecord read_row(const Statement& st) {
  return {st.text(0), st.text(1), st.opt_int64(2), st.opt_text(3), st.int64(4)};
}

}  // namespace

std::optional<IdTokenRecord> IdTokenStore::find(std::string_view hash, Status* status) {
  static const std::string kSql = std::string(kColumns) + " WHERE id_token_hash = ?";
  return db_.query_one(kSql, read_row, status, hash);
}

std::vector<IdTokenRecord> IdTokenStore::list(Status* status) {
  static const std::string kSql = std::string(kColumns) + " ORDER BY id_token_hash";
  return db_.query_all(kSql, read_row, status);
}

std::vector<IdTokenRecord> IdTokenStore::list(std::string_view after_hash, int64_t limit,
                                              Status* status) {
  static const std::string kSql =
      std::string(kColumns) + " WHERE id_token_hash > ?1 ORDER BY id_token_hash LIMIT ?2";
  return db_.query_all(kSql, read_row, status, after_hash, limit);
}

}  // namespace ocppgw::storage
