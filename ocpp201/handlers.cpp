// ocpp201/handlers.cpp
#include "ocpp201/handlers.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <string>

#include "rpc/certificate_request.hpp"
#include "rpc/mapper_util.hpp"
#include "util/time.hpp"

namespace ocppgw::ocpp201 {
namespace {

using nlohmann::json;

// AuthorizationStatusEnumType of the 2.0.1 schemas.
constexpr std::array<std::string_view, 10> kAuthorizationStatuses = {
    "Accepted",           "Blocked",           "ConcurrentTx",  "Expired", "Invalid", "NoCredit",
    "NotAllowedTypeEVSE", "NotAtThisLocation", "NotAtThisTime", "Unknown"};

// Answers of fixed_answer(), as JSON text so the table reads like the wire. reasonCode is at
// most 20 characters in the schema.
struct FixedAnswer {
  std::string_view action;
  std::string_view response;
};
constexpr FixedAnswer kFixedAnswers[] = {
    {"DataTransfer",
     R"({"status":"UnknownVendorId","statusInfo":{"reasonCode":"UnknownVendorId",
        "additionalInfo":"this CSMS implements no vendor-specific data transfer"}})"},
    // Rejected: no charging schedule will follow, since this CSMS does no smart charging.
    {"NotifyEVChargingNeeds",
     R"({"status":"Rejected","statusInfo":{"reasonCode":"NoSmartCharging",
        "additionalInfo":"this CSMS does not compute charging schedules"}})"},
    // Accepted only means "processed"; it approves nothing (schema description).
    {"NotifyEVChargingSchedule", R"({"status":"Accepted"})"},
};

const std::map<std::string_view, json>& fixed_answers() {
  static const std::map<std::string_view, json> answers = [] {
    std::map<std::string_view, json> m;
    for (const auto& a : kFixedAnswers) m.emplace(a.action, json::parse(a.response));
    return m;
  }();
  return answers;
}

std::string now_text(const rpc::CallContext& ctx) {
  return util::format_rfc3339_ms(ctx.ingest_ts_ms);
}

// An optional string member; lenient mode may send another type, which counts as absent.
template <typename Value>
std::optional<std::string> optional_string(const Value& object, std::string_view key) {
  if (auto v = rpc::string_member(object, key)) return std::string(*v);
  return std::nullopt;
}

void add_flag(rpc::CallContext& ctx, std::string_view flag) {
  if (std::find(ctx.flags.begin(), ctx.flags.end(), flag) == ctx.flags.end())
    ctx.flags.emplace_back(flag);
}

}  // namespace

json id_token_info_json(const rpc::IdTokenInfo& info) {
  const bool known = std::find(kAuthorizationStatuses.begin(), kAuthorizationStatuses.end(),
                               info.status) != kAuthorizationStatuses.end();
  json out = {{"status", known ? info.status : std::string("Invalid")}};
  if (info.expiry_ms) out["cacheExpiryDateTime"] = util::format_rfc3339_ms(*info.expiry_ms);
  // 2.0.1 group tokens are typed; a group id kept by the CSMS is a central one.
  if (info.parent_id) out["groupIdToken"] = {{"idToken", *info.parent_id}, {"type", "Central"}};
  return out;
}

rpc::HandleResult handle_boot_notification(rpc::CallContext& ctx, const json& req) {
  const json& station = req.at("chargingStation");
  rpc::BootInfo info;
  info.vendor = station.at("vendorName").get<std::string>();
  info.model = station.at("model").get<std::string>();
  info.serial_number = optional_string(station, "serialNumber");
  info.firmware_version = optional_string(station, "firmwareVersion");
  info.reason = req.at("reason").get<std::string>();
  const rpc::BootDecision decision = ctx.state.boot(ctx, info);
  return json{{"currentTime", now_text(ctx)},
              {"interval", decision.interval_s},
              {"status", decision.status}};
}

template <typename Value>
rpc::HandleResult handle_heartbeat(rpc::CallContext& ctx, const Value&) {
  return json{{"currentTime", now_text(ctx)}};
}
template rpc::HandleResult handle_heartbeat(rpc::CallContext&, const json&);
template rpc::HandleResult handle_heartbeat(rpc::CallContext&, const util::JsonTape::Value&);

namespace {

rpc::OcspRequestData ocsp_request_data(const json& data) {
  return {data.at("hashAlgorithm").get<std::string>(), data.at("issuerNameHash").get<std::string>(),
          data.at("issuerKeyHash").get<std::string>(), data.at("serialNumber").get<std::string>(),
          data.at("responderURL").get<std::string>()};
}

}  // namespace

// Plug & Charge (C07): a contract certificate chain comes as OCSP request data, one entry per
// certificate. Any certificate its responder calls revoked makes the token Invalid whatever the
// token list says, and one the responder does not know is a chain error; when no responder
// could be asked, nothing is claimed about the certificate (no certificateStatus) and the token
// list decides alone, as for a token without certificates.
rpc::HandleResult handle_authorize(rpc::CallContext& ctx, const json& req) {
  const auto token = req.at("idToken").at("idToken").get<std::string>();
  json info = id_token_info_json(ctx.state.authorize(ctx, token));
  auto chain = req.find("iso15118CertificateHashData");
  if (chain == req.end() || chain->empty()) return json{{"idTokenInfo", std::move(info)}};
  bool revoked = false, unknown = false, all_good = true;
  for (const auto& data : *chain) {
    const rpc::OcspResult r = ctx.state.certificate_status(ctx, ocsp_request_data(data));
    revoked |= r.status == rpc::OcspResult::Status::Revoked;
    unknown |= r.status == rpc::OcspResult::Status::Unknown;
    all_good &= r.status == rpc::OcspResult::Status::Good;
  }
  json resp = json::object();
  if (revoked) {
    resp["certificateStatus"] = "CertificateRevoked";
    info["status"] = "Invalid";
  } else if (unknown) {
    resp["certificateStatus"] = "CertChainError";
    info["status"] = "Invalid";
  } else if (all_good) {
    resp["certificateStatus"] = "Accepted";
  }
  resp["idTokenInfo"] = std::move(info);
  return resp;
}

