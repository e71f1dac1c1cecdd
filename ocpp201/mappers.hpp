// ocpp201/mappers.hpp: 2.0.1 request (+ the response we sent) -> canonical events. Pure
// functions called by rpc::dispatch after the response was validated; they never throw, so a
// frame that was answered always yields its events. Rule for extra: everything in the payload
// that did not become a column is kept under its original name and nesting; raw id tokens are
// the one exception (they become id_token_hash and never leave the gateway).
#pragma once

#include <nlohmann/json.hpp>

#include "analytics/event.hpp"
#include "rpc/action.hpp"
#include "rpc/event_builder.hpp"
#include "rpc/mapper_util.hpp"

namespace ocppgw::ocpp201 {

void map_boot_notification(const rpc::CallContext& ctx, const nlohmann::json& req,
                           const nlohmann::json& resp, rpc::EventBuilder& out);
template <typename Value>
void map_heartbeat(const rpc::CallContext& ctx, const Value& req, const nlohmann::json& resp,
                   rpc::EventBuilder& out);
template <typename Value>
void map_status_notification(const rpc::CallContext& ctx, const Value& req,
                             const nlohmann::json& resp, rpc::EventBuilder& out);
void map_authorize(const rpc::CallContext& ctx, const nlohmann::json& req,
                   const nlohmann::json& resp, rpc::EventBuilder& out);
template <typename Value>
void map_transaction_event(const rpc::CallContext& ctx, const Value& req,
                           const nlohmann::json& resp, rpc::EventBuilder& out);
template <typename Value>
void map_meter_values(const rpc::CallContext& ctx, const Value& req, const nlohmann::json& resp,
                      rpc::EventBuilder& out);

// One event of `type` whose extra is the payload: for every action that is recorded rather
// than modelled. event_ts is the payload's own time (timestamp or generatedAt) when it has one;
// evseId becomes evse_id; a "status" in our response is kept as extra.response_status.
void add_payload_event(analytics::EventType type, const rpc::CallContext& ctx,
                       const nlohmann::json& req, const nlohmann::json& resp,
                       rpc::EventBuilder& out);

template <analytics::EventType Type>
void map_payload(const rpc::CallContext& ctx, const nlohmann::json& req, const nlohmann::json& resp,
                 rpc::EventBuilder& out) {
  add_payload_event(Type, ctx, req, resp, out);
}

// SampledValueType of 2.0.1: a JSON number, scaled by unitOfMeasure.multiplier (value *
// 10^multiplier), unit from unitOfMeasure.unit.
template <typename Value>
rpc::SampledReading read_sampled_value(const Value& sampled_value);

}  // namespace ocppgw::ocpp201
