// storage/id_token_store.hpp: the id-token (idTag / idToken) authorisation list, shared by
// OCPP 1.6 and 2.0.1. Tokens are keyed by their HMAC-SHA256 hash (analytics::hash_id_token with
// the configured secret): raw tokens are never stored. The parent id is the group id as the
// operator entered it, returned to charge points as parentIdTag / groupIdToken.
// An IdTokenStore wraps one connection and is used by one thread at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/db.hpp"

namespace ocppgw::storage {

struct IdTokenRecord {
  std::string id_token_hash;
  std::string status = "Accepted";  // Accepted | Blocked | Expired | Invalid
  std::optional<int64_t> expiry_ms;
  std::optional<std::string> parent_id;
  int64_t updated_ms = 0;
};

// True for the four statuses the list may hold.
bool is_stored_token_status(std::string_view status);

// The status a charge point is told: an Accepted token past its expiry is Expired.
std::string effective_token_status(const IdTokenRecord& record, int64_t now_ms);

class IdTokenStore {
 public:
  explicit IdTokenStore(Db& db) : db_(db) {}

  // Adds or replaces the token's row.
  Status upsert(const IdTokenRecord& record);
  // Sets the status of an existing token; *found tells whether it existed.
  Status set_status(std::string_view id_token_hash, std::string_view status, int64_t now_ms,
                    bool* found = nullptr);
  Status remove(std::string_view id_token_hash, bool* found = nullptr);
  std::optional<IdTokenRecord> find(std::string_view id_token_hash, Status* status = nullptr);
  std::vector<IdTokenRecord> list(Status* status = nullptr);
  // A page of the list ordered by hash: rows after `after_hash` (empty: from the start).
  std::vector<IdTokenRecord> list(std::string_view after_hash, int64_t limit,
                                  Status* status = nullptr);

 private:
  Db& db_;
};

}  // namespace ocppgw::storage
