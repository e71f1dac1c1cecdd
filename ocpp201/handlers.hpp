// ocpp201/handlers.hpp: request -> response for the 2.0.1 actions. Each handler is a pure
// function of the request and ctx.state; actions that answer the same way share one handler.
// Called on the session's strand; no I/O of their own.
#pragma once

#include <nlohmann/json.hpp>

#include "rpc/action.hpp"

namespace ocppgw::ocpp201 {

rpc::HandleResult handle_boot_notification(rpc::CallContext& ctx, const nlohmann::json& req);
template <typename Value>
rpc::HandleResult handle_heartbeat(rpc::CallContext& ctx, const Value& req);
rpc::HandleResult handle_authorize(rpc::CallContext& ctx, const nlohmann::json& req);
// Templates: the hot actions are read from a tree or a tape alike (rpc/action.hpp, TapeHandleFn).
template <typename Value>
rpc::HandleResult handle_transaction_event(rpc::CallContext& ctx, const Value& req);
// NotifyReport, ReportChargingProfiles, NotifyDisplayMessages: kept by the CSMS state.
rpc::HandleResult handle_report(rpc::CallContext& ctx, const nlohmann::json& req);

// Accepted when the CSMS state will have the CSR signed (CertificateSigned follows), else
// Rejected with the reason in statusInfo (rpc/certificate_request.hpp).
rpc::HandleResult handle_sign_certificate(rpc::CallContext& ctx, const nlohmann::json& req);
rpc::HandleResult handle_get_15118_ev_certificate(rpc::CallContext& ctx, const nlohmann::json& req);
rpc::HandleResult handle_get_certificate_status(rpc::CallContext& ctx, const nlohmann::json& req);

// `{}`: the response of every notification whose response schema has no required member.
template <typename Value>
rpc::HandleResult empty_response(rpc::CallContext&, const Value&) {
  return nlohmann::json::object();
}

// A fixed, schema-valid answer chosen by ctx.action, for requests this gateway cannot serve
// yet (no OCSP responder, ISO 15118 backend, smart charging, vendor extensions): the
// refusal or failure status the schema offers, with a statusInfo saying why.
rpc::HandleResult fixed_answer(rpc::CallContext& ctx, const nlohmann::json& req);

// idTokenInfo in 2.0.1 shape (status outside the 2.0.1 enum becomes "Invalid").
nlohmann::json id_token_info_json(const rpc::IdTokenInfo& info);

}  // namespace ocppgw::ocpp201
