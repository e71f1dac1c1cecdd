// gateway/charge_point_state.hpp: web::ChargePointStateSource on the running gateway: views
// from csms::ChargePointItems, the boot answer through the CSMS state (persisted through the
// event sink like any other state row), and credential rotation through the CSMS calls.
// Threading: every method may be called from any thread; callbacks run on the sink thread or
// a session's strand.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "csms/charge_point_items.hpp"
#include "csms/event_sink.hpp"
#include "csms/sqlite_csms_state.hpp"
#include "csms/variable_batches.hpp"
#include "gateway/session_registry.hpp"
#include "storage/db.hpp"
#include "web/charge_point_state_api.hpp"

namespace ocppgw::gateway {

class ChargePointStateService : public web::ChargePointStateSource {
 public:
  // Opens its read connection and the connection that stores rotated passwords on `db_path`.
  static std::unique_ptr<ChargePointStateService> open(
      const std::string& db_path, csms::SqliteCsmsState& state, csms::EventSink& sink,
      web::CsmsCommands& commands, SessionRegistry& registry, util::Status* status);

  std::optional<nlohmann::json> view(const std::string& charge_point_id, std::string_view view,
                                     std::string* error) override;
  void set_boot_status(const std::string& charge_point_id, const std::string& status,
                       const std::string& requested_by, BootStatusDone done) override;
  // The password: 20 bytes of the system CSPRNG as 40 hex characters (OCPP's 16 to 40
  // characters, 160 bits). Sent as 1.6 ChangeConfiguration AuthorizationKey or 2.0.1
  // SetVariables SecurityCtrlr.BasicAuthPassword; stored (hashed) only once accepted. It is
  // never logged, returned or recorded: the charge point is the only party that needs it.
  void rotate_credentials(const std::string& charge_point_id, const std::string& requested_by,
                          RotationDone done) override;
  // The ItemsPerMessage / BytesPerMessage the charge point reported for `action` (unknown, or
  // unreadable: none, so the request goes out whole).
  csms::MessageLimits message_limits(const std::string& charge_point_id, std::string_view action);

 private:
  ChargePointStateService(csms::SqliteCsmsState& state, csms::EventSink& sink,
                          web::CsmsCommands& commands, SessionRegistry& registry,
                          std::unique_ptr<csms::ChargePointItems> items,
                          std::unique_ptr<storage::Db> credentials_db)
      : state_(state),
        sink_(sink),
        commands_(commands),
        registry_(registry),
        items_(std::move(items)),
        credentials_db_(std::move(credentials_db)) {}
  // Stores the hash of `password` as the charge point's Basic password; empty: done.
  std::string store_password(const std::string& charge_point_id, const std::string& password);

  csms::SqliteCsmsState& state_;
  csms::EventSink& sink_;
  web::CsmsCommands& commands_;
  SessionRegistry& registry_;
  std::unique_ptr<csms::ChargePointItems> items_;
  std::mutex credentials_mu_;  // guards credentials_db_
  std::unique_ptr<storage::Db> credentials_db_;
};

}  // namespace ocppgw::gateway
