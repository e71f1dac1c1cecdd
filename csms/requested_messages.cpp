// csms/requested_messages.cpp: see requested_messages.hpp. One table per kind of request.
#include "csms/requested_messages.hpp"

#include <array>
#include <utility>

namespace ocppgw::csms {
namespace {

using rpc::OcppVersion;

struct Follows {
  OcppVersion version;
  std::string_view call;     // the CSMS's call
  std::string_view message;  // what the charge point then sends
};

// Calls whose answer arrives later as a request from the charge point.
constexpr std::array<Follows, 13> kFollows = {{
    {OcppVersion::v16, "GetDiagnostics", "DiagnosticsStatusNotification"},
    {OcppVersion::v16, "UpdateFirmware", "FirmwareStatusNotification"},
    {OcppVersion::v16, "GetLog", "LogStatusNotification"},
    {OcppVersion::v16, "SignedUpdateFirmware", "SignedFirmwareStatusNotification"},
    {OcppVersion::v201, "GetBaseReport", "NotifyReport"},
    {OcppVersion::v201, "GetReport", "NotifyReport"},
    {OcppVersion::v201, "GetMonitoringReport", "NotifyMonitoringReport"},
    {OcppVersion::v201, "GetChargingProfiles", "ReportChargingProfiles"},
    {OcppVersion::v201, "GetDisplayMessages", "NotifyDisplayMessages"},
    {OcppVersion::v201, "CustomerInformation", "NotifyCustomerInformation"},
    {OcppVersion::v201, "GetLog", "LogStatusNotification"},
    {OcppVersion::v201, "UpdateFirmware", "FirmwareStatusNotification"},
    {OcppVersion::v201, "PublishFirmware", "PublishFirmwareStatusNotification"},
}};

// TriggerMessage's requestedMessage values that are not an action name.
constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kTriggerAliases = {{
    {"SignChargePointCertificate", "SignCertificate"},      // 1.6 ExtendedTriggerMessage
    {"SignChargingStationCertificate", "SignCertificate"},  // 2.0.1
    {"SignV2GCertificate", "SignCertificate"},
    {"SignCombinedCertificate", "SignCertificate"},
}};

}  // namespace

std::vector<std::string_view> requested_messages(OcppVersion version, std::string_view action,
                                                 const nlohmann::json& request) {
  if (action == "TriggerMessage" || action == "ExtendedTriggerMessage") {
    auto it = request.find("requestedMessage");
    if (it == request.end() || !it->is_string()) return {};
    const std::string& named = it->get_ref<const std::string&>();
    for (const auto& [alias, message] : kTriggerAliases)
      if (named == alias) return {message};
    // Every other value is the action's own name (StatusNotification, Heartbeat, MeterValues,
    // TransactionEvent, ...); the dispatcher still checks that the action exists.
    return {std::string_view(named)};
  }
  std::vector<std::string_view> out;
  for (const Follows& f : kFollows)
    if (f.version == version && f.call == action) out.push_back(f.message);
  return out;
}

}  // namespace ocppgw::csms
