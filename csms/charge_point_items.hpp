// csms/charge_point_items.hpp: what the central system knows of each charge point beyond its
// transactions (table charge_point_items, migration 0005): 1.6 configuration keys, 2.0.1
// device-model variables, reservations, the local authorisation list, charging profiles and
// display messages.
//
// Written by follow-up hooks: when a CSMS->charge point call ends in a schema-valid CALLRESULT,
// record_call_result() looks the action up in one table (version, action -> hook) and the hook
// turns the request and the result into item rows, appended to a WriteSet that the event sink
// commits together with the call's CsmsCall event. One mechanism serves every action; adding
// one is a row and a function. The reports a charge point sends (NotifyReport,
// ReportChargingProfiles, NotifyDisplayMessages) and StartTransaction/TransactionEvent use the same
// writer (device-model reports, reservations consumed by a start).
//
// Read by ChargePointItems (its own read-only connection) for the REST API's views.
// Id tokens are stored only as their HMAC (as everywhere in the gateway); the secrets the
// gateway sends (1.6 AuthorizationKey, 2.0.1 SecurityCtrlr.BasicAuthPassword) are never stored.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "rpc/rpc_error.hpp"
#include "rpc/write_set.hpp"
#include "storage/db.hpp"

namespace ocppgw::csms {

// Appends upserts and deletes of one charge point's items to a write set.
class ItemWriter {
 public:
  ItemWriter(rpc::WriteSet& writes, std::string charge_point_id, int64_t now_ms,
             std::string_view id_token_secret)
      : writes_(writes),
        charge_point_id_(std::move(charge_point_id)),
        now_ms_(now_ms),
        id_token_secret_(id_token_secret) {}

  void put(std::string_view kind, std::string_view key, const nlohmann::json& item);
  void erase(std::string_view kind, std::string_view key);
  void erase_all(std::string_view kind);
  // Sets a reservation's status (Cancelled, Used) if it is still Active.
  void end_reservation(int64_t reservation_id, std::string_view status);
  // Deletes the charging profiles matching every given criterion (none given: all).
  void clear_profiles(std::optional<int64_t> id, std::optional<int64_t> connector,
                      std::optional<std::string> purpose, std::optional<int64_t> stack_level);
  // Upserts 2.0.1 variable attributes (a GetVariables result, a NotifyReport entry, ...).
  void put_variable(const nlohmann::json& component, const nlohmann::json& variable,
                    std::string_view attribute_type, const nlohmann::json& fields);
  std::string hash_token(std::string_view token) const;
  int64_t now_ms() const { return now_ms_; }

 private:
  rpc::WriteSet& writes_;
  const std::string charge_point_id_;
  const int64_t now_ms_;
  const std::string_view id_token_secret_;
};

// Runs the follow-up hook of `action` (if it has one) on a schema-valid CALLRESULT.
void record_call_result(ItemWriter& out, rpc::OcppVersion version, std::string_view action,
                        const nlohmann::json& request, const nlohmann::json& response);
// Whether `action` of `version` has a follow-up hook (tests, docs).
bool has_follow_up(rpc::OcppVersion version, std::string_view action);
// A report the charge point sent (schema-valid): NotifyReport's variable attributes,
// ReportChargingProfiles' profiles, NotifyDisplayMessages' messages; other actions: nothing.
void record_report(ItemWriter& out, std::string_view action, const nlohmann::json& request);

// The API's views of the items. Thread-safe (one read connection behind a mutex).
class ChargePointItems {
 public:
  static std::unique_ptr<ChargePointItems> open(const std::string& db_path,
                                                storage::Status* status);
  // `view`: configuration | variables | reservations | local-list | charging-profiles |
  // display-messages. nullopt with *status ok: no such view. Reservations past their expiry
  // that are still Active show status "Expired" (computed at `now_ms`).
  std::optional<nlohmann::json> view(const std::string& charge_point_id, std::string_view view,
                                     int64_t now_ms, storage::Status* status);
  // A DeviceDataCtrlr limit the charge point reported for `action` (GetVariables or
  // SetVariables): "ItemsPerMessage" or "BytesPerMessage". nullopt: not known.
  std::optional<int64_t> message_limit(const std::string& charge_point_id, std::string_view limit,
                                       std::string_view action, storage::Status* status);

 private:
  explicit ChargePointItems(std::unique_ptr<storage::Db> db) : db_(std::move(db)) {}
  nlohmann::json items(const std::string& charge_point_id, std::string_view kind,
                       storage::Status* status);

  std::mutex mu_;
  std::unique_ptr<storage::Db> db_;
};

// `request` of a CSMS->charge point call as it may be recorded (CsmsCall event, logs): the
// passwords it hands the charge point (1.6 AuthorizationKey, 2.0.1 BasicAuthPassword) replaced
// by "<redacted>".
nlohmann::json redacted_call_request(std::string_view action, nlohmann::json request);

// The item key of a 2.0.1 variable attribute (component, instance, evse, connector, variable,
// instance, attribute type).
std::string variable_key(const nlohmann::json& component, const nlohmann::json& variable,
                         std::string_view attribute_type);

}  // namespace ocppgw::csms
