// csms/token_admin.hpp: the id-token list as operators change it, the one implementation behind
// `ocppgw tokens` and the REST API's /api/v1/id-tokens. Raw tags come in and are hashed with the
// id token secret (analytics::hash_id_token) before they touch the database; only hashes are
// stored or listed.
//
// The gateway reads the list at every Authorize (csms/sqlite_csms_state.cpp keeps no token
// cache), so a change applies to live connections at their next Authorize, without a restart,
// whether it came from the API or from the command line on the same data folder.
// Threading: a TokenAdmin works on one connection; use it from one thread at a time.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "csms/admin_result.hpp"
#include "storage/db.hpp"
#include "storage/id_token_store.hpp"

namespace ocppgw::csms {

// OCPP 2.0.1 IdTokenType.idToken is at most 36 characters (1.6 idTag: 20), and so is a group id.
inline constexpr size_t kMaxIdTokenLength = 36;

// What to set; an absent field is left as it is (add: Accepted, no expiry, no parent). The
// expiry is RFC 3339 text and the parent a group id; an empty string clears either.
struct TokenFields {
  std::optional<std::string> status = std::nullopt;  // Accepted | Blocked | Expired | Invalid
  std::optional<std::string> expiry = std::nullopt;
  std::optional<std::string> parent_id = std::nullopt;
};

class TokenAdmin {
 public:
  // `secret` must be the gateway's id token secret, or hashes would not match its lookups.
  TokenAdmin(storage::Db& db, std::string secret) : db_(db), secret_(std::move(secret)) {}

  std::string hash(std::string_view id_tag) const;

  // Adds a token; with `replace`, an existing one is overwritten (the command line's `add`),
  // otherwise it is a Conflict. *stored: the row as written.
  AdminResult add(std::string_view id_tag, const TokenFields& fields, bool replace,
                  storage::IdTokenRecord* stored = nullptr);
  // Changes the given fields of an existing token (NotFound otherwise).
  AdminResult update(std::string_view id_tag, const TokenFields& fields,
                     storage::IdTokenRecord* stored = nullptr);
  AdminResult remove(std::string_view id_tag);
  std::optional<storage::IdTokenRecord> find(std::string_view id_tag, storage::Status* status);
  // Ordered by hash; `after_hash` pages (empty: from the start), at most `limit` rows.
  std::vector<storage::IdTokenRecord> list(std::string_view after_hash, size_t limit,
                                           storage::Status* status);

 private:
  // Applies `fields` to `record`; Invalid with the reason when a value is not acceptable.
  AdminResult apply(const TokenFields& fields, storage::IdTokenRecord& record) const;

  storage::Db& db_;
  std::string secret_;
};

// Why `id_tag` cannot be a token; empty: it can.
std::string id_tag_error(std::string_view id_tag);

}  // namespace ocppgw::csms
