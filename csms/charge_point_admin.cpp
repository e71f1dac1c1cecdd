// csms/charge_point_admin.cpp: charge point passwords as operators change them (see the header).
#include "csms/charge_point_admin.hpp"

#include "csms/charge_point_id.hpp"
#include "csms/passwords.hpp"
#include "util/time.hpp"

namespace ocppgw::csms {

using Kind = AdminResult::Kind;

AdminResult ChargePointAdmin::set_password(const std::string& charge_point_id,
                                           std::string_view password) {
  if (auto e = charge_point_id_error(charge_point_id); !e.empty())
    return AdminResult::error(Kind::Invalid, e);
  if (auto e = password_error(password); !e.empty()) return AdminResult::error(Kind::Invalid, e);
  auto credential =
      make_credential(charge_point_id, password, kDefaultPasswordIterations, util::now_ms());
  if (!credential) return AdminResult::error(Kind::Failed, "cannot hash (random source failed)");
  if (auto s = storage::ChargePointCredentialStore(db_).upsert(*credential); !s.ok())
    return AdminResult::error(Kind::Failed, s.message());
  return {};
}

AdminResult ChargePointAdmin::delete_password(const std::string& charge_point_id) {
  if (auto e = charge_point_id_error(charge_point_id); !e.empty())
    return AdminResult::error(Kind::Invalid, e);
  bool found = false;
  if (auto s = storage::ChargePointCredentialStore(db_).remove(charge_point_id, &found); !s.ok())
    return AdminResult::error(Kind::Failed, s.message());
  if (!found) return AdminResult::error(Kind::NotFound, charge_point_id + " has no password");
  return {};
}

namespace {

AdminResult check_profile_change(const std::string& charge_point_id, std::optional<int> profile) {
  if (auto e = charge_point_id_error(charge_point_id); !e.empty())
    return AdminResult::error(Kind::Invalid, e);
  if (profile && (*profile < 0 || *profile > 3))
    return AdminResult::error(Kind::Invalid, "the security profile must be 0, 1, 2 or 3");
  return {};
}

}  // namespace

AdminResult ChargePointAdmin::set_security_profile(const std::string& charge_point_id,
                                                   std::optional<int> profile) {
  if (auto r = check_profile_change(charge_point_id, profile); !r.ok()) return r;
  // The boot upsert (csms/sqlite_csms_state.cpp) names its columns, so it keeps this one.
  storage::Statement& st = db_.cached(
      "INSERT INTO charge_points (id, first_seen_ms, security_profile) VALUES (?1, ?2, ?3) "
      "ON CONFLICT (id) DO UPDATE SET security_profile = excluded.security_profile");
  st.bind(1, charge_point_id).bind(2, util::now_ms()).bind(3, profile);
  if (auto s = st.run(); !s.ok()) return AdminResult::error(Kind::Failed, s.message());
  return {};
}

AdminResult ChargePointAdmin::register_charge_point(const std::string& charge_point_id,
                                                    std::optional<int> profile) {
  if (auto r = check_profile_change(charge_point_id, profile); !r.ok()) return r;
  // A row may exist without a registration (the charge point connected first): the update
  // then registers it, keeping what is known; a registered row is left alone (Conflict).
  storage::Statement& st = db_.cached(
      "INSERT INTO charge_points (id, first_seen_ms, registered_ms, security_profile) "
      "VALUES (?1, ?2, ?2, ?3) ON CONFLICT (id) DO UPDATE SET "
      "registered_ms = excluded.registered_ms, "
      "security_profile = COALESCE(excluded.security_profile, charge_points.security_profile) "
      "WHERE charge_points.registered_ms IS NULL");
  st.bind(1, charge_point_id).bind(2, util::now_ms()).bind(3, profile);
  if (auto s = st.run(); !s.ok()) return AdminResult::error(Kind::Failed, s.message());
  if (db_.changes() == 0)
    return AdminResult::error(Kind::Conflict, charge_point_id + " is registered already");
  return {};
}

AdminResult ChargePointAdmin::remove_charge_point(const std::string& charge_point_id) {
  if (auto e = charge_point_id_error(charge_point_id); !e.empty())
    return AdminResult::error(Kind::Invalid, e);
  if (auto s = db_.begin_immediate(); !s.ok()) return AdminResult::error(Kind::Failed, s.message());
  int removed = 0;
  for (const char* sql : {"DELETE FROM charge_point_credentials WHERE charge_point_id = ?1",
                          "DELETE FROM charge_point_items WHERE charge_point_id = ?1",
                          "DELETE FROM charge_points WHERE id = ?1"}) {
    storage::Statement& st = db_.cached(sql);
    st.bind(1, charge_point_id);
    if (auto s = st.run(); !s.ok()) {
      db_.rollback();
      return AdminResult::error(Kind::Failed, s.message());
    }
    removed += db_.changes();
  }
  if (auto s = db_.commit(); !s.ok()) {
    db_.rollback();
    return AdminResult::error(Kind::Failed, s.message());
  }
  if (removed == 0) return AdminResult::error(Kind::NotFound, "no charge point " + charge_point_id);
  return {};
}

std::vector<storage::ChargePointCredential> ChargePointAdmin::with_password(
    std::string_view after_id, size_t limit, storage::Status* status) {
  return storage::ChargePointCredentialStore(db_).list(after_id, static_cast<int64_t>(limit),
                                                       status);
}

}  // namespace ocppgw::csms
