// csms/charge_point_items.cpp: see charge_point_items.hpp. The hooks read payloads that passed
// the action's schema (request before sending, response before the hook runs), so required
// fields are present; optional ones are read with value()/contains().
#include "csms/charge_point_items.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>

#include "analytics/event.hpp"
#include "rpc/mapper_util.hpp"
#include "util/time.hpp"

namespace ocppgw::csms {
namespace {

using nlohmann::json;
using rpc::OcppVersion;

constexpr std::string_view kConfiguration = "configuration";
constexpr std::string_view kVariable = "variable";
constexpr std::string_view kReservation = "reservation";
constexpr std::string_view kLocalList = "local_list";
constexpr std::string_view kLocalListEntry = "local_list_entry";
constexpr std::string_view kChargingProfile = "charging_profile";
constexpr std::string_view kDisplayMessage = "display_message";

std::string text(const json& v) { return v.dump(-1, ' ', false, json::error_handler_t::replace); }

std::optional<std::string> opt_str(const json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

bool accepted(const json& response, std::initializer_list<std::string_view> ok = {"Accepted"}) {
  const auto status = opt_str(response, "status");
  return status && std::find(ok.begin(), ok.end(), *status) != ok.end();
}

// Values the gateway sends that must never be stored or shown.
bool secret_configuration_key(std::string_view key) { return key == "AuthorizationKey"; }
bool secret_variable(const json& component, const json& variable) {
  return component.value("name", "") == "SecurityCtrlr" &&
         variable.value("name", "") == "BasicAuthPassword";
}

// ---- 1.6 ----

void get_configuration16(ItemWriter& out, const json&, const json& response) {
  for (const json& k : response.value("configurationKey", json::array())) {
    const std::string key = k.at("key");
    if (secret_configuration_key(key)) continue;
    out.put(kConfiguration, key,
            {{"key", key}, {"readonly", k.at("readonly")}, {"value", k.value("value", json())}});
  }
  for (const json& key : response.value("unknownKey", json::array()))
    out.erase(kConfiguration, key.get<std::string>());
}

void change_configuration16(ItemWriter& out, const json& request, const json& response) {
  if (!accepted(response, {"Accepted", "RebootRequired"})) return;
  const std::string key = request.at("key");
  if (secret_configuration_key(key)) return;
  json item{{"key", key}, {"readonly", false}, {"value", request.at("value")}};
  if (response.at("status") == "RebootRequired") item["reboot_required"] = true;
  out.put(kConfiguration, key, item);
}

json reservation(ItemWriter& out, int64_t id, const std::string& expiry, std::string_view token) {
  const auto expiry_ms = util::parse_rfc3339_ms(expiry);
  return {{"reservationId", id},
          {"expiryDate", expiry},
          {"expiry_ms", expiry_ms ? json(*expiry_ms) : json()},
          {"idTokenHash", out.hash_token(token)},
          {"status", "Active"},
          {"created_ms", out.now_ms()}};
}

void reserve_now16(ItemWriter& out, const json& request, const json& response) {
  if (!accepted(response)) return;
  const int64_t id = request.at("reservationId");
  json item =
      reservation(out, id, request.at("expiryDate"), request.at("idTag").get<std::string>());
  item["connectorId"] = request.at("connectorId");
  out.put(kReservation, std::to_string(id), item);
}

void reserve_now201(ItemWriter& out, const json& request, const json& response) {
  if (!accepted(response)) return;
  const int64_t id = request.at("id");
  json item = reservation(out, id, request.at("expiryDateTime"),
                          request.at("idToken").at("idToken").get<std::string>());
  if (auto evse = rpc::int_member(request, "evseId")) item["evseId"] = *evse;
  if (auto type = opt_str(request, "connectorType")) item["connectorType"] = *type;
  out.put(kReservation, std::to_string(id), item);
}

void cancel_reservation(ItemWriter& out, const json& request, const json& response) {
  if (accepted(response)) out.end_reservation(request.at("reservationId"), "Cancelled");
}

// A local list update: `entries` with their token under token(entry) and, for an entry that is
// kept, its info under `info_key` (an entry without it removes the token, Differential only).
template <typename TokenOf>
void local_list(ItemWriter& out, const json& request, int64_t version, const char* list_key,
                const char* info_key, TokenOf token_of) {
  const std::string update = request.at("updateType");
  if (update == "Full") out.erase_all(kLocalListEntry);
  for (const json& entry : request.value(list_key, json::array())) {
    const std::string hash = out.hash_token(token_of(entry));
    if (entry.contains(info_key))
      out.put(kLocalListEntry, hash, {{"idTokenHash", hash}, {info_key, entry.at(info_key)}});
    else
      out.erase(kLocalListEntry, hash);
  }
  out.put(kLocalList, "", {{"version", version}, {"updateType", update}});
}

void send_local_list16(ItemWriter& out, const json& request, const json& response) {
  if (!accepted(response)) return;
  local_list(out, request, request.at("listVersion"), "localAuthorizationList", "idTagInfo",
             [](const json& e) { return e.at("idTag").get<std::string>(); });
}

void send_local_list201(ItemWriter& out, const json& request, const json& response) {
  if (!accepted(response)) return;
  local_list(out, request, request.at("versionNumber"), "localAuthorizationList", "idTokenInfo",
             [](const json& e) { return e.at("idToken").at("idToken").get<std::string>(); });
}

// The version the charge point reports; its entries are not known from this answer.
void local_list_version(ItemWriter& out, int64_t version) {
  out.put(kLocalList, "", {{"version", version}, {"reported", true}});
}

void get_local_list_version16(ItemWriter& out, const json&, const json& response) {
  local_list_version(out, response.at("listVersion"));
}

void get_local_list_version201(ItemWriter& out, const json&, const json& response) {
  local_list_version(out, response.at("versionNumber"));
}

void put_profile(ItemWriter& out, int64_t connector, const json& profile,
                 const char* connector_key) {
  const int64_t id = rpc::int_member(profile, "chargingProfileId").value_or(profile.value("id", 0));
  out.put(kChargingProfile, std::to_string(id),
          {{"id", id},
           {connector_key, connector},
           {"purpose", profile.at("chargingProfilePurpose")},
           {"stackLevel", profile.at("stackLevel")},
           {"profile", profile}});
}

void set_charging_profile16(ItemWriter& out, const json& request, const json& response) {
  if (accepted(response))
    put_profile(out, request.at("connectorId"), request.at("csChargingProfiles"), "connectorId");
}

void set_charging_profile201(ItemWriter& out, const json& request, const json& response) {
  if (accepted(response))
    put_profile(out, request.at("evseId"), request.at("chargingProfile"), "evseId");
}

void clear_charging_profile16(ItemWriter& out, const json& request, const json& response) {
  if (!accepted(response)) return;
  out.clear_profiles(rpc::int_member(request, "id"), rpc::int_member(request, "connectorId"),
                     opt_str(request, "chargingProfilePurpose"),
                     rpc::int_member(request, "stackLevel"));
}

void clear_charging_profile201(ItemWriter& out, const json& request, const json& response) {
  if (!accepted(response)) return;
  const json criteria = request.value("chargingProfileCriteria", json::object());
  out.clear_profiles(
      rpc::int_member(request, "chargingProfileId"), rpc::int_member(criteria, "evseId"),
      opt_str(criteria, "chargingProfilePurpose"), rpc::int_member(criteria, "stackLevel"));
}

// ---- 2.0.1 ----

void get_variables201(ItemWriter& out, const json&, const json& response) {
  for (const json& r : response.at("getVariableResult")) {
    if (r.at("attributeStatus") != "Accepted" || !r.contains("attributeValue")) continue;
    if (secret_variable(r.at("component"), r.at("variable"))) continue;
    out.put_variable(r.at("component"), r.at("variable"), r.value("attributeType", "Actual"),
                     {{"value", r.at("attributeValue")}});
  }
}

void set_variables201(ItemWriter& out, const json& request, const json& response) {
  // Results name their variable, so they are matched by key rather than by position.
  std::map<std::string, const json*> sent;
  for (const json& d : request.at("setVariableData"))
    sent[variable_key(d.at("component"), d.at("variable"), d.value("attributeType", "Actual"))] =
        &d;
  for (const json& r : response.at("setVariableResult")) {
    const std::string status = r.at("attributeStatus");
    if (status != "Accepted" && status != "RebootRequired") continue;
    if (secret_variable(r.at("component"), r.at("variable"))) continue;
    const std::string type = r.value("attributeType", "Actual");
    auto it = sent.find(variable_key(r.at("component"), r.at("variable"), type));
    if (it == sent.end()) continue;
    json fields{{"value", it->second->at("attributeValue")}};
    if (status == "RebootRequired") fields["reboot_required"] = true;
    out.put_variable(r.at("component"), r.at("variable"), type, fields);
  }
}

void set_display_message201(ItemWriter& out, const json& request, const json& response) {
  if (!accepted(response)) return;
  const json& message = request.at("message");
  out.put(kDisplayMessage, std::to_string(message.at("id").get<int64_t>()), message);
}

void clear_display_message201(ItemWriter& out, const json& request, const json& response) {
  if (accepted(response))
    out.erase(kDisplayMessage, std::to_string(request.at("id").get<int64_t>()));
}

using Hook = void (*)(ItemWriter&, const json& request, const json& response);
struct FollowUp {
  OcppVersion version;
  std::string_view action;
  Hook hook;
};

constexpr std::array<FollowUp, 19> kFollowUps = {{
    {OcppVersion::v16, "GetConfiguration", get_configuration16},
    {OcppVersion::v16, "ChangeConfiguration", change_configuration16},
    {OcppVersion::v16, "ReserveNow", reserve_now16},
    {OcppVersion::v16, "CancelReservation", cancel_reservation},
    {OcppVersion::v16, "SendLocalList", send_local_list16},
    {OcppVersion::v16, "GetLocalListVersion", get_local_list_version16},
    {OcppVersion::v16, "SetChargingProfile", set_charging_profile16},
    {OcppVersion::v16, "ClearChargingProfile", clear_charging_profile16},
    {OcppVersion::v201, "GetVariables", get_variables201},
    {OcppVersion::v201, "SetVariables", set_variables201},
    {OcppVersion::v201, "ReserveNow", reserve_now201},
    {OcppVersion::v201, "CancelReservation", cancel_reservation},
    {OcppVersion::v201, "SendLocalList", send_local_list201},
    {OcppVersion::v201, "GetLocalListVersion", get_local_list_version201},
    {OcppVersion::v201, "SetChargingProfile", set_charging_profile201},
    {OcppVersion::v201, "ClearChargingProfile", clear_charging_profile201},
    {OcppVersion::v201, "SetDisplayMessage", set_display_message201},
    {OcppVersion::v201, "ClearDisplayMessage", clear_display_message201},
    // GetChargingProfiles and GetDisplayMessages answer only a status; the profiles and
    // messages arrive in ReportChargingProfiles / NotifyDisplayMessages (record_report).
    {OcppVersion::v201, "GetBaseReport", nullptr},  // its data arrives in NotifyReport
}};

const FollowUp* find(OcppVersion version, std::string_view action) {
  for (const FollowUp& f : kFollowUps)
    if (f.version == version && f.action == action && f.hook) return &f;
  return nullptr;
}

void set_views_item(json& out, const storage::Statement& st) {
  json item = json::parse(st.text_view(1), nullptr, false);
  if (item.is_discarded() || !item.is_object()) item = json::object();
  item["updated_ms"] = st.int64(2);
  out.push_back(std::move(item));
}

}  // namespace

std::string variable_key(const json& component, const json& variable,
                         std::string_view attribute_type) {
  const json evse = component.value("evse", json::object());
  std::string key;
  for (const std::string& part :
       {component.value("name", ""), component.value("instance", ""),
        evse.contains("id") ? std::to_string(evse.value("id", 0)) : std::string(),
        evse.contains("connectorId") ? std::to_string(evse.value("connectorId", 0)) : std::string(),
        variable.value("name", ""), variable.value("instance", ""), std::string(attribute_type)}) {
    if (!key.empty()) key += '/';
    key += part;
  }
  return key;
}

void ItemWriter::put(std::string_view kind, std::string_view key, const json& item) {
  writes_.add(
      "INSERT INTO charge_point_items (charge_point_id, kind, item_key, json, updated_ms) "
      "VALUES (?, ?, ?, ?, ?) ON CONFLICT (charge_point_id, kind, item_key) DO UPDATE SET "
      "json = excluded.json, updated_ms = excluded.updated_ms",
      {charge_point_id_, std::string(kind), std::string(key), text(item), now_ms_});
}

void ItemWriter::erase(std::string_view kind, std::string_view key) {
  writes_.add(
      "DELETE FROM charge_point_items WHERE charge_point_id = ? AND kind = ? AND item_key = ?",
      {charge_point_id_, std::string(kind), std::string(key)});
}

void ItemWriter::erase_all(std::string_view kind) {
  writes_.add("DELETE FROM charge_point_items WHERE charge_point_id = ? AND kind = ?",
              {charge_point_id_, std::string(kind)});
}

void ItemWriter::end_reservation(int64_t reservation_id, std::string_view status) {
  writes_.add(
      "UPDATE charge_point_items SET json = json_set(json, '$.status', ?), updated_ms = ? "
      "WHERE charge_point_id = ? AND kind = 'reservation' AND item_key = ? "
      "AND json_extract(json, '$.status') = 'Active'",
      {std::string(status), now_ms_, charge_point_id_, std::to_string(reservation_id)});
}

void ItemWriter::clear_profiles(std::optional<int64_t> id, std::optional<int64_t> connector,
                                std::optional<std::string> purpose,
                                std::optional<int64_t> stack_level) {
  auto v = [](const auto& o) -> rpc::WriteSet::Value {
    if (!o) return std::monostate{};
    return *o;
  };
  // connectorId (1.6) and evseId (2.0.1) are the same criterion; a profile has only one.
  writes_.add(
      "DELETE FROM charge_point_items WHERE charge_point_id = ? AND kind = 'charging_profile' "
      "AND (?2 IS NULL OR item_key = CAST(?2 AS TEXT)) "
      "AND (?3 IS NULL OR coalesce(json_extract(json, '$.connectorId'), "
      "json_extract(json, '$.evseId')) = ?3) "
      "AND (?4 IS NULL OR json_extract(json, '$.purpose') = ?4) "
      "AND (?5 IS NULL OR json_extract(json, '$.stackLevel') = ?5)",
      {charge_point_id_, v(id), v(connector), v(purpose), v(stack_level)});
}

void ItemWriter::put_variable(const json& component, const json& variable,
                              std::string_view attribute_type, const json& fields) {
  if (secret_variable(component, variable)) return;
  json item{{"component", component},
            {"variable", variable},
            {"attributeType", std::string(attribute_type)}};
  item.update(fields);
  put(kVariable, variable_key(component, variable, attribute_type), item);
}

std::string ItemWriter::hash_token(std::string_view token) const {
  return analytics::hash_id_token(id_token_secret_, token);
}

void record_call_result(ItemWriter& out, OcppVersion version, std::string_view action,
                        const json& request, const json& response) {
  if (const FollowUp* f = find(version, action)) f->hook(out, request, response);
}

json redacted_call_request(std::string_view action, json request) {
  static const json kRedacted = "<redacted>";
  if (action == "ChangeConfiguration" && request.is_object() &&
      secret_configuration_key(request.value("key", "")) && request.contains("value"))
    request["value"] = kRedacted;
  if (action == "SetVariables" && request.is_object()) {
    auto data = request.find("setVariableData");
    if (data != request.end() && data->is_array())
      for (json& d : *data)
        if (d.is_object() && secret_variable(d.value("component", json::object()),
                                             d.value("variable", json::object())))
          d["attributeValue"] = kRedacted;
  }
  return request;
}

bool has_follow_up(OcppVersion version, std::string_view action) {
  return find(version, action) != nullptr;
}

namespace {

void notify_report(ItemWriter& out, const json& request) {
  const json report_data = request.value("reportData", json::array());
  if (!report_data.is_array()) return;
  for (const json& entry : report_data) {
    if (!entry.is_object() || !entry.contains("component") || !entry.contains("variable")) continue;
    const json characteristics = entry.value("variableCharacteristics", json());
    for (const json& attribute : entry.value("variableAttribute", json::array())) {
      json fields = json::object();
      for (const char* k : {"value", "mutability", "persistent", "constant"})
        if (attribute.contains(k)) fields[k] = attribute.at(k);
      if (!characteristics.is_null()) fields["characteristics"] = characteristics;
      out.put_variable(entry.at("component"), entry.at("variable"),
                       attribute.value("type", "Actual"), fields);
    }
  }
}

// The answer to GetChargingProfiles (possibly in several reports): profiles the charge point
// has installed, which may include ones another CSMS or its local configuration set.
void report_charging_profiles(ItemWriter& out, const json& request) {
  for (const json& profile : request.at("chargingProfile"))
    put_profile(out, request.at("evseId"), profile, "evseId");
}

// The answer to GetDisplayMessages: the messages the charge point holds.
void notify_display_messages(ItemWriter& out, const json& request) {
  for (const json& message : request.value("messageInfo", json::array()))
    out.put(kDisplayMessage, std::to_string(rpc::required_int_member(message, "id")), message);
}

using ReportHook = void (*)(ItemWriter&, const json& request);
constexpr std::array<std::pair<std::string_view, ReportHook>, 3> kReports = {{
    {"NotifyReport", notify_report},
    {"ReportChargingProfiles", report_charging_profiles},
    {"NotifyDisplayMessages", notify_display_messages},
}};

}  // namespace

void record_report(ItemWriter& out, std::string_view action, const json& request) {
  for (const auto& [name, hook] : kReports)
    if (name == action) return hook(out, request);
}

std::unique_ptr<ChargePointItems> ChargePointItems::open(const std::string& db_path,
                                                         storage::Status* status) {
  auto db = storage::Db::open(db_path, storage::OpenOptions{.read_only = true}, status);
  if (!db) return nullptr;
  return std::unique_ptr<ChargePointItems>(new ChargePointItems(std::move(db)));
}

json ChargePointItems::items(const std::string& charge_point_id, std::string_view kind,
                             storage::Status* status) {
  storage::Statement& st = db_->cached(
      "SELECT item_key, json, updated_ms FROM charge_point_items "
      "WHERE charge_point_id = ? AND kind = ? ORDER BY updated_ms, item_key");
  st.bind(1, charge_point_id).bind(2, kind);
  json out = json::array();
  while (st.step()) set_views_item(out, st);
  if (status) *status = st.status();
  st.reset();
  return out;
}

std::optional<json> ChargePointItems::view(const std::string& charge_point_id,
                                           std::string_view view, int64_t now_ms,
                                           storage::Status* status) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kLists = {{
      {"configuration", kConfiguration},
      {"variables", kVariable},
      {"reservations", kReservation},
      {"charging-profiles", kChargingProfile},
      {"display-messages", kDisplayMessage},
  }};
  std::lock_guard lock(mu_);
  if (status) *status = {};
  if (view == "local-list") {
    json head = items(charge_point_id, kLocalList, status);
    if (status && !status->ok()) return std::nullopt;
    json entries = items(charge_point_id, kLocalListEntry, status);
    json out = head.empty() ? json{{"version", nullptr}} : head.front();
    out["entries"] = std::move(entries);
    return out;
  }
  for (const auto& [name, kind] : kLists) {
    if (view != name) continue;
    json list = items(charge_point_id, kind, status);
    if (kind == kReservation) {
      for (json& r : list) {
        const json expiry = r.value("expiry_ms", json());
        if (r.value("status", "") == "Active" && expiry.is_number_integer() &&
            expiry.get<int64_t>() <= now_ms)
          r["status"] = "Expired";
      }
    }
    return json{{"items", std::move(list)}};
  }
  return std::nullopt;
}

std::optional<int64_t> ChargePointItems::message_limit(const std::string& charge_point_id,
                                                       std::string_view limit,
                                                       std::string_view action,
                                                       storage::Status* status) {
  const std::string key =
      variable_key({{"name", "DeviceDataCtrlr"}},
                   {{"name", std::string(limit)}, {"instance", action}}, "Actual");
  std::lock_guard lock(mu_);
  storage::Statement& st = db_->cached(
      "SELECT json_extract(json, '$.value') FROM charge_point_items "
      "WHERE charge_point_id = ? AND kind = 'variable' AND item_key = ?");
  st.bind(1, charge_point_id).bind(2, key);
  std::optional<int64_t> value;
  if (st.step() && !st.is_null(0)) {
    const std::string t = st.text(0);
    char* end = nullptr;
    const long long n = std::strtoll(t.c_str(), &end, 10);
    if (end != t.c_str() && *end == '\0' && n > 0) value = n;
  }
  if (status) *status = st.status();
  st.reset();
  return value;
}

}  // namespace ocppgw::csms
