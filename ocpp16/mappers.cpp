// ocpp16/mappers.cpp: flattening of 1.6 frames into canonical events (docs/event_contract.md).
// Columns are filled where the contract has one; every other request member goes to `extra`
// under its OCPP name, so nothing a charge point sent is dropped. Values the gateway decided
// (authorisation status, registration status, ...) go to `extra` under the snake_case names the
// 2.0.1 mappers use too (docs/event_contract.md).
// A member a mapper knows but cannot use (lenient mode: wrong type) is kept in `extra` as sent.
// id tags only ever appear as HMAC hashes. Pure functions; any thread.
#include <charconv>
#include <cmath>
#include <string>

#include "ocpp16/actions.hpp"
#include "ocpp16/fields.hpp"
#include "rpc/event_builder.hpp"
#include "rpc/mapper_util.hpp"

namespace ocppgw::ocpp16 {
namespace {

using analytics::Event;
using analytics::EventType;
using nlohmann::json;
using rpc::as_integer;
using rpc::member_or_null;

// Value: a tree or a tape (rpc/action.hpp, TapeHandleFn); the hot actions' mappers are templates.
template <typename Value>
std::optional<int64_t> integer_column(Event& e, const Value& request, std::string_view key) {
  const auto& v = member_or_null(request, key);
  if (v.is_null()) return std::nullopt;
  if (auto i = as_integer(v)) return i;
  e.extra[std::string(key)] = util::to_tree(v);
  return std::nullopt;
}

template <typename Value>
std::optional<std::string> string_column(Event& e, const Value& request, std::string_view key) {
  const auto& v = member_or_null(request, key);
  if (v.is_null()) return std::nullopt;
  if (v.is_string()) return std::string(util::json_string(v));
  e.extra[std::string(key)] = util::to_tree(v);
  return std::nullopt;
}

// A mistyped id tag is hashed as its JSON text: the raw value still never leaves.
std::optional<std::string> token_hash(const rpc::CallContext& ctx, const json& id_tag) {
  if (id_tag.is_null()) return std::nullopt;
  return rpc::hash_token(ctx,
                         id_tag.is_string() ? id_tag.get_ref<const std::string&>() : id_tag.dump());
}

// Start and stop events carry only the status of idTagInfo; Authorize carries all of it.
void keep_id_tag_status(const rpc::CallContext& ctx, Event& e, const json& response) {
  rpc::keep_id_token_info(ctx, e, member_or_null(member_or_null(response, "idTagInfo"), "status"));
}

// 1.6 sampled values are decimal strings. Surrounding blanks are the only repair; anything
// else that is not a finite number is left unparsed (and so kept in extra), never guessed.
template <typename Value>
std::optional<double> parse_reading(const Value& value) {
  if (value.is_number()) return util::json_number(value);
  if (!value.is_string()) return std::nullopt;
  std::string_view s = util::json_string(value);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  double d = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(d))
    return std::nullopt;
  return d;
}

// One MeterValues event per meterValue entry (one timestamp each).
template <typename Value>
void add_meter_value(rpc::EventBuilder& out, const Value& entry,
                     std::optional<int64_t> connector_id,
                     const std::optional<std::string>& transaction_id, const json& frame_extra) {
  Event& e = out.add(EventType::MeterValues);
  e.connector_id = connector_id;
  e.transaction_id = transaction_id;
  for (auto it = frame_extra.begin(); it != frame_extra.end(); ++it) e.extra[it.key()] = it.value();
  if (!entry.is_object()) {
    e.extra["meterValue"] = util::to_tree(entry);
    return;
  }
  rpc::set_device_time(e, member_or_null(entry, "timestamp"));
  const auto& sampled_values = member_or_null(entry, "sampledValue");
  if (sampled_values.is_array())
    rpc::apply_sampled_values(e, sampled_values, &read_sampled_value<Value>);
  else if (!sampled_values.is_null())
    e.extra["sampledValue"] = util::to_tree(sampled_values);
  rpc::keep_unknown_fields(e, entry, {"timestamp", "sampledValue"});
}

// The transaction a frame belongs to: as sent, unless the handler linked a -1 / never-issued id
// (ctx.resolved_transaction_id); then the sent id is kept in `extra` so nothing is lost.
std::optional<std::string> transaction_of(const rpc::CallContext& ctx, Event& frame,
                                          std::optional<int64_t> sent) {
  if (!sent) return std::nullopt;
  if (!ctx.resolved_transaction_id) return std::to_string(*sent);
  frame.extra["sent_transaction_id"] = *sent;
  return ctx.resolved_transaction_id;
}

// Events for messages whose whole payload belongs in extra.
template <typename Value>
Event& add_verbatim(rpc::EventBuilder& out, EventType type, const Value& request) {
  Event& e = out.add(type);
  rpc::keep_unknown_fields(e, request, {});
  return e;
}

}  // namespace

