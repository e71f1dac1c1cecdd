// ocpp16/actions.hpp: the handlers (request -> response) and mappers (request + response ->
// canonical events) that make up the 1.6 action table in protocol.cpp. All are pure functions
// of their arguments and of ctx.state; they hold no state of their own and may run on any
// thread. Handlers are called after rpc::dispatch validated the request, but in lenient mode
// the request may still break the schema, so every field is read defensively: a field the
// handler cannot do without yields the CALLERROR of its validation class, anything else is
// answered normally.
#pragma once

#include <nlohmann/json.hpp>

#include "rpc/action.hpp"
#include "rpc/mapper_util.hpp"

namespace ocppgw::ocpp16 {

// ---- handlers (handlers.cpp) ----
rpc::HandleResult handle_authorize(rpc::CallContext& ctx, const nlohmann::json& request);
rpc::HandleResult handle_boot_notification(rpc::CallContext& ctx, const nlohmann::json& request);
rpc::HandleResult handle_data_transfer(rpc::CallContext& ctx, const nlohmann::json& request);
// Templates: the hot actions are read from a tree or a tape alike (rpc/action.hpp, TapeHandleFn).
template <typename Value>
rpc::HandleResult handle_heartbeat(rpc::CallContext& ctx, const Value& request);
template <typename Value>
rpc::HandleResult handle_meter_values(rpc::CallContext& ctx, const Value& request);
rpc::HandleResult handle_start_transaction(rpc::CallContext& ctx, const nlohmann::json& request);
rpc::HandleResult handle_stop_transaction(rpc::CallContext& ctx, const nlohmann::json& request);
// Status, diagnostics-status, firmware-status and the security extension's notifications: the
// answer is always {}.
template <typename Value>
rpc::HandleResult handle_notification(rpc::CallContext&, const Value&) {
  return nlohmann::json::object();
}
// Security extension SignCertificate: Accepted when the CSMS state will have the CSR signed
// (CertificateSigned follows), else Rejected (rpc/certificate_request.hpp).
rpc::HandleResult handle_sign_certificate(rpc::CallContext& ctx, const nlohmann::json& request);

// ---- mappers (mappers.cpp) ----
void map_authorize(const rpc::CallContext& ctx, const nlohmann::json& request,
                   const nlohmann::json& response, rpc::EventBuilder& out);
void map_boot_notification(const rpc::CallContext& ctx, const nlohmann::json& request,
                           const nlohmann::json& response, rpc::EventBuilder& out);
void map_data_transfer(const rpc::CallContext& ctx, const nlohmann::json& request,
                       const nlohmann::json& response, rpc::EventBuilder& out);
// One event of `Type` whose extra is the whole request: the status notifications (diagnostics,
// log, firmware, signed firmware), security events, and what is recorded but not modelled.
void map_payload_as(analytics::EventType type, const nlohmann::json& request,
                    rpc::EventBuilder& out);
template <analytics::EventType Type>
void map_payload(const rpc::CallContext&, const nlohmann::json& request, const nlohmann::json&,
                 rpc::EventBuilder& out) {
  map_payload_as(Type, request, out);
}
template <typename Value>
void map_heartbeat(const rpc::CallContext& ctx, const Value& request,
                   const nlohmann::json& response, rpc::EventBuilder& out);
template <typename Value>
void map_meter_values(const rpc::CallContext& ctx, const Value& request,
                      const nlohmann::json& response, rpc::EventBuilder& out);
void map_start_transaction(const rpc::CallContext& ctx, const nlohmann::json& request,
                           const nlohmann::json& response, rpc::EventBuilder& out);
template <typename Value>
void map_status_notification(const rpc::CallContext& ctx, const Value& request,
                             const nlohmann::json& response, rpc::EventBuilder& out);
void map_stop_transaction(const rpc::CallContext& ctx, const nlohmann::json& request,
                          const nlohmann::json& response, rpc::EventBuilder& out);

// SampledValue of 1.6 for rpc::apply_sampled_values: the value is a decimal string (a JSON
// number is accepted too), measurand and unit are strings beside it, there is no multiplier.
// Signed data, and a value whose measurand or unit is mistyped, reads as no number.
template <typename Value>
rpc::SampledReading read_sampled_value(const Value& sampled_value);

}  // namespace ocppgw::ocpp16