rpc::HandleResult handle_get_15118_ev_certificate(rpc::CallContext& ctx, const json& req) {
  rpc::EvCertificateResult r = ctx.state.ev_certificate(
      ctx, {req.at("action").get<std::string>(), req.at("iso15118SchemaVersion").get<std::string>(),
            req.at("exiRequest").get<std::string>()});
  // The schema's bound on exiResponse; a longer answer cannot be sent.
  if (r.accepted && r.exi_response.size() > 7500)
    r = {
        false, {}, "BackendFailed", "the contract backend's answer is longer than 7500 characters"};
  if (r.accepted) return json{{"status", "Accepted"}, {"exiResponse", std::move(r.exi_response)}};
  return json{
      {"status", "Failed"},
      {"exiResponse", ""},
      {"statusInfo", {{"reasonCode", r.reason_code}, {"additionalInfo", r.reason.substr(0, 500)}}}};
}

rpc::HandleResult handle_get_certificate_status(rpc::CallContext& ctx, const json& req) {
  const rpc::OcspResult r =
      ctx.state.certificate_status(ctx, ocsp_request_data(req.at("ocspRequestData")));
  if (r.status == rpc::OcspResult::Status::Failed)
    return json{{"status", "Failed"},
                {"statusInfo",
                 {{"reasonCode", "OcspFailed"}, {"additionalInfo", r.reason.substr(0, 500)}}}};
  // The schema's bound; a longer answer (a responder listing many certificates) cannot be sent.
  if (r.response_base64.size() > 5500)
    return json{
        {"status", "Failed"},
        {"statusInfo",
         {{"reasonCode", "OcspFailed"},
          {"additionalInfo", "the OCSP response is longer than GetCertificateStatus can carry"}}}};
  return json{{"status", "Accepted"}, {"ocspResult", r.response_base64}};
}

template <typename Value>
rpc::HandleResult handle_transaction_event(rpc::CallContext& ctx, const Value& req) {
  const auto& info = rpc::required_member(req, "transactionInfo");
  rpc::TransactionEvent201 tx;
  tx.transaction_id = std::string(rpc::required_string(info, "transactionId"));
  tx.event_type = std::string(rpc::required_string(req, "eventType"));
  tx.seq_no = rpc::required_int_member(req, "seqNo");
  // The state orders events by device time; an unreadable one is flagged by the mapper and
  // must not stop the frame from being acknowledged.
  tx.timestamp_ms =
      util::parse_rfc3339_ms(rpc::required_string(req, "timestamp")).value_or(ctx.ingest_ts_ms);
  tx.offline = rpc::boolean_member_or(req, "offline", false);
  if (req.contains("evse")) {
    const auto& evse = rpc::member_or_null(req, "evse");
    tx.evse_id = rpc::required_int_member(evse, "id");
    tx.connector_id = rpc::int_member(evse, "connectorId");
  }
  if (req.contains("idToken"))
    tx.id_token = std::string(rpc::required_string(rpc::member_or_null(req, "idToken"), "idToken"));
  tx.stopped_reason = optional_string(info, "stoppedReason");
  tx.reservation_id = rpc::int_member(req, "reservationId");

  rpc::TransactionEvent201Result result = ctx.state.transaction_event(ctx, tx);
  for (const auto& flag : result.flags) add_flag(ctx, flag);

  json response = json::object();
  if (tx.id_token) {
    // The spec asks for idTokenInfo whenever an idToken was sent.
    const rpc::IdTokenInfo token_info =
        result.id_token_info ? *result.id_token_info : ctx.state.authorize(ctx, *tx.id_token);
    response["idTokenInfo"] = id_token_info_json(token_info);
  }
  return response;
}
template rpc::HandleResult handle_transaction_event(rpc::CallContext&, const json&);
template rpc::HandleResult handle_transaction_event(rpc::CallContext&,
                                                    const util::JsonTape::Value&);

rpc::HandleResult handle_report(rpc::CallContext& ctx, const json& req) {
  ctx.state.store_report(ctx, req);
  return json::object();
}

rpc::HandleResult handle_sign_certificate(rpc::CallContext& ctx, const json& req) {
  rpc::CertificateRequest request{req.value("csr", std::string())};
  if (auto type = optional_string(req, "certificateType")) request.certificate_type = *type;
  const rpc::CertificateDecision d = rpc::request_certificate(ctx, std::move(request));
  if (d.accepted) return json{{"status", "Accepted"}};
  return json{{"status", "Rejected"},
              {"statusInfo", {{"reasonCode", d.reason_code}, {"additionalInfo", d.detail}}}};
}

rpc::HandleResult fixed_answer(rpc::CallContext& ctx, const json&) {
  const auto& answers = fixed_answers();
  auto it = answers.find(ctx.action);
  if (it == answers.end())
    return rpc::CallError{rpc::RpcError::InternalError,
                          "no fixed answer for " + std::string(ctx.action)};
  return it->second;
}

}  // namespace ocppgw::ocpp201
