// ocpp201/mappers.cpp
#include "ocpp201/mappers.hpp"

#include <cmath>
#include <string>

#include "util/time.hpp"

namespace ocppgw::ocpp201 {
namespace {

using analytics::Event;
using analytics::EventType;
using nlohmann::json;
using rpc::int_member;
using rpc::string_member;

std::optional<std::string> to_string_opt(std::optional<std::string_view> s) {
  return s ? std::optional<std::string>(std::string(*s)) : std::nullopt;
}

// IdTokenType -> id_token_hash plus what the token says about itself (type, additionalInfo,
// whose additionalIdToken values are tokens too and are hashed the same way).
template <typename Value>
void apply_id_token(const rpc::CallContext& ctx, Event& e, const Value& id_token) {
  if (!id_token.is_object()) return;
  if (auto token = string_member(id_token, "idToken"); token && !token->empty())
    e.id_token_hash = rpc::hash_token(ctx, *token);
  if (auto type = string_member(id_token, "type")) e.extra["id_token_type"] = std::string(*type);
  if (const auto& infos = rpc::member_or_null(id_token, "additionalInfo"); infos.is_array()) {
    json hashed = json::array();
    util::all_elements(infos, [&](const Value& info) {
      json item = {{"type", util::to_tree(rpc::member_or_null(info, "type"))}};
      if (auto extra_token = string_member(info, "additionalIdToken"))
        item["additional_id_token_hash"] = rpc::hash_token(ctx, *extra_token);
      hashed.push_back(std::move(item));
      return true;
    });
    e.extra["id_token_additional_info"] = std::move(hashed);
  }
  if (id_token.contains("customData"))
    e.extra["id_token_custom_data"] = util::to_tree(rpc::member_or_null(id_token, "customData"));
}

// idTokenInfo -> the id_token_* extra keys the 1.6 mappers use too.
void keep_token_info(const rpc::CallContext& ctx, Event& e, const json& resp) {
  const json& info = rpc::member_or_null(resp, "idTokenInfo");
  rpc::keep_id_token_info(
      ctx, e, rpc::member_or_null(info, "status"), rpc::member_or_null(info, "cacheExpiryDateTime"),
      rpc::member_or_null(rpc::member_or_null(info, "groupIdToken"), "idToken"));
}

EventType transaction_event_type(std::optional<std::string_view> event_type) {
  if (event_type == "Started") return EventType::StartTransaction;
  if (event_type == "Ended") return EventType::StopTransaction;
  return EventType::MeterValues;
}

}  // namespace

template <typename Value>
rpc::SampledReading read_sampled_value(const Value& sv) {
  rpc::SampledReading r;
  if (auto measurand = string_member(sv, "measurand")) r.measurand = *measurand;
  int64_t multiplier = 0;
  if (const auto& unit = rpc::member_or_null(sv, "unitOfMeasure"); unit.is_object()) {
    if (auto text = string_member(unit, "unit")) r.unit = *text;
    multiplier = int_member(unit, "multiplier").value_or(0);
  }
  if (const auto& value = rpc::member_or_null(sv, "value"); value.is_number())
    r.value = util::json_number(value) * std::pow(10.0, static_cast<double>(multiplier));
  return r;
}
template rpc::SampledReading read_sampled_value(const json&);
template rpc::SampledReading read_sampled_value(const util::JsonTape::Value&);

void map_boot_notification(const rpc::CallContext& ctx, const json& req, const json& resp,
                           rpc::EventBuilder& out) {
  Event& e = out.add(EventType::BootNotification);
  rpc::keep_unmapped(ctx, e, req, {});
  // Same keys as the 1.6 mapper, so health views read one shape.
  e.extra["registration_status"] = rpc::member_or_null(resp, "status");
  e.extra["interval"] = rpc::member_or_null(resp, "interval");
}

template <typename Value>
void map_heartbeat(const rpc::CallContext& ctx, const Value& req, const json&,
                   rpc::EventBuilder& out) {
  Event& e = out.add(EventType::Heartbeat);
  rpc::keep_unmapped(ctx, e, req, {});
}
template void map_heartbeat(const rpc::CallContext&, const json&, const json&, rpc::EventBuilder&);
template void map_heartbeat(const rpc::CallContext&, const util::JsonTape::Value&, const json&,
                            rpc::EventBuilder&);

template <typename Value>
void map_status_notification(const rpc::CallContext& ctx, const Value& req, const json&,
                             rpc::EventBuilder& out) {
  Event& e = out.add(EventType::StatusNotification);
  e.evse_id = int_member(req, "evseId");
  e.connector_id = int_member(req, "connectorId");
  if (auto status = string_member(req, "connectorStatus"))
    e.connector_status = rpc::normalize_status(*status);
  rpc::set_device_time(e, rpc::member_or_null(req, "timestamp"));
  rpc::keep_unmapped(ctx, e, req, {"evseId", "connectorId", "connectorStatus", "timestamp"});
}
template void map_status_notification(const rpc::CallContext&, const json&, const json&,
                                      rpc::EventBuilder&);
template void map_status_notification(const rpc::CallContext&, const util::JsonTape::Value&,
                                      const json&, rpc::EventBuilder&);

void map_authorize(const rpc::CallContext& ctx, const json& req, const json& resp,
                   rpc::EventBuilder& out) {
  Event& e = out.add(EventType::Authorize);
  apply_id_token(ctx, e, rpc::member_or_null(req, "idToken"));
  keep_token_info(ctx, e, resp);
  if (auto status = string_member(resp, "certificateStatus"))
    e.extra["certificate_status"] = *status;
  rpc::keep_unmapped(ctx, e, req, {}, {"idToken"});
}

// TransactionEvent -> events. The primary event has the frame's type (Started ->
// StartTransaction, Updated -> MeterValues, Ended -> StopTransaction) and the message
// timestamp as event_ts. meterValue entries are grouped by instant: the group at the message
// timestamp, if any, is carried by the primary event; every other instant becomes a MeterValues
// event of its own with that instant as event_ts. For Updated the primary event is itself a
// MeterValues event, so it is only made separately when no group sits at the message timestamp
// and the frame has no meter values at all (a state change such as ChargingStateChanged).
// Every event carries the transaction id, seq_no, trigger_reason, evse/connector, the token
// hash and the frame's flags; the rest of the payload is kept once, on the first event.
template <typename Value>
void map_transaction_event(const rpc::CallContext& ctx, const Value& req, const json& resp,
                           rpc::EventBuilder& out) {
  const auto& info = rpc::member_or_null(req, "transactionInfo");  // null unless an object
  const auto& evse = rpc::member_or_null(req, "evse");
  const auto event_type = string_member(req, "eventType");
  const auto& offline_member = rpc::member_or_null(req, "offline");
  const bool offline = offline_member.is_boolean() && util::json_bool(offline_member);
  const auto& message_ts = rpc::member_or_null(req, "timestamp");
  const auto groups = rpc::group_meter_values(rpc::member_or_null(req, "meterValue"));

  auto common = [&](Event& e) {
    e.transaction_id = to_string_opt(string_member(info, "transactionId"));
    e.seq_no = int_member(req, "seqNo");
    e.trigger_reason = to_string_opt(string_member(req, "triggerReason"));
    if (evse.is_object()) {
      e.evse_id = int_member(evse, "id");
      e.connector_id = int_member(evse, "connectorId");
    }
    if (offline) e.flags.emplace_back(analytics::flag::kOfflineReplay);
  };
  auto first_extra = [&](Event& e) {
    apply_id_token(ctx, e, rpc::member_or_null(req, "idToken"));
    keep_token_info(ctx, e, resp);
    rpc::keep_unmapped(ctx, e, req,
                       {"eventType", "timestamp", "triggerReason", "seqNo", "offline", "meterValue",
                        "transactionInfo/transactionId", "transactionInfo/stoppedReason", "evse/id",
                        "evse/connectorId"},
                       {"idToken"});
  };
  auto token_hash = [&]() -> std::optional<std::string> {
    const auto text = string_member(rpc::member_or_null(req, "idToken"), "idToken");
    if (!text || text->empty()) return std::nullopt;
    return rpc::hash_token(ctx, *text);
  };
  const auto hash = token_hash();

  const EventType primary_type = transaction_event_type(event_type);
  const std::optional<int64_t> message_ms =
      message_ts.is_string() ? util::parse_rfc3339_ms(util::json_string(message_ts)) : std::nullopt;
  const auto* primary_group = rpc::find_group(groups, message_ms);
  const bool primary_needed =
      primary_type != EventType::MeterValues || primary_group || groups.empty();

  bool first = true;
  if (primary_needed) {
    Event& e = out.add(primary_type);
    common(e);
    e.id_token_hash = hash;
    rpc::set_device_time(e, message_ts);
    if (primary_type == EventType::StopTransaction)
      e.stop_reason = to_string_opt(string_member(info, "stoppedReason"));
    if (primary_group) rpc::apply_meter_value_group(e, *primary_group, &read_sampled_value<Value>);
    first_extra(e);
    first = false;
  }
  for (const auto& group : groups) {
    if (&group == primary_group) continue;
    Event& e = out.add(EventType::MeterValues);
    common(e);
    e.id_token_hash = hash;
    rpc::set_device_time(e, rpc::referred(group.timestamp));
    rpc::apply_meter_value_group(e, group, &read_sampled_value<Value>);
    if (first) first_extra(e);
    first = false;
  }
}
template void map_transaction_event(const rpc::CallContext&, const json&, const json&,
                                    rpc::EventBuilder&);
template void map_transaction_event(const rpc::CallContext&, const util::JsonTape::Value&,
                                    const json&, rpc::EventBuilder&);

template <typename Value>
void map_meter_values(const rpc::CallContext& ctx, const Value& req, const json&,
                      rpc::EventBuilder& out) {
  const auto groups = rpc::group_meter_values(rpc::member_or_null(req, "meterValue"));
  const auto evse_id = int_member(req, "evseId");
  bool first = true;
  auto add = [&]() -> Event& {
    Event& e = out.add(EventType::MeterValues);
    e.evse_id = evse_id;
    if (first) rpc::keep_unmapped(ctx, e, req, {"evseId", "meterValue"});
    first = false;
    return e;
  };
  for (const auto& group : groups) {
    Event& e = add();
    rpc::set_device_time(e, rpc::referred(group.timestamp));
    rpc::apply_meter_value_group(e, group, &read_sampled_value<Value>);
  }
  if (groups.empty()) add();  // only reachable in lenient mode (minItems 1)
}
template void map_meter_values(const rpc::CallContext&, const json&, const json&,
                               rpc::EventBuilder&);
template void map_meter_values(const rpc::CallContext&, const util::JsonTape::Value&, const json&,
                               rpc::EventBuilder&);

void add_payload_event(EventType type, const rpc::CallContext& ctx, const json& req,
                       const json& resp, rpc::EventBuilder& out) {
  Event& e = out.add(type);
  e.evse_id = int_member(req, "evseId");
  const char* time_member = req.contains("timestamp") ? "timestamp" : "generatedAt";
  rpc::set_device_time(e, rpc::member_or_null(req, time_member));
  rpc::keep_unmapped(ctx, e, req, {"evseId", time_member});
  if (auto status = string_member(resp, "status"))
    e.extra["response_status"] = std::string(*status);
}

}  // namespace ocppgw::ocpp201
