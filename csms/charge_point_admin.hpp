// csms/charge_point_admin.hpp: charge point HTTP Basic passwords (OCPP security profiles 1 and
// 2) and assigned security profiles as operators change them, the one implementation behind `ocppgw
// charge-points` and the REST API's /api/v1/charge-points/{id}/password. Passwords are hashed here
// (csms/passwords.hpp, salted PBKDF2) and never stored, printed or logged.
//
// The gateway verifies a connection's password against the stored hash (its verification cache
// is keyed by that hash, gateway/auth.hpp), so a new or deleted password applies at the charge
// point's next connection; a connection already open stays open.
// Threading: one connection; use it from one thread at a time. set_password() hashes (about
// 10 ms on one core): keep it off threads that serve charge points.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "csms/admin_result.hpp"
#include "storage/charge_point_credentials.hpp"
#include "storage/db.hpp"

namespace ocppgw::csms {

class ChargePointAdmin {
 public:
  explicit ChargePointAdmin(storage::Db& db) : db_(db) {}

  // Sets or replaces the password of `charge_point_id` (Invalid: a bad id or a password that
  // breaks the policy, 16 to 40 characters). The caller wipes its copy of the password.
  AdminResult set_password(const std::string& charge_point_id, std::string_view password);
  AdminResult delete_password(const std::string& charge_point_id);
  // Assigns OCPP security profile 0..3 (nullopt: none) to a charge point. A connection that
  // provides a lower profile is refused at its upgrade (gateway/http_session.cpp).
  AdminResult set_security_profile(const std::string& charge_point_id, std::optional<int> profile);
  // Registers a charge point (Conflict if it is registered already), optionally with its
  // security profile: a registered charge point's BootNotification is Accepted whatever the
  // policy for unknown ones says (storage/migrations/0007_charge_point_registration.sql).
  AdminResult register_charge_point(const std::string& charge_point_id, std::optional<int> profile);
  // Forgets a charge point: its row, password and kept state (configuration, variables,
  // reservations, ...; csms/charge_point_items.hpp). Its transactions and events stay: they
  // are history. NotFound when nothing was known of it.
  AdminResult remove_charge_point(const std::string& charge_point_id);
  // Charge points with a password, ordered by id, after `after_id` (empty: from the start).
  std::vector<storage::ChargePointCredential> with_password(std::string_view after_id, size_t limit,
                                                            storage::Status* status);

 private:
  storage::Db& db_;
};

}  // namespace ocppgw::csms
