// sim/csms_answers.cpp: one answer per CSMS -> charge point action, minimal but valid against
// the official response schema of the version (the gateway validates every answer and reports
// an invalid one as such, so a sloppy answer would show up in the benchmark as errors).
#include "sim/csms_answers.hpp"

#include <set>

#include <nlohmann/json.hpp>

namespace ocppgw::sim {
namespace {

using nlohmann::json;

// Answers that echo each requested component/variable with a status, as a charge point that
// has none of them would (2.0.1 GetVariables, SetVariables, SetVariableMonitoring).
json per_item(const json& request, const char* list, const char* result_key, const char* status_key,
              const char* status) {
  json out = json::array();
  if (request.contains(list) && request[list].is_array())
    for (const auto& item : request[list]) {
      json r = {{status_key, status},
                {"component", item.value("component", json::object())},
                {"variable", item.value("variable", json::object())}};
      if (item.contains("type")) r["type"] = item["type"];  // monitors echo type and severity
      if (item.contains("severity")) r["severity"] = item["severity"];
      out.push_back(std::move(r));
    }
  return {{result_key, std::move(out)}};
}

// The CALLRESULT payload for `action`, or nullopt when it is no CSMS -> charge point action of
// `version`.
std::optional<json> result_payload(Version version, const std::string& action,
                                   const json& request) {
  static const json accepted = {{"status", "Accepted"}};
  // Actions whose response is {"status": "Accepted"} in both versions (where they exist).
  static const std::set<std::string, std::less<>> kAccepted16 = {"RemoteStartTransaction",
                                                                 "RemoteStopTransaction",
                                                                 "Reset",
                                                                 "ChangeAvailability",
                                                                 "ChangeConfiguration",
                                                                 "ClearCache",
                                                                 "DataTransfer",
                                                                 "TriggerMessage",
                                                                 "SendLocalList",
                                                                 "ReserveNow",
                                                                 "CancelReservation",
                                                                 "SetChargingProfile",
                                                                 "ClearChargingProfile",
                                                                 "GetCompositeSchedule",
                                                                 "ExtendedTriggerMessage",
                                                                 "GetLog",
                                                                 "SignedUpdateFirmware",
                                                                 "InstallCertificate",
                                                                 "DeleteCertificate",
                                                                 "CertificateSigned"};
  static const std::set<std::string, std::less<>> kAccepted201 = {"RequestStartTransaction",
                                                                  "RequestStopTransaction",
                                                                  "Reset",
                                                                  "ChangeAvailability",
                                                                  "GetBaseReport",
                                                                  "GetReport",
                                                                  "SetNetworkProfile",
                                                                  "TriggerMessage",
                                                                  "ClearCache",
                                                                  "DataTransfer",
                                                                  "SetChargingProfile",
                                                                  "GetChargingProfiles",
                                                                  "ClearChargingProfile",
                                                                  "GetCompositeSchedule",
                                                                  "ReserveNow",
                                                                  "CancelReservation",
                                                                  "SendLocalList",
                                                                  "UpdateFirmware",
                                                                  "PublishFirmware",
                                                                  "GetLog",
                                                                  "SetMonitoringBase",
                                                                  "SetMonitoringLevel",
                                                                  "GetMonitoringReport",
                                                                  "SetDisplayMessage",
                                                                  "GetDisplayMessages",
                                                                  "ClearDisplayMessage",
                                                                  "CustomerInformation",
                                                                  "InstallCertificate",
                                                                  "DeleteCertificate",
                                                                  "CertificateSigned"};
  if (version == Version::v16) {
    if (kAccepted16.count(action)) return accepted;
    if (action == "UnlockConnector") return json{{"status", "Unlocked"}};
    if (action == "GetConfiguration" || action == "GetDiagnostics" || action == "UpdateFirmware")
      return json::object();  // every field optional
    if (action == "GetLocalListVersion") return json{{"listVersion", 0}};
    if (action == "GetInstalledCertificateIds") return json{{"status", "NotFound"}};
    return std::nullopt;
  }
  if (kAccepted201.count(action)) return accepted;
  if (action == "UnlockConnector") return json{{"status", "Unlocked"}};
  if (action == "GetLocalListVersion") return json{{"versionNumber", 0}};
  if (action == "GetTransactionStatus") return json{{"messagesInQueue", false}};
  if (action == "CostUpdated") return json::object();
  if (action == "UnpublishFirmware") return json{{"status", "Unpublished"}};
  if (action == "GetInstalledCertificateIds") return json{{"status", "NotFound"}};
  if (action == "GetVariables")
    return per_item(request, "getVariableData", "getVariableResult", "attributeStatus",
                    "UnknownComponent");
  if (action == "SetVariables")
    return per_item(request, "setVariableData", "setVariableResult", "attributeStatus",
                    "UnknownComponent");
  if (action == "SetVariableMonitoring")
    return per_item(request, "setMonitoringData", "setMonitoringResult", "status",
                    "UnknownComponent");
  if (action == "ClearVariableMonitoring") {
    json results = json::array();
    if (request.contains("id") && request["id"].is_array())
      for (const auto& id : request["id"]) results.push_back({{"status", "NotFound"}, {"id", id}});
    return json{{"clearMonitoringResult", std::move(results)}};
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> answer_csms_call(std::string_view frame, Version version,
                                            CsmsAnswer how) {
  const json call = json::parse(frame, nullptr, false);
  if (!call.is_array() || call.size() != 4 || call[0] != 2 || !call[1].is_string() ||
      !call[2].is_string())
    return std::nullopt;
  if (how == CsmsAnswer::Silent) return std::nullopt;
  const std::string& id = call[1].get_ref<const std::string&>();
  std::optional<json> payload;
  if (how == CsmsAnswer::Result)
    payload = result_payload(version, call[2].get<std::string>(), call[3]);
  if (payload) return json::array({3, id, std::move(*payload)}).dump();
  const char* code = how == CsmsAnswer::Error ? "GenericError" : "NotImplemented";
  return json::array({4, id, code, "ocppsim", json::object()}).dump();
}

}  // namespace ocppgw::sim
