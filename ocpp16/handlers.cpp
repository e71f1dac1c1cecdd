// ocpp16/handlers.cpp: the CSMS answers to the ten charge-point-initiated 1.6 actions. Every
// decision that needs memory (registration, authorisation, transaction ids) is asked of
// ctx.state; what is left here is reading the request and shaping the response the 1.6
// response schema allows. Suspicious but answerable requests are answered and flagged on
// ctx.flags so analytics can quarantine them; a charge point is never made to retry forever.
#include <string>

#include "analytics/event.hpp"
#include "ocpp16/actions.hpp"
#include "ocpp16/fields.hpp"
#include "rpc/certificate_request.hpp"
#include "util/time.hpp"

namespace ocppgw::ocpp16 {
namespace {

using nlohmann::json;

// The response schema allows parentIdTag up to 20 characters.
constexpr size_t kMaxIdTagLength = 20;

int64_t now_for(const rpc::CallContext& ctx) {
  return ctx.ingest_ts_ms != 0 ? ctx.ingest_ts_ms : util::now_ms();
}

// 1.6 AuthorizationStatus has no "Unknown"; anything the store says outside the 1.6 enum is
// an id tag we cannot accept.
std::string_view authorization_status(std::string_view status) {
  for (std::string_view s : {"Accepted", "Blocked", "Expired", "Invalid", "ConcurrentTx"})
    if (s == status) return s;
  return "Invalid";
}

json id_tag_info(const rpc::IdTokenInfo& info) {
  json out{{"status", authorization_status(info.status)}};
  if (info.expiry_ms) out["expiryDate"] = util::format_rfc3339_ms(*info.expiry_ms);
  // A longer parent id (e.g. a 2.0.1 group token) cannot be expressed in 1.6; leaving it out
  // keeps the authorisation answer valid.
  if (info.parent_id && !info.parent_id->empty() && info.parent_id->size() <= kMaxIdTagLength)
    out["parentIdTag"] = *info.parent_id;
  return out;
}

// A StopTransaction/MeterValues for an id we never issued is answered and flagged.
void flag_transaction(rpc::CallContext& ctx, int64_t transaction_id, bool known) {
  if (transaction_id == -1)
    ctx.flags.emplace_back(analytics::flag::kOfflineTransaction);
  else if (!known)
    ctx.flags.emplace_back(analytics::flag::kUnknownTransaction);
}

std::string_view link_flag(rpc::LinkRule rule) {
  switch (rule) {
    case rpc::LinkRule::Connector:
      return analytics::flag::kTransactionLinkedByConnector;
    case rpc::LinkRule::IdTag:
      return analytics::flag::kTransactionLinkedByIdTag;
    case rpc::LinkRule::OnlyOpen:
      return analytics::flag::kTransactionLinkedOnlyOpen;
    case rpc::LinkRule::LatestStart:
      return analytics::flag::kTransactionLinkedLatestStart;
    case rpc::LinkRule::None:
      break;
  }
  return {};
}

// Asks the state which transaction a -1 / never-issued id belongs to and records the answer
// for the mapper, so every consumer of the event sees the same session.
rpc::TransactionLink16Result link_frame(rpc::CallContext& ctx, const rpc::TransactionLink16& req) {
  rpc::TransactionLink16Result r = ctx.state.link_transaction(ctx, req);
  if (r.rule != rpc::LinkRule::None) ctx.flags.emplace_back(link_flag(r.rule));
  if (!r.transaction_id.empty()) ctx.resolved_transaction_id = r.transaction_id;
  return r;
}

}  // namespace

rpc::HandleResult handle_authorize(rpc::CallContext& ctx, const json& request) {
  FieldReader f(request);
  const std::string_view id_tag = f.string("idTag");
  if (f.error()) return *f.error();
  return json{{"idTagInfo", id_tag_info(ctx.state.authorize(ctx, id_tag))}};
}

rpc::HandleResult handle_boot_notification(rpc::CallContext& ctx, const json& request) {
  FieldReader f(request);
  rpc::BootInfo info;
  info.vendor = f.string("chargePointVendor");
  info.model = f.string("chargePointModel");
  if (f.error()) return *f.error();
  // chargeBoxSerialNumber is the deprecated spelling of the same serial.
  auto serial = f.optional_string("chargePointSerialNumber");
  if (!serial) serial = f.optional_string("chargeBoxSerialNumber");
  if (serial) info.serial_number = std::string(*serial);
  if (auto fw = f.optional_string("firmwareVersion")) info.firmware_version = std::string(*fw);
  const rpc::BootDecision decision = ctx.state.boot(ctx, info);
  return json{{"status", decision.status},
              {"currentTime", util::format_rfc3339_ms(now_for(ctx))},
              {"interval", decision.interval_s}};
}

rpc::HandleResult handle_data_transfer(rpc::CallContext&, const json&) {
  // No vendor extensions are implemented; the mapper records what was sent.
  return json{{"status", "UnknownVendorId"}};
}

template <typename Value>
rpc::HandleResult handle_heartbeat(rpc::CallContext& ctx, const Value&) {
  return json{{"currentTime", util::format_rfc3339_ms(now_for(ctx))}};
}
template rpc::HandleResult handle_heartbeat(rpc::CallContext&, const json&);
template rpc::HandleResult handle_heartbeat(rpc::CallContext&, const util::JsonTape::Value&);

template <typename Value>
rpc::HandleResult handle_meter_values(rpc::CallContext& ctx, const Value& request) {
  const auto tx = rpc::int_member(request, "transactionId");
  if (!tx) return json::object();
  const bool known = *tx != -1 && ctx.state.transaction_known(ctx, *tx);
  flag_transaction(ctx, *tx, known);
  // Only the connector can tell which transaction the readings belong to; without one (lenient
  // mode) the frame stays as sent.
  if (const auto connector = rpc::int_member(request, "connectorId"); !known && connector)
    link_frame(ctx, {.connector_id = connector, .timestamp_ms = now_for(ctx), .minus1 = *tx == -1});
  return json::object();
}
template rpc::HandleResult handle_meter_values(rpc::CallContext&, const json&);
template rpc::HandleResult handle_meter_values(rpc::CallContext&, const util::JsonTape::Value&);

rpc::HandleResult handle_start_transaction(rpc::CallContext& ctx, const json& request) {
  FieldReader f(request);
  rpc::StartTransaction16 start;
  start.connector_id = f.integer("connectorId");
  start.id_tag = f.string("idTag");
  // The timestamp is part of the idempotency key: without a parsable one a re-send could not
  // be recognised, so it is refused rather than replaced by the ingest time.
  start.timestamp_ms = f.timestamp_ms("timestamp");
  start.meter_start_wh = f.integer("meterStart");
  start.reservation_id = f.optional_integer("reservationId");
  if (f.error()) return *f.error();
  const rpc::StartTransaction16Result result = ctx.state.start_transaction(ctx, start);
  return json{{"transactionId", result.transaction_id},
              {"idTagInfo", id_tag_info(result.id_tag_info)}};
}

rpc::HandleResult handle_stop_transaction(rpc::CallContext& ctx, const json& request) {
  FieldReader f(request);
  rpc::StopTransaction16 stop;
  stop.transaction_id = f.integer("transactionId");
  stop.meter_stop_wh = f.integer("meterStop");
  if (f.error()) return *f.error();
  // A stop must always be accepted, so a bad timestamp falls back to the ingest time; the
  // mapper flags INVALID_TIMESTAMP on the event.
  const auto ts = f.optional_string("timestamp");
  const auto ts_ms = ts ? util::parse_rfc3339_ms(*ts) : std::nullopt;
  stop.timestamp_ms = ts_ms ? *ts_ms : now_for(ctx);
  if (auto id_tag = f.optional_string("idTag")) stop.id_tag = std::string(*id_tag);
  if (auto reason = f.optional_string("reason")) stop.reason = std::string(*reason);

  const int64_t sent_id = stop.transaction_id;
  if (sent_id == -1) {
    // A linked stop ends its transaction like any stop; an unlinked one only ends its run.
    const auto l =
        link_frame(ctx, {.id_tag = stop.id_tag, .timestamp_ms = stop.timestamp_ms, .stop = true});
    if (l.rule != rpc::LinkRule::None) stop.transaction_id = l.linked_id;
  }
  const rpc::StopTransaction16Result result = ctx.state.stop_transaction(ctx, stop);
  flag_transaction(ctx, sent_id, result.known);
  json response = json::object();
  if (stop.id_tag && result.id_tag_info) response["idTagInfo"] = id_tag_info(*result.id_tag_info);
  return response;
}

rpc::HandleResult handle_sign_certificate(rpc::CallContext& ctx, const json& request) {
  // The 1.6 answer has no reason field: the reason is in the log and, for a suspicious CSR, in
  // the SecurityEvent beside the frame's event.
  const auto d = rpc::request_certificate(ctx, {request.value("csr", std::string())});
  return json{{"status", d.accepted ? "Accepted" : "Rejected"}};
}

}  // namespace ocppgw::ocpp16
