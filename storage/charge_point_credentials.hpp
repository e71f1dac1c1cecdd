// storage/charge_point_credentials.hpp: the charge_point_credentials table, one HTTP Basic
// password hash per charge point id (OCPP security profiles 1 and 2). The store only persists
// what gateway/auth computes (algorithm, iterations, salt, derived key); it never sees a
// password. A ChargePointCredentialStore wraps one connection and is used by one thread at a
// time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/db.hpp"

namespace ocppgw::storage {

struct ChargePointCredential {
  std::string charge_point_id;
  std::string algorithm;  // "pbkdf2-sha256"
  int64_t iterations = 0;
  std::string salt_hex;
  std::string derived_key_hex;
  int64_t updated_ms = 0;
};

class ChargePointCredentialStore {
 public:
  explicit ChargePointCredentialStore(Db& db) : db_(db) {}

  // Adds or replaces the charge point's credential.
  Status upsert(const ChargePointCredential& credential);
  Status remove(std::string_view charge_point_id, bool* found = nullptr);
  std::optional<ChargePointCredential> find(std::string_view charge_point_id,
                                            Status* status = nullptr);
  // Every credential, ordered by charge point id.
  std::vector<ChargePointCredential> list(Status* status = nullptr);
  // A page of them: ids after `after_id` (empty: from the start), at most `limit`.
  std::vector<ChargePointCredential> list(std::string_view after_id, int64_t limit,
                                          Status* status = nullptr);

 private:
  Db& db_;
};

}  // namespace ocppgw::storage
