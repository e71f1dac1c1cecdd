// gateway/charge_point_state.cpp: see charge_point_state.hpp.
#include "gateway/charge_point_state.hpp"

#include "csms/passwords.hpp"
#include "gateway/ws_session.hpp"
#include "storage/charge_point_credentials.hpp"
#include "storage/gateway_db.hpp"
#include "util/hex.hpp"
#include "util/logging.hpp"
#include "util/time.hpp"

namespace ocppgw::gateway {
namespace {

using nlohmann::json;
using Rotation = web::ChargePointStateSource::Rotation;

constexpr size_t kRotatedPasswordBytes = 20;  // 40 hex characters

// The call that hands a charge point its new Basic password, and whether its answer accepts it.
struct PasswordCall {
  std::string action;
  json payload;
};

PasswordCall password_call(rpc::OcppVersion version, const std::string& password) {
  if (version == rpc::OcppVersion::v16)
    return {"ChangeConfiguration", {{"key", "AuthorizationKey"}, {"value", password}}};
  return {"SetVariables",
          {{"setVariableData", json::array({{{"component", {{"name", "SecurityCtrlr"}}},
                                             {"variable", {{"name", "BasicAuthPassword"}}},
                                             {"attributeValue", password}}})}}};
}

// The status the charge point answered ("" when the answer holds none).
std::string password_call_status(const json& answer) {
  if (answer.contains("status")) return answer.value("status", "");
  const json results = answer.value("setVariableResult", json::array());
  return results.empty() ? "" : results.front().value("attributeStatus", "");
}

}  // namespace

std::unique_ptr<ChargePointStateService> ChargePointStateService::open(
    const std::string& db_path, csms::SqliteCsmsState& state, csms::EventSink& sink,
    web::CsmsCommands& commands, SessionRegistry& registry, util::Status* status) {
  auto items = csms::ChargePointItems::open(db_path, status);
  if (!items) return nullptr;
  auto db = storage::open_gateway_db(db_path, status);
  if (!db) return nullptr;
  return std::unique_ptr<ChargePointStateService>(new ChargePointStateService(
      state, sink, commands, registry, std::move(items), std::move(db)));
}

std::optional<json> ChargePointStateService::view(const std::string& charge_point_id,
                                                  std::string_view view, std::string* error) {
  if (!state_.charge_point(charge_point_id) && !registry_.find(charge_point_id))
    return std::nullopt;
  util::Status s;
  auto out = items_->view(charge_point_id, view, util::now_ms(), &s);
  if (!s.ok()) {
    *error = s.message();
    return std::nullopt;
  }
  return out;
}

csms::MessageLimits ChargePointStateService::message_limits(const std::string& charge_point_id,
                                                            std::string_view action) {
  csms::MessageLimits limits;
  util::Status s;
  limits.items = items_->message_limit(charge_point_id, "ItemsPerMessage", action, &s);
  if (s.ok()) limits.bytes = items_->message_limit(charge_point_id, "BytesPerMessage", action, &s);
  if (!s.ok()) {
    log::warn("message_limits_unreadable", charge_point_id, {{"error", s.message()}});
    return {};
  }
  return limits;
}

void ChargePointStateService::set_boot_status(const std::string& charge_point_id,
                                              const std::string& status,
                                              const std::string& requested_by,
                                              BootStatusDone done) {
  csms::SinkEntry entry;
  entry.charge_point_id = charge_point_id;
  entry.received_ms = util::now_ms();
  entry.writes = std::make_unique<rpc::WriteSet>();
  state_.set_boot_status(charge_point_id, status, entry.received_ms, *entry.writes);
  // Accepted: the charge point waits for its next boot interval otherwise (OCPP 1.6 section 4.2,
  // 2.0.1 B02); TriggerMessage lets it boot now and hear the new answer.
  entry.on_durable = [this, charge_point_id, status, requested_by,
                      done = std::move(done)](bool committed) {
    if (!committed) return done("the event log is not accepting writes", std::nullopt);
    if (status != "Accepted") return done("", std::nullopt);
    commands_.call(charge_point_id, "TriggerMessage", {{"requestedMessage", "BootNotification"}},
                   requested_by,
                   [done](web::CommandOutcome outcome) { done("", std::move(outcome)); });
  };
  sink_.submit(std::move(entry));
}

std::string ChargePointStateService::store_password(const std::string& charge_point_id,
                                                    const std::string& password) {
  // ~10 ms of PBKDF2 (kDefaultPasswordIterations) on the session's strand: rare and short.
  auto credential = csms::make_credential(charge_point_id, password,
                                          csms::kDefaultPasswordIterations, util::now_ms());
  if (!credential) return "the system random number generator failed";
  std::lock_guard lock(credentials_mu_);
  const util::Status s = storage::ChargePointCredentialStore(*credentials_db_).upsert(*credential);
  return s.ok() ? std::string() : "storing the new password failed: " + s.message();
}

void ChargePointStateService::rotate_credentials(const std::string& charge_point_id,
                                                 const std::string& requested_by,
                                                 RotationDone done) {
  const auto session = registry_.find(charge_point_id);
  if (!session) {
    web::CommandOutcome not_connected;
    not_connected.kind = web::CommandOutcome::Kind::NotConnected;
    return done(not_connected, Rotation::CallFailed, "");
  }
  const auto password = util::random_hex(kRotatedPasswordBytes);
  if (!password)
    return done({}, Rotation::StoreFailed, "the system random number generator failed");
  PasswordCall call = password_call(session->info().version, *password);
  commands_.call(charge_point_id, call.action, std::move(call.payload), requested_by,
                 [this, charge_point_id, password = *password,
                  done = std::move(done)](web::CommandOutcome outcome) {
                   if (outcome.kind != web::CommandOutcome::Kind::Result)
                     return done(std::move(outcome), Rotation::CallFailed, "");
                   const std::string answer = password_call_status(outcome.payload);
                   // RebootRequired: the charge point keeps the new password and uses it from its
                   // reboot.
                   if (answer != "Accepted" && answer != "RebootRequired")
                     return done(std::move(outcome), Rotation::Refused,
                                 "the charge point did not accept the new password (" +
                                     (answer.empty() ? std::string("no status") : answer) +
                                     "); the old one stays valid");
                   std::string error = store_password(charge_point_id, password);
                   log::info("charge_point_password_rotated", charge_point_id,
                             {{"stored", error.empty() ? "true" : "false"}});
                   if (!error.empty())
                     return done(std::move(outcome), Rotation::StoreFailed, error);
                   done(std::move(outcome), Rotation::Rotated, "");
                 });
}

}  // namespace ocppgw::gateway
