// web/charge_point_state_api.hpp: what the central system knows of one charge point, and the
// two decisions an admin takes about it (docs/api.md, "Charge point state"):
//   GET  /api/v1/charge-points/{id}/{view}   (viewer) view: configuration | variables |
//        reservations | local-list | charging-profiles | display-messages
//   PUT  /api/v1/charge-points/{id}/boot-status {"status":"Accepted|Pending|Rejected"} (admin)
//   POST /api/v1/charge-points/{id}/credentials/rotate (admin)
// web/ knows HTTP and JSON only: the gateway implements ChargePointStateSource.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "web/api_auth.hpp"
#include "web/csms_commands.hpp"
#include "web/router.hpp"

namespace ocppgw::web {

class ChargePointStateSource {
 public:
  virtual ~ChargePointStateSource() = default;
  // The view's JSON; nullopt with *error empty: the charge point is unknown (never connected
  // nor named by an operator); nullopt with *error: reading failed.
  virtual std::optional<nlohmann::json> view(const std::string& charge_point_id,
                                             std::string_view view, std::string* error) = 0;

  // Stores the charge point's BootNotification answer (durably), then, for Accepted, asks it
  // to boot again (TriggerMessage BootNotification). `done` runs once, on any thread: an empty
  // error and the trigger's outcome (nullopt: none was sent), or what failed.
  using BootStatusDone =
      std::function<void(std::string error, std::optional<CommandOutcome> trigger)>;
  virtual void set_boot_status(const std::string& charge_point_id, const std::string& status,
                               const std::string& requested_by, BootStatusDone done) = 0;

  // Sends a freshly generated password to the charge point and stores its hash once the charge
  // point accepted it. `done` runs once, on any thread, with the call's outcome (its payload is
  // the charge point's answer), how the rotation ended and, unless Rotated, why.
  enum class Rotation {
    Rotated,      // accepted; the new password's hash is stored, the old one no longer works
    Refused,      // the charge point answered but did not accept; the old password stays
    CallFailed,   // no answer (see the outcome); the old password stays
    StoreFailed,  // accepted, but storing the hash failed
  };
  using RotationDone = std::function<void(CommandOutcome call, Rotation result, std::string error)>;
  virtual void rotate_credentials(const std::string& charge_point_id,
                                  const std::string& requested_by, RotationDone done) = 0;
};

// Adds the routes; `source` and `auth` must outlive the router.
void add_charge_point_state_routes(Router& router, ChargePointStateSource& source, ApiAuth& auth);

}  // namespace ocppgw::web