template <typename Value>
rpc::SampledReading read_sampled_value(const Value& sv) {
  // Absent measurand/unit mean the 1.6 defaults; present but mistyped ones make the value
  // unusable, so it lands in extra instead of in a column it may not belong to.
  const auto& measurand = member_or_null(sv, "measurand");
  const auto& unit = member_or_null(sv, "unit");
  const auto& format = member_or_null(sv, "format");
  rpc::SampledReading r;
  r.measurand = rpc::string_member(sv, "measurand").value_or("");
  r.unit = rpc::string_member(sv, "unit").value_or("");
  const bool signed_data = format.is_string() && util::json_string(format) == "SignedData";
  const bool usable = (measurand.is_null() || measurand.is_string()) &&
                      (unit.is_null() || unit.is_string()) && !signed_data;
  if (usable) r.value = parse_reading(member_or_null(sv, "value"));
  return r;
}
template rpc::SampledReading read_sampled_value(const json&);
template rpc::SampledReading read_sampled_value(const util::JsonTape::Value&);

void map_authorize(const rpc::CallContext& ctx, const json& request, const json& response,
                   rpc::EventBuilder& out) {
  Event& e = out.add(EventType::Authorize);
  e.id_token_hash = token_hash(ctx, member_or_null(request, "idTag"));
  const json& info = member_or_null(response, "idTagInfo");
  rpc::keep_id_token_info(ctx, e, member_or_null(info, "status"),
                          member_or_null(info, "expiryDate"), member_or_null(info, "parentIdTag"));
  rpc::keep_unknown_fields(e, request, {"idTag"});
}

void map_boot_notification(const rpc::CallContext&, const json& request, const json& response,
                           rpc::EventBuilder& out) {
  Event& e = add_verbatim(out, EventType::BootNotification, request);
  e.extra["registration_status"] = member_or_null(response, "status");
  e.extra["interval"] = member_or_null(response, "interval");
}

void map_data_transfer(const rpc::CallContext&, const json& request, const json& response,
                       rpc::EventBuilder& out) {
  Event& e = add_verbatim(out, EventType::DataTransfer, request);
  e.extra["response_status"] = member_or_null(response, "status");
}

void map_payload_as(EventType type, const json& request, rpc::EventBuilder& out) {
  add_verbatim(out, type, request);
}

template <typename Value>
void map_heartbeat(const rpc::CallContext&, const Value& request, const json&,
                   rpc::EventBuilder& out) {
  add_verbatim(out, EventType::Heartbeat, request);
}
template void map_heartbeat(const rpc::CallContext&, const json&, const json&, rpc::EventBuilder&);
template void map_heartbeat(const rpc::CallContext&, const util::JsonTape::Value&, const json&,
                            rpc::EventBuilder&);

template <typename Value>
void map_meter_values(const rpc::CallContext& ctx, const Value& request, const json&,
                      rpc::EventBuilder& out) {
  // Frame-level members (ids, unknown fields) are resolved once and copied onto each event.
  Event frame;
  const auto connector_id = integer_column(frame, request, "connectorId");
  const std::optional<std::string> transaction_id =
      transaction_of(ctx, frame, integer_column(frame, request, "transactionId"));
  rpc::keep_unknown_fields(frame, request, {"connectorId", "transactionId", "meterValue"});

  const auto& meter_values = member_or_null(request, "meterValue");
  if (meter_values.is_array() && !meter_values.empty()) {
    util::all_elements(meter_values, [&](const Value& entry) {
      add_meter_value(out, entry, connector_id, transaction_id, frame.extra);
      return true;
    });
    return;
  }
  // No usable entries (lenient mode): still one event, with whatever was sent.
  if (!meter_values.is_null()) frame.extra["meterValue"] = util::to_tree(meter_values);
  add_meter_value(out, json::object(), connector_id, transaction_id, frame.extra);
}
template void map_meter_values(const rpc::CallContext&, const json&, const json&,
                               rpc::EventBuilder&);
