// tests/unit/ocpp201/payloads.hpp: one realistic, schema-valid request per charge-point-initiated
// 2.0.1 action, shaped after what production chargers send, with the canonical event type each
// must produce. Shared by the unit tests; the integration clients carry their own copies.
#pragma once

#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analytics/event.hpp"

namespace ocppgw::ocpp201::test {

struct ActionSample {
  std::string_view action;
  nlohmann::json request;
  analytics::EventType event_type;
};

inline std::vector<ActionSample> action_samples() {
  using analytics::EventType;
  using nlohmann::json;
  return {
      {"BootNotification", json::parse(R"({"reason":"PowerUp","chargingStation":{
          "model":"Terra AC W22","vendorName":"ABB","serialNumber":"TACW22-0042",
          "firmwareVersion":"1.8.21","modem":{"iccid":"8931440000000000001","imsi":"204043000000001"}}})"),
       EventType::BootNotification},
      {"Heartbeat", json::object(), EventType::Heartbeat},
      {"StatusNotification", json::parse(R"({"timestamp":"2024-06-01T09:59:58.120Z",
          "connectorStatus":"Occupied","evseId":1,"connectorId":1})"),
       EventType::StatusNotification},
      {"Authorize", json::parse(R"({"idToken":{"idToken":"04A2B3C4D5E680","type":"ISO14443"}})"),
       EventType::Authorize},
      {"TransactionEvent", json::parse(R"({"eventType":"Started","timestamp":"2024-06-01T09:58:00Z",
          "triggerReason":"Authorized","seqNo":0,"transactionInfo":{"transactionId":"a1b2c3d4",
          "chargingState":"EVConnected"},"evse":{"id":1,"connectorId":1},
          "idToken":{"idToken":"04A2B3C4D5E680","type":"ISO14443"},
          "meterValue":[{"timestamp":"2024-06-01T09:58:00Z","sampledValue":[{"value":1234.5,
          "context":"Transaction.Begin","measurand":"Energy.Active.Import.Register",
          "unitOfMeasure":{"unit":"Wh"}}]}]})"),
       EventType::StartTransaction},
      {"MeterValues", json::parse(R"({"evseId":1,"meterValue":[{"timestamp":"2024-06-01T09:59:00Z",
          "sampledValue":[{"value":7.4,"measurand":"Power.Active.Import","unitOfMeasure":{"unit":"kW"}},
          {"value":1300.25,"measurand":"Energy.Active.Import.Register"}]}]})"),
       EventType::MeterValues},
      {"NotifyReport",
       json::parse(R"({"requestId":17,"generatedAt":"2024-06-01T09:57:00Z","seqNo":0,
          "tbc":false,"reportData":[{"component":{"name":"OCPPCommCtrlr"},
          "variable":{"name":"HeartbeatInterval"},"variableAttribute":[{"type":"Actual",
          "value":"300","mutability":"ReadWrite"}],"variableCharacteristics":{"dataType":"integer",
          "supportsMonitoring":true}}]})"),
       EventType::NotifyReport},
      {"NotifyEvent", json::parse(R"({"generatedAt":"2024-06-01T09:56:00Z","seqNo":0,"eventData":[{
          "eventId":501,"timestamp":"2024-06-01T09:55:59Z","trigger":"Delta","actualValue":"Faulted",
          "eventNotificationType":"HardWiredNotification","component":{"name":"Connector",
          "evse":{"id":1,"connectorId":1}},"variable":{"name":"AvailabilityState"}}]})"),
       EventType::Notification},
      {"NotifyMonitoringReport", json::parse(R"({"requestId":18,"seqNo":0,
          "generatedAt":"2024-06-01T09:56:30Z","monitor":[{"component":{"name":"EVSE","evse":{"id":1}},
          "variable":{"name":"Power"},"variableMonitoring":[{"id":3,"transaction":false,"value":22000,
          "type":"UpperThreshold","severity":4}]}]})"),
       EventType::Notification},
      {"SecurityEventNotification", json::parse(R"({"type":"FirmwareUpdated",
          "timestamp":"2024-06-01T09:50:00Z","techInfo":"1.8.20 -> 1.8.21"})"),
       EventType::SecurityEvent},
      {"SignCertificate",
       json::parse(
           R"({"csr":"-----BEGIN CERTIFICATE REQUEST-----\nMIIBFAKE\n-----END CERTIFICATE REQUEST-----","certificateType":"ChargingStationCertificate"})"),
       EventType::Notification},
      {"FirmwareStatusNotification", json::parse(R"({"status":"Installed","requestId":42})"),
       EventType::FirmwareStatus},
      {"PublishFirmwareStatusNotification", json::parse(R"({"status":"Published",
          "location":["http://192.168.1.10/fw/1.8.21.bin"],"requestId":43})"),
       EventType::FirmwareStatus},
      {"LogStatusNotification", json::parse(R"({"status":"Uploaded","requestId":44})"),
       EventType::DiagnosticsStatus},
      {"DataTransfer", json::parse(R"({"vendorId":"com.abb.terra","messageId":"ChargerTemp",
          "data":{"celsius":41.5}})"),
       EventType::DataTransfer},
      {"ClearedChargingLimit", json::parse(R"({"chargingLimitSource":"EMS","evseId":1})"),
       EventType::Notification},
      {"NotifyChargingLimit",
       json::parse(R"({"evseId":1,"chargingLimit":{"chargingLimitSource":"EMS",
          "isGridCritical":false},"chargingSchedule":[{"id":1,"chargingRateUnit":"A",
          "chargingSchedulePeriod":[{"startPeriod":0,"limit":16.0}]}]})"),
       EventType::Notification},
      {"NotifyEVChargingNeeds", json::parse(R"({"evseId":1,"maxScheduleTuples":3,"chargingNeeds":{
          "requestedEnergyTransfer":"AC_three_phase","departureTime":"2024-06-01T17:30:00Z",
          "acChargingParameters":{"energyAmount":30000,"evMinCurrent":6,"evMaxCurrent":32,
          "evMaxVoltage":400}}})"),
       EventType::Notification},
      {"NotifyEVChargingSchedule", json::parse(R"({"timeBase":"2024-06-01T10:00:00Z","evseId":1,
          "chargingSchedule":{"id":7,"chargingRateUnit":"W","chargingSchedulePeriod":[
          {"startPeriod":0,"limit":11000.0,"numberPhases":3}]}})"),
       EventType::Notification},
      {"ReportChargingProfiles", json::parse(R"({"requestId":19,"chargingLimitSource":"CSO",
          "evseId":1,"tbc":false,"chargingProfile":[{"id":100,"stackLevel":0,
          "chargingProfilePurpose":"TxDefaultProfile","chargingProfileKind":"Absolute",
          "chargingSchedule":[{"id":1,"startSchedule":"2024-06-01T00:00:00Z","chargingRateUnit":"A",
          "chargingSchedulePeriod":[{"startPeriod":0,"limit":32.0}]}]}]})"),
       EventType::Notification},
      {"ReservationStatusUpdate", json::parse(R"({"reservationId":901,
          "reservationUpdateStatus":"Expired"})"),
       EventType::Notification},
      {"NotifyCustomerInformation", json::parse(R"({"data":"no customer data held",
          "seqNo":0,"generatedAt":"2024-06-01T09:45:00Z","requestId":20,"tbc":false})"),
       EventType::Notification},
      {"NotifyDisplayMessages", json::parse(R"({"requestId":21,"tbc":false,"messageInfo":[{"id":1,
          "priority":"NormalCycle","message":{"format":"UTF8","content":"Welcome"}}]})"),
       EventType::Notification},
      {"Get15118EVCertificate",
       json::parse(R"({"iso15118SchemaVersion":"urn:iso:15118:2:2013:MsgDef",
          "action":"Install","exiRequest":"gAMGBAUGBwgJCgsMDQ4P"})"),
       EventType::Notification},
      {"GetCertificateStatus", json::parse(R"({"ocspRequestData":{"hashAlgorithm":"SHA256",
          "issuerNameHash":"a1b2c3","issuerKeyHash":"d4e5f6","serialNumber":"0123456789",
          "responderURL":"http://ocsp.example.com"}})"),
       EventType::Notification},
  };
}

}  // namespace ocppgw::ocpp201::test
