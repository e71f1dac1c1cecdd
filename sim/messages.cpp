// sim/messages.cpp: payloads of the charge-point-initiated messages the simulator uses, for
// both versions. One function per version keeps the field spelling of each spec in one place.
#include "sim/messages.hpp"

#include <nlohmann/json.hpp>

#include "util/time.hpp"

namespace ocppgw::sim {
namespace {

using nlohmann::json;

std::string ts(int64_t ms) { return util::format_rfc3339_ms(ms); }

json payload_16(const OutMsg& m) {
  const auto tx_id_16 = [&]() -> int64_t {
    if (!m.session) return 0;
    if (m.session->minus1) return -1;
    return std::stoll(m.session->tx_id);
  };
  switch (m.kind) {
    case MsgKind::Boot:
      return {{"chargePointVendor", "ocppgw"},
              {"chargePointModel", "ocppsim"},
              {"firmwareVersion", "sim-1"}};
    case MsgKind::Status:
      return {{"connectorId", m.connector},
              {"errorCode", "NoError"},
              {"status", m.status},
              {"timestamp", ts(m.ts_ms)}};
    case MsgKind::Heartbeat:
      return json::object();
    case MsgKind::Authorize:
      return {{"idTag", m.session->id_tag}};
    case MsgKind::Start:
      return {{"connectorId", m.connector},
              {"idTag", m.session->id_tag},
              {"meterStart", m.meter_wh},
              {"timestamp", ts(m.ts_ms)}};
    case MsgKind::Meter: {
      json sampled = json::array({{{"value", std::to_string(m.meter_wh)},
                                   {"measurand", "Energy.Active.Import.Register"},
                                   {"unit", "Wh"},
                                   {"context", "Sample.Periodic"}},
                                  {{"value", std::to_string(m.power_w)},
                                   {"measurand", "Power.Active.Import"},
                                   {"unit", "W"},
                                   {"context", "Sample.Periodic"}}});
      json p = {
          {"connectorId", m.connector},
          {"meterValue", json::array({{{"timestamp", ts(m.ts_ms)}, {"sampledValue", sampled}}})}};
      if (m.session) p["transactionId"] = tx_id_16();
      return p;
    }
    case MsgKind::Stop:
      return {{"transactionId", tx_id_16()},
              {"idTag", m.session->id_tag},
              {"meterStop", m.meter_wh},
              {"timestamp", ts(m.ts_ms)},
              {"reason", "Local"}};
  }
  return json::object();
}

json meter_value_201(int64_t ts_ms, int64_t wh, int64_t w, const char* context) {
  return json::array(
      {{{"timestamp", ts(ts_ms)},
        {"sampledValue", json::array({{{"value", wh},
                                       {"measurand", "Energy.Active.Import.Register"},
                                       {"context", context},
                                       {"unitOfMeasure", {{"unit", "Wh"}}}},
                                      {{"value", w},
                                       {"measurand", "Power.Active.Import"},
                                       {"context", context},
                                       {"unitOfMeasure", {{"unit", "W"}}}}})}}});
}

json payload_201(const OutMsg& m) {
  switch (m.kind) {
    case MsgKind::Boot:
      return {{"reason", "PowerUp"},
              {"chargingStation",
               {{"model", "ocppsim"}, {"vendorName", "ocppgw"}, {"firmwareVersion", "sim-1"}}}};
    case MsgKind::Status:
      return {{"timestamp", ts(m.ts_ms)},
              {"connectorStatus", m.status},
              {"evseId", m.connector},
              {"connectorId", 1}};
    case MsgKind::Heartbeat:
      return json::object();
    case MsgKind::Authorize:
      return {{"idToken", {{"idToken", m.session->id_tag}, {"type", "ISO14443"}}}};
    case MsgKind::Meter:
      if (!m.session) {
        return {{"evseId", m.connector},
                {"meterValue", meter_value_201(m.ts_ms, m.meter_wh, m.power_w, "Sample.Periodic")}};
      }
      [[fallthrough]];
    case MsgKind::Start:
    case MsgKind::Stop: {
      const bool started = m.kind == MsgKind::Start, ended = m.kind == MsgKind::Stop;
      json info = {{"transactionId", m.session->tx_id},
                   {"chargingState", ended ? "EVConnected" : "Charging"}};
      if (ended) info["stoppedReason"] = "Local";
      json p = {{"eventType", m.tx_event},
                {"timestamp", ts(m.ts_ms)},
                {"triggerReason", started ? "Authorized"
                                  : ended ? "StopAuthorized"
                                          : "MeterValuePeriodic"},
                {"seqNo", m.seq_no},
                {"transactionInfo", info},
                {"evse", {{"id", m.connector}, {"connectorId", 1}}},
                {"meterValue", meter_value_201(m.ts_ms, m.meter_wh, m.power_w,
                                               started ? "Transaction.Begin"
                                               : ended ? "Transaction.End"
                                                       : "Sample.Periodic")}};
      if (started || ended) p["idToken"] = {{"idToken", m.session->id_tag}, {"type", "ISO14443"}};
      if (m.offline) p["offline"] = true;
      return p;
    }
  }
  return json::object();
}

}  // namespace

std::string_view action_name(MsgKind kind, Version v) {
  switch (kind) {
    case MsgKind::Boot:
      return "BootNotification";
    case MsgKind::Status:
      return "StatusNotification";
    case MsgKind::Heartbeat:
      return "Heartbeat";
    case MsgKind::Authorize:
      return "Authorize";
    case MsgKind::Start:
      return v == Version::v16 ? "StartTransaction" : "TransactionEvent";
    case MsgKind::Meter:
      return v == Version::v16 ? "MeterValues" : "TransactionEvent";
    case MsgKind::Stop:
      return v == Version::v16 ? "StopTransaction" : "TransactionEvent";
  }
  return "";
}

std::string_view call_action(const OutMsg& m, Version v) {
  if (v == Version::v201 && m.kind == MsgKind::Meter && !m.session) return "MeterValues";
  return action_name(m.kind, v);
}

std::string build_call(const OutMsg& m, Version v, std::string_view message_id,
                       std::string_view /*cp_id*/) {
  const std::string_view action = call_action(m, v);
  const json payload = v == Version::v16 ? payload_16(m) : payload_201(m);
  std::string out;
  out.reserve(256);
  out += "[2,\"";
  out += message_id;
  out += "\",\"";
  out += action;
  out += "\",";
  out += payload.dump();
  out += ']';
  return out;
}

std::string build_schema_invalid_call(Version v, std::string_view message_id, int64_t ts_ms) {
  const json payload =
      v == Version::v16
          ? json{{"connectorId", "one"}, {"errorCode", "NoError"}, {"status", "Available"}}
          : json{{"timestamp", ts(ts_ms)},
                 {"connectorStatus", "Available"},
                 {"evseId", "one"},
                 {"connectorId", 1}};
  return "[2,\"" + std::string(message_id) + "\",\"StatusNotification\"," + payload.dump() + "]";
}

std::string build_corrupt_call(const std::string& valid_text) {
  // Cut inside the payload and leave the array unterminated: the message id stays readable.
  const auto brace = valid_text.find('{');
  const size_t cut =
      brace == std::string::npos ? valid_text.size() / 2 : brace + (valid_text.size() - brace) / 2;
  return valid_text.substr(0, cut) + "\x01garbage";
}

}  // namespace ocppgw::sim