template void map_meter_values(const rpc::CallContext&, const util::JsonTape::Value&, const json&,
                               rpc::EventBuilder&);

void map_start_transaction(const rpc::CallContext& ctx, const json& request, const json& response,
                           rpc::EventBuilder& out) {
  Event& e = out.add(EventType::StartTransaction);
  e.connector_id = integer_column(e, request, "connectorId");
  if (auto tx = as_integer(member_or_null(response, "transactionId")))
    e.transaction_id = std::to_string(*tx);
  if (auto meter = integer_column(e, request, "meterStart"))
    e.meter_wh = static_cast<double>(*meter);
  e.id_token_hash = token_hash(ctx, member_or_null(request, "idTag"));
  rpc::set_device_time(e, member_or_null(request, "timestamp"));
  keep_id_tag_status(ctx, e, response);
  rpc::keep_unknown_fields(e, request, {"connectorId", "meterStart", "idTag", "timestamp"});
}

template <typename Value>
void map_status_notification(const rpc::CallContext&, const Value& request, const json&,
                             rpc::EventBuilder& out) {
  Event& e = out.add(EventType::StatusNotification);
  e.connector_id = integer_column(e, request, "connectorId");
  if (auto status = string_column(e, request, "status"))
    e.connector_status = rpc::normalize_status(*status);
  e.error_code = string_column(e, request, "errorCode");
  rpc::set_device_time(e, member_or_null(request, "timestamp"));
  rpc::keep_unknown_fields(e, request, {"connectorId", "status", "errorCode", "timestamp"});
}
template void map_status_notification(const rpc::CallContext&, const json&, const json&,
                                      rpc::EventBuilder&);
template void map_status_notification(const rpc::CallContext&, const util::JsonTape::Value&,
                                      const json&, rpc::EventBuilder&);

void map_stop_transaction(const rpc::CallContext& ctx, const json& request, const json& response,
                          rpc::EventBuilder& out) {
  std::optional<std::string> transaction_id;
  const json* transaction_data = nullptr;
  Event frame;  // what every event of the frame carries (the id as sent, when linked)
  {
    Event& e = out.add(EventType::StopTransaction);
    transaction_id = transaction_of(ctx, frame, integer_column(e, request, "transactionId"));
    e.transaction_id = transaction_id;
    for (auto it = frame.extra.begin(); it != frame.extra.end(); ++it)
      e.extra[it.key()] = it.value();
    if (auto meter = integer_column(e, request, "meterStop"))
      e.meter_wh = static_cast<double>(*meter);
    // 1.6: an absent reason means Local.
    e.stop_reason = member_or_null(request, "reason").is_null()
                        ? std::optional<std::string>("Local")
                        : string_column(e, request, "reason");
    e.id_token_hash = token_hash(ctx, member_or_null(request, "idTag"));
    rpc::set_device_time(e, member_or_null(request, "timestamp"));
    keep_id_tag_status(ctx, e, response);
    rpc::keep_unknown_fields(
        e, request,
        {"transactionId", "meterStop", "reason", "idTag", "timestamp", "transactionData"});
    const json& data = member_or_null(request, "transactionData");
    if (data.is_array())
      transaction_data = &data;
    else if (!data.is_null())
      e.extra["transactionData"] = data;
  }  // `e` is not used past here: add() below may move it.
  if (transaction_data) {
    for (const json& entry : *transaction_data)
      add_meter_value(out, entry, std::nullopt, transaction_id, frame.extra);
  }
}

}  // namespace ocppgw::ocpp16
