// csms/token_admin.cpp: the id-token list as operators change it (see token_admin.hpp).
#include "csms/token_admin.hpp"

#include "analytics/event.hpp"
#include "util/time.hpp"

namespace ocppgw::csms {

using Kind = AdminResult::Kind;

std::string id_tag_error(std::string_view id_tag) {
  if (id_tag.empty()) return "the id tag is empty";
  if (id_tag.size() > kMaxIdTokenLength) return "the id tag is longer than 36 characters";
  for (unsigned char ch : id_tag)
    if (ch < 0x20 || ch == 0x7f) return "the id tag holds a control character";
  return {};
}

std::string TokenAdmin::hash(std::string_view id_tag) const {
  return analytics::hash_id_token(secret_, id_tag);
}

AdminResult TokenAdmin::apply(const TokenFields& fields, storage::IdTokenRecord& r) const {
  if (fields.status) {
    if (!storage::is_stored_token_status(*fields.status))
      return AdminResult::error(Kind::Invalid,
                                "status must be Accepted, Blocked, Expired or "
                                "Invalid, not '" +
                                    *fields.status + "'");
    r.status = *fields.status;
  }
  if (fields.expiry) {
    r.expiry_ms.reset();
    if (!fields.expiry->empty()) {
      r.expiry_ms = util::parse_rfc3339_ms(*fields.expiry);
      if (!r.expiry_ms)
        return AdminResult::error(
            Kind::Invalid,
            "expiry is not an RFC 3339 time (e.g. 2030-01-01T00:00:00Z): " + *fields.expiry);
    }
  }
  if (fields.parent_id) {
    if (fields.parent_id->size() > kMaxIdTokenLength)
      return AdminResult::error(Kind::Invalid, "the parent id is longer than 36 characters");
    r.parent_id.reset();
    if (!fields.parent_id->empty()) r.parent_id = *fields.parent_id;
  }
  r.updated_ms = util::now_ms();
  return {};
}

AdminResult TokenAdmin::add(std::string_view id_tag, const TokenFields& fields, bool replace,
                            storage::IdTokenRecord* stored) {
  if (auto e = id_tag_error(id_tag); !e.empty()) return AdminResult::error(Kind::Invalid, e);
  storage::IdTokenRecord r;
  r.id_token_hash = hash(id_tag);
  if (auto a = apply(fields, r); !a.ok()) return a;
  storage::IdTokenStore store(db_);
  if (!replace) {
    // Checked and written without a transaction: two operators adding the same tag at once
    // both succeed and the later row stands, which is what either asked for.
    storage::Status s;
    if (store.find(r.id_token_hash, &s))
      return AdminResult::error(Kind::Conflict, "the token exists");
    if (!s.ok()) return AdminResult::error(Kind::Failed, s.message());
  }
  if (auto s = store.upsert(r); !s.ok()) return AdminResult::error(Kind::Failed, s.message());
  if (stored) *stored = r;
  return {};
}

AdminResult TokenAdmin::update(std::string_view id_tag, const TokenFields& fields,
                               storage::IdTokenRecord* stored) {
  if (auto e = id_tag_error(id_tag); !e.empty()) return AdminResult::error(Kind::Invalid, e);
  storage::IdTokenStore store(db_);
  storage::Status s;
  auto r = store.find(hash(id_tag), &s);
  if (!s.ok()) return AdminResult::error(Kind::Failed, s.message());
  if (!r) return AdminResult::error(Kind::NotFound, "no such token");
  if (auto a = apply(fields, *r); !a.ok()) return a;
  if (s = store.upsert(*r); !s.ok()) return AdminResult::error(Kind::Failed, s.message());
  if (stored) *stored = *r;
  return {};
}

AdminResult TokenAdmin::remove(std::string_view id_tag) {
  if (auto e = id_tag_error(id_tag); !e.empty()) return AdminResult::error(Kind::Invalid, e);
  bool found = false;
  if (auto s = storage::IdTokenStore(db_).remove(hash(id_tag), &found); !s.ok())
    return AdminResult::error(Kind::Failed, s.message());
  if (!found) return AdminResult::error(Kind::NotFound, "no such token");
  return {};
}

std::optional<storage::IdTokenRecord> TokenAdmin::find(std::string_view id_tag,
                                                       storage::Status* status) {
  return storage::IdTokenStore(db_).find(hash(id_tag), status);
}

std::vector<storage::IdTokenRecord> TokenAdmin::list(std::string_view after_hash, size_t limit,
                                                     storage::Status* status) {
  return storage::IdTokenStore(db_).list(after_hash, static_cast<int64_t>(limit), status);
}

}  // namespace ocppgw::csms
