// web/management_api.hpp: the REST API's changes, documented in docs/api.md:
//   POST   /api/v1/id-tokens                    {"id_tag","status"?,"expiry"?,"parent_id"?}
//   operator PATCH  /api/v1/id-tokens/{idTag}            {"status"?,"expiry"?,"parent_id"?}
//   operator DELETE /api/v1/id-tokens/{idTag} operator PUT    /api/v1/charge-points/{id}/password
//   {"password"}                                 admin DELETE /api/v1/charge-points/{id}/password
//   admin
// Each checks the caller (ApiAuth::require: role, and the CSRF token of cookie requests), reads
// the body (JSON object of string fields; unknown fields are a 400), applies the change on
// ApiAuth's worker pool through a ManagementTarget, writes one audit row whatever the outcome
// (never with a password or a raw id tag: the target of a token change is its hash), and
// answers once the row is written.
//
// The gateway's ManagementTarget (gateway/api_backend.hpp) runs the same code as the command
// line (csms/token_admin, csms/charge_point_admin), so both change the data the same way.
#pragma once

#include <string>

#include "web/api_auth.hpp"
#include "web/api_input.hpp"
#include "web/api_result.hpp"
#include "web/router.hpp"

namespace ocppgw::web {

enum class Change {
  AddToken,
  UpdateToken,
  RemoveToken,
  SetPassword,
  DeletePassword,
  SetSecurityProfile,
  RegisterChargePoint,
  RemoveChargePoint,
  RepairQuarantined,
  DiscardQuarantined,
  ReplayQuarantined,
  SyncDelta,
};

struct ChangeRequest {
  Change change = Change::AddToken;
  std::string id;     // the path's {id} (empty for AddToken: the tag is in `fields`)
  Fields fields;      // the body
  std::string actor;  // the operator asking (a quarantine review records its reviewer)
};

class ManagementTarget {
 public:
  virtual ~ManagementTarget() = default;
  // Thread-safe; called on ApiAuth's worker threads. ApiResult::target names what changed
  // (the audit row's target; never a raw tag or a password).
  virtual ApiResult apply(const ChangeRequest& request) = 0;
};

// `auth` and `target` must outlive the router's use of these routes.
void add_management_routes(Router& router, ApiAuth& auth, ManagementTarget& target);

}  // namespace ocppgw::web
