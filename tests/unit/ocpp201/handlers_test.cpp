// tests/unit/ocpp201/handlers_test.cpp: the answers of the 2.0.1 handlers and what they ask of
// CsmsState, through rpc::dispatch.
#include "ocpp201/handlers.hpp"

#include <gtest/gtest.h>

#include "tests/unit/ocpp201/harness.hpp"
#include "tests/unit/ocpp201/payloads.hpp"
#include "util/time.hpp"

namespace ocppgw::ocpp201::test {
namespace {

json sample(std::string_view action) {
  for (auto& s : action_samples())
    if (s.action == action) return s.request;
  ADD_FAILURE() << "no sample for " << action;
  return json::object();
}

TEST(Ocpp201Handlers, BootNotificationRegistersTheStationAndAnswersStatusTimeInterval) {
  Harness h;
  h.state.boot_interval_s = 120;
  const auto r = h.call("BootNotification", sample("BootNotification"));
  const json resp = result_payload(r, "BootNotification");
  EXPECT_EQ(resp["status"], "Accepted");
  EXPECT_EQ(resp["interval"], 120);
  EXPECT_EQ(resp["currentTime"], util::format_rfc3339_ms(kIngestMs));
  ASSERT_EQ(h.state.boots.size(), 1u);
  EXPECT_EQ(h.state.boots[0].vendor, "ABB");
  EXPECT_EQ(h.state.boots[0].model, "Terra AC W22");
  EXPECT_EQ(h.state.boots[0].serial_number, "TACW22-0042");
  EXPECT_EQ(h.state.boots[0].firmware_version, "1.8.21");
  EXPECT_EQ(h.state.boots[0].reason, "PowerUp");

  ASSERT_EQ(r.events.size(), 1u);
  const auto& e = r.events[0];
  EXPECT_EQ(e.extra["chargingStation"]["vendorName"], "ABB");
  EXPECT_EQ(e.extra["chargingStation"]["modem"]["iccid"], "8931440000000000001");
  EXPECT_EQ(e.extra["reason"], "PowerUp");
  EXPECT_EQ(e.extra["registration_status"], "Accepted");
  EXPECT_EQ(e.extra["interval"], 120);
}

TEST(Ocpp201Handlers, BootNotificationPassesPendingAndRejectedThrough) {
  for (const char* status : {"Pending", "Rejected"}) {
    Harness h;
    h.state.boot_status = status;
    const json resp =
        result_payload(h.call("BootNotification", sample("BootNotification")), "BootNotification");
    EXPECT_EQ(resp["status"], status);
  }
}

TEST(Ocpp201Handlers, HeartbeatAnswersTheGatewayTime) {
  Harness h;
  const auto r = h.call("Heartbeat", json::object());
  EXPECT_EQ(result_payload(r, "Heartbeat"), json({{"currentTime", "2024-06-01T10:00:00.000Z"}}));
  EXPECT_EQ(r.events[0].event_ts_ms, kIngestMs);
}

TEST(Ocpp201Handlers, AuthorizeAnswersEveryTwoZeroOneStatus) {
  for (const char* status :
       {"Accepted", "Blocked", "ConcurrentTx", "Expired", "Invalid", "NoCredit",
        "NotAllowedTypeEVSE", "NotAtThisLocation", "NotAtThisTime", "Unknown"}) {
    SCOPED_TRACE(status);
    Harness h;
    h.state.tokens["04A2B3C4D5E680"] = rpc::IdTokenInfo{status, std::nullopt, std::nullopt};
    const auto r = h.call("Authorize", sample("Authorize"));
    const json resp = result_payload(r, "Authorize");
    EXPECT_EQ(resp["idTokenInfo"]["status"], status);
    ASSERT_EQ(r.events.size(), 1u);
    EXPECT_EQ(r.events[0].id_token_hash, token_hash("04A2B3C4D5E680"));
    EXPECT_EQ(r.events[0].extra["id_token_status"], status);
    EXPECT_EQ(r.events[0].extra["id_token_type"], "ISO14443");
  }
}

TEST(Ocpp201Handlers, AuthorizeCarriesExpiryAndGroupToken) {
  Harness h;
  const int64_t expiry = *util::parse_rfc3339_ms("2024-07-01T00:00:00Z");
  h.state.tokens["04A2B3C4D5E680"] = rpc::IdTokenInfo{"Accepted", expiry, "FLEET-7"};
  const json resp = result_payload(h.call("Authorize", sample("Authorize")), "Authorize");
  EXPECT_EQ(resp["idTokenInfo"]["cacheExpiryDateTime"], "2024-07-01T00:00:00.000Z");
  EXPECT_EQ(resp["idTokenInfo"]["groupIdToken"],
            json({{"idToken", "FLEET-7"}, {"type", "Central"}}));
}

TEST(Ocpp201Handlers, StatusOutsideTheTwoZeroOneEnumBecomesInvalid) {
  // A CsmsState shared with 1.6 could answer a 1.6-only word; the schema must still hold.
  EXPECT_EQ(id_token_info_json({"NotAllowedTypeSource", std::nullopt, std::nullopt})["status"],
            "Invalid");
  EXPECT_EQ(id_token_info_json({"NoCredit", std::nullopt, std::nullopt})["status"], "NoCredit");
}

TEST(Ocpp201Handlers, AuthorizeUnknownTokenGetsTheStateDefault) {
  Harness h;
  h.state.unknown_token_status = "Unknown";
  const json resp = result_payload(h.call("Authorize", sample("Authorize")), "Authorize");
  EXPECT_EQ(resp["idTokenInfo"], json({{"status", "Unknown"}}));
}

TEST(Ocpp201Handlers, TransactionEventAnswersIdTokenInfoOnlyWhenATokenWasSent) {
  Harness h;
  h.state.tokens["04A2B3C4D5E680"] = rpc::IdTokenInfo{"Accepted", std::nullopt, std::nullopt};
  json started = sample("TransactionEvent");
  json resp = result_payload(h.call("TransactionEvent", started), "TransactionEvent");
  EXPECT_EQ(resp, json({{"idTokenInfo", {{"status", "Accepted"}}}}));

  json updated = started;
  updated["eventType"] = "Updated";
  updated["seqNo"] = 1;
  updated["triggerReason"] = "MeterValuePeriodic";
  updated.erase("idToken");
  resp = result_payload(h.call("TransactionEvent", updated, "msg-2"), "TransactionEvent");
  EXPECT_EQ(resp, json::object());
}

TEST(Ocpp201Handlers, NotifyReportIsStoredPerChargePoint) {
  Harness h;
  const json req = sample("NotifyReport");
  const auto r = h.call("NotifyReport", req);
  EXPECT_EQ(result_payload(r, "NotifyReport"), json::object());
  ASSERT_EQ(h.state.reports.size(), 1u);
  const auto& [cp, action, data] = h.state.reports[0];
  EXPECT_EQ(cp, kChargePoint);
  EXPECT_EQ(action, "NotifyReport");
  EXPECT_EQ(data, req);
  EXPECT_EQ(r.events[0].event_type, analytics::EventType::NotifyReport);
  EXPECT_EQ(r.events[0].event_ts_ms, *util::parse_rfc3339_ms("2024-06-01T09:57:00Z"));
  EXPECT_EQ(r.events[0].extra["reportData"], req["reportData"]);
}

TEST(Ocpp201Handlers, RequestsWithoutABackendAreRefusedWithTheSchemaStatusAndRecorded) {
  const std::pair<std::string_view, std::string_view> expected[] = {
      {"SignCertificate", "Rejected"},       {"Get15118EVCertificate", "Failed"},
      {"GetCertificateStatus", "Failed"},    {"DataTransfer", "UnknownVendorId"},
      {"NotifyEVChargingNeeds", "Rejected"}, {"NotifyEVChargingSchedule", "Accepted"},
  };
  for (const auto& [action, status] : expected) {
    SCOPED_TRACE(std::string(action));
    Harness h;
    const auto r = h.call(action, sample(action));
    const json resp = result_payload(r, action);
    EXPECT_EQ(resp["status"], status);
    if (status != "Accepted") {
      EXPECT_TRUE(resp["statusInfo"].contains("reasonCode"));
    }
    ASSERT_EQ(r.events.size(), 1u);
    EXPECT_EQ(r.events[0].extra["response_status"], status);
  }
}

json hash_data(std::string_view serial) {
  return {{"hashAlgorithm", "SHA256"},
          {"issuerNameHash", std::string(64, 'a')},
          {"issuerKeyHash", std::string(64, 'b')},
          {"serialNumber", serial},
          {"responderURL", "http://ocsp.example:80"}};
}

json pnc_authorize(std::vector<std::string_view> serials) {
  json chain = json::array();
  for (auto s : serials) chain.push_back(hash_data(s));
  return {{"idToken", {{"idToken", "DE8ACC12345678"}, {"type", "eMAID"}}},
          {"iso15118CertificateHashData", chain}};
}

TEST(Ocpp201Handlers, AuthorizeWithARevokedContractCertificateIsInvalidWhateverTheTokenList) {
  Harness h;
  h.state.tokens["DE8ACC12345678"] = rpc::IdTokenInfo{"Accepted", std::nullopt, std::nullopt};
  h.state.ocsp["1001"] = {rpc::OcspResult::Status::Good, {}, "AAAA"};
  h.state.ocsp["1002"] = {rpc::OcspResult::Status::Revoked, {}, "AAAA"};
  h.state.ocsp["1003"] = {rpc::OcspResult::Status::Unknown, {}, "AAAA"};

  auto r = h.call("Authorize", pnc_authorize({"1001"}));
  json resp = result_payload(r, "Authorize");
  EXPECT_EQ(resp["certificateStatus"], "Accepted");
  EXPECT_EQ(resp["idTokenInfo"]["status"], "Accepted");
  EXPECT_EQ(r.events[0].extra["certificate_status"], "Accepted");

  // One revoked certificate anywhere in the chain is enough.
  r = h.call("Authorize", pnc_authorize({"1001", "1002"}));
  resp = result_payload(r, "Authorize");
  EXPECT_EQ(resp["certificateStatus"], "CertificateRevoked");
  EXPECT_EQ(resp["idTokenInfo"]["status"], "Invalid");
  EXPECT_EQ(r.events[0].extra["certificate_status"], "CertificateRevoked");

  resp = result_payload(h.call("Authorize", pnc_authorize({"1003"})), "Authorize");
  EXPECT_EQ(resp["certificateStatus"], "CertChainError");
  EXPECT_EQ(resp["idTokenInfo"]["status"], "Invalid");

  // No responder could be asked: the token list decides, nothing is said of the certificate.
  resp = result_payload(h.call("Authorize", pnc_authorize({"9999"})), "Authorize");
  EXPECT_FALSE(resp.contains("certificateStatus"));
  EXPECT_EQ(resp["idTokenInfo"]["status"], "Accepted");
  ASSERT_EQ(h.state.ocsp_asked.size(), 5u);
  EXPECT_EQ(h.state.ocsp_asked[0].responder_url, "http://ocsp.example:80");
  EXPECT_EQ(h.state.ocsp_asked[0].issuer_key_hash, std::string(64, 'b'));
}

TEST(Ocpp201Handlers, GetCertificateStatusCarriesTheResponseOrSaysWhyNot) {
  Harness h;
  h.state.ocsp["1002"] = {rpc::OcspResult::Status::Revoked, {}, "MIIB"};
  json resp =
      result_payload(h.call("GetCertificateStatus", {{"ocspRequestData", hash_data("1002")}}),
                     "GetCertificateStatus");
  EXPECT_EQ(resp, json({{"status", "Accepted"}, {"ocspResult", "MIIB"}}));

  resp = result_payload(h.call("GetCertificateStatus", {{"ocspRequestData", hash_data("77")}}),
                        "GetCertificateStatus");
  EXPECT_EQ(resp["status"], "Failed");
  EXPECT_EQ(resp["statusInfo"]["reasonCode"], "OcspFailed");
  EXPECT_EQ(resp["statusInfo"]["additionalInfo"], "no OCSP responder is allowed on this CSMS");

  // An answer longer than the schema's 5500 characters cannot be sent: Failed, not a bad frame.
  h.state.ocsp["1002"].response_base64 = std::string(6000, 'A');
  resp = result_payload(h.call("GetCertificateStatus", {{"ocspRequestData", hash_data("1002")}}),
                        "GetCertificateStatus");
  EXPECT_EQ(resp["status"], "Failed");
}

TEST(Ocpp201Handlers, Get15118EVCertificateIsTheBackendsAnswerOrAClearFailure) {
  Harness h;
  const json req = {{"iso15118SchemaVersion", "urn:iso:15118:2:2013:MsgDef"},
                    {"action", "Install"},
                    {"exiRequest", "gAEiZ2lmdA=="}};
  json resp = result_payload(h.call("Get15118EVCertificate", req), "Get15118EVCertificate");
  EXPECT_EQ(resp["status"], "Failed");
  EXPECT_EQ(resp["statusInfo"]["reasonCode"], "NoContractBackend");

  h.state.ev_certificate_result = rpc::EvCertificateResult{true, "gAFyZXNwb25zZQ==", {}, {}};
  resp = result_payload(h.call("Get15118EVCertificate", req), "Get15118EVCertificate");
  EXPECT_EQ(resp, json({{"status", "Accepted"}, {"exiResponse", "gAFyZXNwb25zZQ=="}}));
  ASSERT_EQ(h.state.ev_certificate_asked.size(), 2u);
  EXPECT_EQ(h.state.ev_certificate_asked[1].action, "Install");
  EXPECT_EQ(h.state.ev_certificate_asked[1].exi_request, "gAEiZ2lmdA==");
  EXPECT_EQ(h.state.ev_certificate_asked[1].schema_version, "urn:iso:15118:2:2013:MsgDef");

  // Longer than the schema allows: a Failed answer, not a response that breaks the schema.
  h.state.ev_certificate_result->exi_response = std::string(8000, 'A');
  resp = result_payload(h.call("Get15118EVCertificate", req), "Get15118EVCertificate");
  EXPECT_EQ(resp["statusInfo"]["reasonCode"], "BackendFailed");
}

TEST(Ocpp201Handlers, SignCertificateEventKeepsTheCsr) {
  Harness h;
  const json req = sample("SignCertificate");
  const auto r = h.call("SignCertificate", req);
  EXPECT_EQ(r.events[0].event_type, analytics::EventType::Notification);
  EXPECT_EQ(r.events[0].extra["csr"], req["csr"]);
  EXPECT_EQ(r.events[0].extra["certificateType"], "ChargingStationCertificate");
}

TEST(Ocpp201Handlers, AnAcceptedCsrIsHandedOnForSigning) {
  Harness h;
  h.state.certificate_decision = rpc::CertificateDecision{true, "", "", false};
  const json req = sample("SignCertificate");
  const auto r = h.call("SignCertificate", req);
  EXPECT_EQ(result_payload(r, "SignCertificate"), (json{{"status", "Accepted"}}));
  ASSERT_TRUE(r.certificate_to_sign);
  EXPECT_EQ(r.certificate_to_sign->csr_pem, req["csr"]);
  EXPECT_EQ(r.certificate_to_sign->certificate_type, "ChargingStationCertificate");
  EXPECT_EQ(r.events.size(), 1u);
}

TEST(Ocpp201Handlers, ASuspiciousCsrIsRejectedWithItsReasonAndASecurityEvent) {
  Harness h;
  h.state.certificate_decision =
      rpc::CertificateDecision{false, "InvalidCommonName", "the subject CN must be ...", true};
  const auto r = h.call("SignCertificate", sample("SignCertificate"));
  const json resp = result_payload(r, "SignCertificate");
  EXPECT_EQ(resp["status"], "Rejected");
  EXPECT_EQ(resp["statusInfo"]["reasonCode"], "InvalidCommonName");
  EXPECT_FALSE(r.certificate_to_sign);
  ASSERT_EQ(r.events.size(), 2u);
  EXPECT_EQ(r.events[1].event_type, analytics::EventType::SecurityEvent);
  EXPECT_EQ(r.events[1].extra["type"], "InvalidCertificateRequest");
  EXPECT_EQ(r.events[1].extra["reason_code"], "InvalidCommonName");
  EXPECT_EQ(r.events[1].extra["source"], "gateway");
  EXPECT_NE(r.events[0].event_id, r.events[1].event_id);
}

TEST(Ocpp201Handlers, EmptyResponseActionsAnswerAnEmptyObject) {
  for (std::string_view action :
       {"StatusNotification", "MeterValues", "NotifyEvent", "NotifyMonitoringReport",
        "SecurityEventNotification", "FirmwareStatusNotification",
        "PublishFirmwareStatusNotification", "LogStatusNotification", "ClearedChargingLimit",
        "NotifyChargingLimit", "ReportChargingProfiles", "ReservationStatusUpdate",
        "NotifyCustomerInformation", "NotifyDisplayMessages"}) {
    Harness h;
    EXPECT_EQ(result_payload(h.call(action, sample(action)), action), json::object()) << action;
  }
}

}  // namespace
}  // namespace ocppgw::ocpp201::test
