// csms/admin_result.hpp: how a management operation (csms/token_admin, csms/charge_point_admin)
// ended, in terms both of its callers map on their own: the command line prints the message and
// exits 1, the REST API answers 400/404/409/503 with it (web/management_api.hpp).
#pragma once

#include <string>

namespace ocppgw::csms {

struct AdminResult {
  enum class Kind { Ok, Invalid, NotFound, Conflict, Failed };
  Kind kind = Kind::Ok;
  std::string message;  // empty when Ok

  bool ok() const { return kind == Kind::Ok; }
  static AdminResult error(Kind kind, std::string message) { return {kind, std::move(message)}; }
};

}  // namespace ocppgw::csms
