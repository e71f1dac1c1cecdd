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

std::vector<storage::ChargePointCredential> ChargePointAdmin::with_password(
    std::string_view after_id, size_t limit, storage::Status* status) {
  return storage::ChargePointCredentialStore(db_).list(after_id, static_cast<int64_t>(limit),
                                                       status);
}

}  // namespace ocppgw::csms
