// storage/charge_point_credentials.cpp: the charge_point_credentials table (see the header).
#include "storage/charge_point_credentials.hpp"

namespace ocppgw::storage {
namespace {

constexpr std::string_view kColumns =
    "SELECT charge_point_id, algorithm, iterations, salt_hex, derived_key_hex, updated_ms "
    "FROM charge_point_credentials";

ChargePointCredential read_row(const Statement& st) {
  return {st.text(0), st.text(1), st.int64(2), st.text(3), st.text(4), st.int64(5)};
}

}  // namespace

Status ChargePointCredentialStore::upsert(const ChargePointCredential& c) {
  if (c.charge_point_id.empty()) return Status::error("charge point id is empty");
  if (c.iterations <= 0 || c.salt_hex.empty() || c.derived_key_hex.empty())
    return Status::error("credential for " + c.charge_point_id + " is incomplete");
  return db_
      .cached(
          "INSERT INTO charge_point_credentials (charge_point_id, algorithm, iterations, "
          "salt_hex, derived_key_hex, updated_ms) VALUES (?, ?, ?, ?, ?, ?) "
          "ON CONFLICT (charge_point_id) DO UPDATE SET algorithm = excluded.algorithm, "
          "iterations = excluded.iterations, salt_hex = excluded.salt_hex, "
          "derived_key_hex = excluded.derived_key_hex, updated_ms = excluded.updated_ms")
      .bind(1, c.charge_point_id)
      .bind(2, c.algorithm)
      .bind(3, c.iterations)
      .bind(4, c.salt_hex)
      .bind(5, c.derived_key_hex)
      .bind(6, c.updated_ms)
      .run();
}

Status ChargePointCredentialStore::remove(std::string_view charge_point_id, bool* found) {
  Status s = db_.cached("DELETE FROM charge_point_credentials WHERE charge_point_id = ?")
                 .bind(1, charge_point_id)
                 .run();
  if (found) *found = s.ok() && db_.changes() > 0;
  return s;
}

std::optional<ChargePointCredential> ChargePointCredentialStore::find(
    std::string_view charge_point_id, Status* status) {
  static const std::string kSql = std::string(kColumns) + " WHERE charge_point_id = ?";
  return db_.query_one(kSql, read_row, status, charge_point_id);
}

std::vector<ChargePointCredential> ChargePointCredentialStore::list(Status* status) {
  static const std::string kSql = std::string(kColumns) + " ORDER BY charge_point_id";
  return db_.query_all(kSql, read_row, status);
}

std::vector<ChargePointCredential> ChargePointCredentialStore::list(std::string_view after_id,
                                                                    int64_t limit, Status* status) {
  static const std::string kSql =
      std::string(kColumns) + " WHERE charge_point_id > ?1 ORDER BY charge_point_id LIMIT ?2";
  return db_.query_all(kSql, read_row, status, after_id, limit);
}

}  // namespace ocppgw::storage
