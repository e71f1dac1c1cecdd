// tests/unit/ocpp16/protocol_test.cpp: the 1.6 action table answered through rpc::dispatch:
// every action with a realistic payload, the decisions taken from CsmsState, transaction-id
// idempotency, unknown/offline transactions, and strict vs lenient validation.
#include "ocpp16/protocol.hpp"

#include <set>

#include "tests/unit/ocpp16/ocpp16_fixture.hpp"
#include "util/time.hpp"

namespace ocppgw::ocpp16 {
namespace {

using analytics::EventType;

struct Sample {
  std::string action;
  json payload;
  EventType event_type;
};

std::vector<Sample> realistic_requests() {
  return {
      {"Authorize", {{"idTag", "04A2B3C4D5E6F7"}}, EventType::Authorize},
      {"BootNotification",
       {{"chargePointVendor", "Alfen BV"},
        {"chargePointModel", "NG920-61001"},
        {"chargePointSerialNumber", "ACE0012345"},
        {"firmwareVersion", "6.1.0-4159"},
        {"iccid", "8931081234567890123"},
        {"meterType", "Eastron SDM630"}},
       EventType::BootNotification},
      {"DataTransfer",
       {{"vendorId", "com.alfen"}, {"messageId", "PlugAndCharge"}, {"data", "{\"x\":1}"}},
       EventType::DataTransfer},
      {"DiagnosticsStatusNotification", {{"status", "Uploaded"}}, EventType::DiagnosticsStatus},
      {"FirmwareStatusNotification", {{"status", "Installing"}}, EventType::FirmwareStatus},
      {"Heartbeat", json::object(), EventType::Heartbeat},
      {"MeterValues",
       {{"connectorId", 1},
        {"meterValue",
         {{{"timestamp", "2025-06-15T15:00:00Z"},
           {"sampledValue",
            {{{"value", "1234.5"},
              {"context", "Sample.Periodic"},
              {"measurand", "Energy.Active.Import.Register"},
              {"unit", "Wh"}}}}}}}},
       EventType::MeterValues},
      {"StartTransaction",
       {{"connectorId", 1},
        {"idTag", "04A2B3C4D5E6F7"},
        {"meterStart", 1000},
        {"timestamp", "2025-06-15T14:00:00.123+02:00"}},
       EventType::StartTransaction},
      {"StatusNotification",
       {{"connectorId", 1},
        {"errorCode", "NoError"},
        {"status", "SuspendedEV"},
        {"timestamp", "2025-06-15T15:00:00Z"}},
       EventType::StatusNotification},
      {"StopTransaction",
       {{"transactionId", 1},
        {"meterStop", 5000},
        {"timestamp", "2025-06-15T16:00:00Z"},
        {"reason", "EVDisconnected"}},
       EventType::StopTransaction},
      // The security extension.
      {"LogStatusNotification",
       {{"status", "Uploaded"}, {"requestId", 7}},
       EventType::DiagnosticsStatus},
      {"SecurityEventNotification",
       {{"type", "FirmwareUpdated"}, {"timestamp", "2025-06-15T15:00:00Z"}},
       EventType::SecurityEvent},
      {"SignCertificate",
       {{"csr", "-----BEGIN CERTIFICATE REQUEST-----\nMIIB\n-----END CERTIFICATE REQUEST-----"}},
       EventType::Notification},
      {"SignedFirmwareStatusNotification",
       {{"status", "SignatureVerified"}, {"requestId", 3}},
       EventType::FirmwareStatus},
  };
}

TEST_F(Ocpp16Test, TableHoldsTheChargePointInitiatedActionsOfCoreAndTheSecurityExtension) {
  const std::set<std::string> expected = {"Authorize",
                                          "BootNotification",
                                          "DataTransfer",
                                          "DiagnosticsStatusNotification",
                                          "FirmwareStatusNotification",
                                          "Heartbeat",
                                          "MeterValues",
                                          "StartTransaction",
                                          "StatusNotification",
                                          "StopTransaction",
                                          "LogStatusNotification",
                                          "SecurityEventNotification",
                                          "SignCertificate",
                                          "SignedFirmwareStatusNotification"};
  std::set<std::string> actual;
  for (const auto& spec : protocol().actions) {
    actual.emplace(spec.action);
    EXPECT_TRUE(protocol().schemas.has(spec.action)) << spec.action;
    EXPECT_TRUE(protocol().schemas.has(std::string(spec.action) + "Response")) << spec.action;
  }
  EXPECT_EQ(actual, expected);
  EXPECT_EQ(protocol().version, rpc::OcppVersion::v16);
  EXPECT_EQ(&protocol(), &protocol());
}

TEST_F(Ocpp16Test, EveryActionAnswersWithASchemaValidCallResult) {
  for (const auto& sample : realistic_requests()) {
    SCOPED_TRACE(sample.action);
    // The request itself must be valid, or this test would prove nothing in strict mode.
    ASSERT_TRUE(protocol().schemas.validate(sample.action, sample.payload).ok);
    const auto r = call(sample.action, sample.payload, "id-" + sample.action);
    EXPECT_TRUE(r.error.empty()) << r.error;
    result_of(r, sample.action);
    ASSERT_FALSE(r.events.empty());
    for (const auto& e : r.events) {
      EXPECT_EQ(e.event_type, sample.event_type);
      EXPECT_EQ(e.ocpp_action, sample.action);
      EXPECT_EQ(e.charge_point_id, "CP-1");
      EXPECT_EQ(e.ocpp_version, "1.6");
      EXPECT_EQ(e.message_id, "id-" + sample.action);
      EXPECT_EQ(e.gateway_node, "node-t");
      EXPECT_EQ(e.ingest_ts_ms, kNow);
      EXPECT_EQ(e.event_id.size(), 32u);
    }
  }
}

TEST_F(Ocpp16Test, BootNotificationAnswersWithTheStateDecision) {
  state.boot_status = "Pending";
  state.boot_interval_s = 60;
  const auto r = call("BootNotification", {{"chargePointVendor", "ABB"},
                                           {"chargePointModel", "Terra AC"},
                                           {"chargeBoxSerialNumber", "TACW-1"},
                                           {"firmwareVersion", "1.2"}});
  const json res = result_of(r, "BootNotification");
  EXPECT_EQ(res["status"], "Pending");
  EXPECT_EQ(res["interval"], 60);
  EXPECT_EQ(res["currentTime"], util::format_rfc3339_ms(kNow));
  ASSERT_EQ(state.boots.size(), 1u);
  EXPECT_EQ(state.boots[0].vendor, "ABB");
  EXPECT_EQ(state.boots[0].model, "Terra AC");
  EXPECT_EQ(state.boots[0].serial_number, "TACW-1");  // deprecated spelling still read
  EXPECT_EQ(state.boots[0].firmware_version, "1.2");
}

TEST_F(Ocpp16Test, SignCertificateAnswersTheStatesDecisionAndHandsAnAcceptedCsrOn) {
  const json csr = {{"csr",
                     "-----BEGIN CERTIFICATE REQUEST-----\nMIIB\n-----END CERTIFICATE "
                     "REQUEST-----"}};
  auto r = call("SignCertificate", csr);
  EXPECT_EQ(result_of(r, "SignCertificate"), (json{{"status", "Rejected"}}));  // no CA
  EXPECT_FALSE(r.certificate_to_sign);
  EXPECT_EQ(r.events.size(), 1u);

  state.certificate_decision = rpc::CertificateDecision{true, "", "", false};
  r = call("SignCertificate", csr);
  EXPECT_EQ(result_of(r, "SignCertificate"), (json{{"status", "Accepted"}}));
  ASSERT_TRUE(r.certificate_to_sign);
  EXPECT_EQ(r.certificate_to_sign->csr_pem, csr["csr"]);
  EXPECT_EQ(r.certificate_to_sign->certificate_type, "ChargingStationCertificate");

  state.certificate_decision = rpc::CertificateDecision{false, "KeyNotAllowed", "RSA 1024", true};
  r = call("SignCertificate", csr);
  EXPECT_EQ(result_of(r, "SignCertificate"), (json{{"status", "Rejected"}}));
  ASSERT_EQ(r.events.size(), 2u);
  EXPECT_EQ(r.events[1].event_type, EventType::SecurityEvent);
  EXPECT_EQ(r.events[1].extra["reason_code"], "KeyNotAllowed");
}

TEST_F(Ocpp16Test, HeartbeatAnswersWithTheCurrentTime) {
  const json res = result_of(call("Heartbeat", json::object()), "Heartbeat");
  EXPECT_EQ(res, (json{{"currentTime", "2025-06-15T15:06:40.000Z"}}));
}

TEST_F(Ocpp16Test, AuthorizeReportsStatusExpiryAndParent) {
  state.tokens["TAG-OK"] = {"Accepted", int64_t{1'800'000'000'000}, std::string("FLEET-1")};
  const json res = result_of(call("Authorize", {{"idTag", "TAG-OK"}}), "Authorize");
  EXPECT_EQ(res["idTagInfo"]["status"], "Accepted");
  EXPECT_EQ(res["idTagInfo"]["expiryDate"], "2027-01-15T08:00:00.000Z");
  EXPECT_EQ(res["idTagInfo"]["parentIdTag"], "FLEET-1");
}

TEST_F(Ocpp16Test, AuthorizeMapsStatusesOutsideThe16EnumToInvalid) {
  state.unknown_token_status = "Unknown";
  const json res = result_of(call("Authorize", {{"idTag", "NOBODY"}}), "Authorize");
  EXPECT_EQ(res["idTagInfo"], (json{{"status", "Invalid"}}));
  for (std::string status : {"Blocked", "Expired", "ConcurrentTx"}) {
    state.tokens["T"] = {status, std::nullopt, std::nullopt};
    EXPECT_EQ(result_of(call("Authorize", {{"idTag", "T"}}), "Authorize")["idTagInfo"]["status"],
              status);
  }
}

TEST_F(Ocpp16Test, AuthorizeOmitsAParentIdTooLongFor16) {
  state.tokens["T"] = {"Accepted", std::nullopt, std::string(36, 'G')};
  const json res = result_of(call("Authorize", {{"idTag", "T"}}), "Authorize");
  EXPECT_EQ(res["idTagInfo"], (json{{"status", "Accepted"}}));
}

TEST_F(Ocpp16Test, StartTransactionAssignsATransactionId) {
  state.next_transaction_id = 41;
  state.tokens["TAG"] = {"Accepted", std::nullopt, std::nullopt};
  const json res = result_of(call("StartTransaction", {{"connectorId", 2},
                                                       {"idTag", "TAG"},
                                                       {"meterStart", 0},
                                                       {"reservationId", 7},
                                                       {"timestamp", "2025-06-15T15:00:00Z"}}),
                             "StartTransaction");
  EXPECT_EQ(res["transactionId"], 41);
  EXPECT_EQ(res["idTagInfo"]["status"], "Accepted");
  ASSERT_EQ(state.starts.size(), 1u);
  const auto& key = state.starts.begin()->first;
  EXPECT_EQ(std::get<1>(key), 2);
  EXPECT_EQ(std::get<2>(key), "TAG");
  EXPECT_EQ(std::get<3>(key), *util::parse_rfc3339_ms("2025-06-15T15:00:00Z"));
}

TEST_F(Ocpp16Test, IdenticalStartTransactionResentGetsTheSameId) {
  const json start = {{"connectorId", 1},
                      {"idTag", "TAG"},
                      {"meterStart", 100},
                      {"timestamp", "2025-06-15T15:00:00Z"}};
  const json first = result_of(call("StartTransaction", start, "a"), "StartTransaction");
  // After a reconnect the charge point re-sends the same request under a new message id.
  const json again = result_of(call("StartTransaction", start, "b"), "StartTransaction");
  EXPECT_EQ(first["transactionId"], again["transactionId"]);
  json other = start;
  other["meterStart"] = 101;
  const json different = result_of(call("StartTransaction", other, "c"), "StartTransaction");
  EXPECT_NE(different["transactionId"], first["transactionId"]);
}

TEST_F(Ocpp16Test, StopTransactionOfAKnownIdIsNotFlagged) {
  const json started = result_of(call("StartTransaction", {{"connectorId", 1},
                                                           {"idTag", "TAG"},
                                                           {"meterStart", 0},
                                                           {"timestamp", "2025-06-15T15:00:00Z"}}),
                                 "StartTransaction");
  const auto r = call("StopTransaction", {{"transactionId", started["transactionId"]},
                                          {"meterStop", 10},
                                          {"timestamp", "2025-06-15T16:00:00Z"}});
  EXPECT_EQ(result_of(r, "StopTransaction"), json::object());  // no idTag sent: no idTagInfo
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_TRUE(r.events[0].flags.empty());
}

TEST_F(Ocpp16Test, StopTransactionAnswersIdTagInfoWhenIdTagWasSent) {
  state.tokens["TAG"] = {"Blocked", std::nullopt, std::nullopt};
  const json res = result_of(call("StopTransaction", {{"transactionId", 5},
                                                      {"idTag", "TAG"},
                                                      {"meterStop", 10},
                                                      {"timestamp", "2025-06-15T16:00:00Z"}}),
                             "StopTransaction");
  EXPECT_EQ(res, (json{{"idTagInfo", {{"status", "Blocked"}}}}));
}

TEST_F(Ocpp16Test, StopTransactionWithUnknownIdIsAnsweredAndFlagged) {
  const auto r =
      call("StopTransaction",
           {{"transactionId", 999},
            {"meterStop", 10},
            {"timestamp", "2025-06-15T16:00:00Z"},
            {"transactionData",
             {{{"timestamp", "2025-06-15T16:00:00Z"}, {"sampledValue", {{{"value", "10"}}}}}}}});
  result_of(r, "StopTransaction");
  ASSERT_EQ(r.events.size(), 2u);
  for (const auto& e : r.events) {
    EXPECT_TRUE(has_flag(e, analytics::flag::kUnknownTransaction));
    EXPECT_FALSE(has_flag(e, analytics::flag::kOfflineTransaction));
  }
  ASSERT_EQ(state.stops.size(), 1u);
  EXPECT_EQ(state.stops[0].transaction_id, 999);
}

TEST_F(Ocpp16Test, StopTransactionWithMinusOneIsAnsweredAndFlaggedOffline) {
  const auto r = call("StopTransaction", {{"transactionId", -1},
                                          {"idTag", "TAG"},
                                          {"meterStop", 10},
                                          {"timestamp", "2025-06-15T16:00:00Z"}});
  EXPECT_EQ(result_of(r, "StopTransaction")["idTagInfo"]["status"], "Invalid");
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_TRUE(has_flag(r.events[0], analytics::flag::kOfflineTransaction));
  EXPECT_FALSE(has_flag(r.events[0], analytics::flag::kUnknownTransaction));
  // Nothing open to link to: a synthetic session of its own, never the shared "-1".
  EXPECT_EQ(r.events[0].transaction_id, "-1:?:" + std::to_string(kNow) + ":m1");
  EXPECT_EQ(r.events[0].extra["sent_transaction_id"], -1);
}

TEST_F(Ocpp16Test, MeterValuesFlagsUnknownAndOfflineTransactions) {
  auto meter = [](int64_t tx) {
    return json{{"connectorId", 1},
                {"transactionId", tx},
                {"meterValue",
                 {{{"timestamp", "2025-06-15T15:00:00Z"}, {"sampledValue", {{{"value", "1"}}}}}}}};
  };
  const auto unknown = call("MeterValues", meter(77));
  EXPECT_EQ(result_of(unknown, "MeterValues"), json::object());
  EXPECT_TRUE(has_flag(unknown.events.at(0), analytics::flag::kUnknownTransaction));

  const auto offline = call("MeterValues", meter(-1));
  EXPECT_EQ(result_of(offline, "MeterValues"), json::object());
  EXPECT_TRUE(has_flag(offline.events.at(0), analytics::flag::kOfflineTransaction));
  EXPECT_FALSE(has_flag(offline.events.at(0), analytics::flag::kUnknownTransaction));

  const json started = result_of(call("StartTransaction", {{"connectorId", 1},
                                                           {"idTag", "T"},
                                                           {"meterStart", 0},
                                                           {"timestamp", "2025-06-15T14:00:00Z"}}),
                                 "StartTransaction");
  const auto known = call("MeterValues", meter(started["transactionId"].get<int64_t>()));
  EXPECT_TRUE(known.events.at(0).flags.empty());

  json no_tx = meter(0);
  no_tx.erase("transactionId");
  EXPECT_TRUE(call("MeterValues", no_tx).events.at(0).flags.empty());
}

// ---- transactionId -1 linking ----

class Ocpp16LinkTest : public Ocpp16Test {
 protected:
  int64_t start(int64_t connector, const std::string& tag, const std::string& ts) {
    const json res = result_of(
        call("StartTransaction",
             {{"connectorId", connector}, {"idTag", tag}, {"meterStart", 0}, {"timestamp", ts}},
             "start-" + std::to_string(++frames_)),
        "StartTransaction");
    return res["transactionId"].get<int64_t>();
  }
  rpc::InboundResult meter(int64_t connector, int64_t tx = -1) {
    return call("MeterValues",
                {{"connectorId", connector},
                 {"transactionId", tx},
                 {"meterValue",
                  {{{"timestamp", "2025-06-15T15:30:00Z"}, {"sampledValue", {{{"value", "5"}}}}}}}},
                "mv-" + std::to_string(++frames_));
  }
  rpc::InboundResult stop(std::optional<std::string> tag, int64_t tx = -1) {
    json req = {{"transactionId", tx},
                {"meterStop", 10},
                {"timestamp", "2025-06-15T16:00:00Z"},
                {"transactionData",
                 {{{"timestamp", "2025-06-15T16:00:00Z"}, {"sampledValue", {{{"value", "10"}}}}}}}};
    if (tag) req["idTag"] = *tag;
    return call("StopTransaction", req, "stop-" + std::to_string(++frames_));
  }
  bool still_open(int64_t id) { return state.issued.at({"CP-1", id}); }
  int frames_ = 0;
};

TEST_F(Ocpp16LinkTest, MinusOneMeterValuesLinkByConnector) {
  start(1, "A", "2025-06-15T15:00:00Z");
  const int64_t b = start(2, "B", "2025-06-15T15:00:00Z");
  const auto r = meter(2);
  EXPECT_EQ(result_of(r, "MeterValues"), json::object());
  const auto& e = r.events.at(0);
  EXPECT_EQ(e.transaction_id, std::to_string(b));
  EXPECT_EQ(e.extra["sent_transaction_id"], -1);
  EXPECT_TRUE(has_flag(e, analytics::flag::kTransactionLinkedByConnector));
  EXPECT_TRUE(has_flag(e, analytics::flag::kOfflineTransaction));  // what was sent
}

TEST_F(Ocpp16LinkTest, NeverIssuedMeterValuesIdLinksByConnector) {
  const int64_t a = start(1, "A", "2025-06-15T15:00:00Z");
  const auto linked = meter(1, 777);
  const auto& e = linked.events.at(0);
  EXPECT_EQ(e.transaction_id, std::to_string(a));
  EXPECT_EQ(e.extra["sent_transaction_id"], 777);
  EXPECT_TRUE(has_flag(e, analytics::flag::kUnknownTransaction));
  EXPECT_TRUE(has_flag(e, analytics::flag::kTransactionLinkedByConnector));
  // Nothing open on connector 2: kept as sent, as before.
  const auto kept_frame = meter(2, 778);
  const auto& kept = kept_frame.events.at(0);
  EXPECT_EQ(kept.transaction_id, "778");
  EXPECT_FALSE(kept.extra.contains("sent_transaction_id"));
}

TEST_F(Ocpp16LinkTest, MinusOneStopLinksByIdTagAndStopsThatTransaction) {
  state.tokens["A"] = {"Accepted", std::nullopt, std::nullopt};
  const int64_t a = start(1, "A", "2025-06-15T15:00:00Z");
  const int64_t b = start(2, "B", "2025-06-15T15:10:00Z");
  const auto r = stop("A");
  EXPECT_EQ(result_of(r, "StopTransaction")["idTagInfo"]["status"], "Accepted");
  ASSERT_EQ(r.events.size(), 2u);
  for (const auto& e : r.events) {  // the stop and its transactionData
    EXPECT_EQ(e.transaction_id, std::to_string(a));
    EXPECT_EQ(e.extra["sent_transaction_id"], -1);
    EXPECT_TRUE(has_flag(e, analytics::flag::kTransactionLinkedByIdTag));
  }
  EXPECT_EQ(state.stops.back().transaction_id, a);
  EXPECT_FALSE(still_open(a));
  EXPECT_TRUE(still_open(b));
}

TEST_F(Ocpp16LinkTest, MinusOneStopLinksToTheOnlyOpenTransaction) {
  const int64_t a = start(1, "A", "2025-06-15T15:00:00Z");
  const auto r = stop("OTHER");
  EXPECT_EQ(r.events.at(0).transaction_id, std::to_string(a));
  EXPECT_TRUE(has_flag(r.events.at(0), analytics::flag::kTransactionLinkedOnlyOpen));
  EXPECT_FALSE(still_open(a));
}

TEST_F(Ocpp16LinkTest, MinusOneStopWithoutIdTagLinksToTheLatestStart) {
  const int64_t a = start(1, "A", "2025-06-15T15:00:00Z");
  const int64_t b = start(2, "B", "2025-06-15T15:20:00Z");
  const auto r = stop(std::nullopt);
  EXPECT_EQ(r.events.at(0).transaction_id, std::to_string(b));
  EXPECT_TRUE(has_flag(r.events.at(0), analytics::flag::kTransactionLinkedLatestStart));
  EXPECT_TRUE(still_open(a));
  EXPECT_FALSE(still_open(b));
}

TEST_F(Ocpp16LinkTest, AmbiguousMinusOneStopStopsNothingAndGetsItsOwnSession) {
  // Two open transactions, no idTag, same start: no rule picks one.
  const int64_t a = start(1, "A", "2025-06-15T15:00:00Z");
  const int64_t b = start(2, "B", "2025-06-15T15:00:00Z");
  const auto r = stop(std::nullopt);
  EXPECT_EQ(result_of(r, "StopTransaction"), json::object());
  for (const auto& e : r.events) {
    EXPECT_EQ(e.transaction_id->rfind("-1:?:", 0), 0u) << *e.transaction_id;
    EXPECT_TRUE(has_flag(e, analytics::flag::kOfflineTransaction));
    EXPECT_EQ(e.extra["sent_transaction_id"], -1);
  }
  EXPECT_TRUE(still_open(a));
  EXPECT_TRUE(still_open(b));
}

TEST_F(Ocpp16LinkTest, MinusOneMeterValuesWithNothingOpenOnTheConnectorStayUnlinked) {
  start(2, "B", "2025-06-15T15:00:00Z");
  const auto r = meter(1);
  const auto& e = r.events.at(0);
  EXPECT_EQ(e.transaction_id, "-1:1:" + std::to_string(kNow) + ":mv-2");
  EXPECT_TRUE(has_flag(e, analytics::flag::kOfflineTransaction));
  EXPECT_FALSE(has_flag(e, analytics::flag::kTransactionLinkedByConnector));
}

TEST_F(Ocpp16LinkTest, TwoMinusOneRunsSeparatedByAStartAreTwoSessions) {
  const auto first = *meter(1).events.at(0).transaction_id;
  EXPECT_EQ(*meter(1).events.at(0).transaction_id, first);  // same run
  const int64_t a = start(1, "A", "2025-06-15T15:00:00Z");
  EXPECT_EQ(*meter(1).events.at(0).transaction_id, std::to_string(a));
  EXPECT_FALSE(stop("A", a).events.at(0).extra.contains("sent_transaction_id"));
  const auto second = *meter(1).events.at(0).transaction_id;
  EXPECT_NE(second, first);
  EXPECT_EQ(second.rfind("-1:1:", 0), 0u) << second;
  // The unlinked -1 stop closes the second run.
  EXPECT_EQ(stop(std::nullopt).events.at(0).transaction_id, second);
}

TEST_F(Ocpp16LinkTest, AReSentMinusOneStopDoesNotStopAnotherTransaction) {
  const int64_t a = start(1, "A", "2025-06-15T15:00:00Z");
  const int64_t b = start(2, "B", "2025-06-15T15:10:00Z");
  const json req = {{"transactionId", -1},
                    {"idTag", "A"},
                    {"meterStop", 10},
                    {"timestamp", "2025-06-15T16:00:00Z"}};
  EXPECT_EQ(call("StopTransaction", req, "s1").events.at(0).transaction_id, std::to_string(a));
  // The answer was lost; the same frame comes again.
  EXPECT_EQ(call("StopTransaction", req, "s1").events.at(0).transaction_id, std::to_string(a));
  EXPECT_TRUE(still_open(b));
}

TEST_F(Ocpp16Test, DataTransferAnswersUnknownVendorId) {
  const json res = result_of(call("DataTransfer", {{"vendorId", "com.example"}}), "DataTransfer");
  EXPECT_EQ(res, (json{{"status", "UnknownVendorId"}}));
}

TEST_F(Ocpp16Test, StrictModeRefusesAnOverlongInfoWithPropertyConstraintViolation) {
  const auto r = call("StatusNotification", {{"connectorId", 1},
                                             {"errorCode", "NoError"},
                                             {"status", "Available"},
                                             {"info", std::string(51, 'x')}});
  EXPECT_EQ(error_code_of(r), "PropertyConstraintViolation");
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].event_type, EventType::Invalid);
}

TEST_F(Ocpp16Test, LenientModeAnswersStatusNotificationThatBreaksTheSchema) {
  mode = rpc::ValidationMode::Lenient;
  const auto r = call("StatusNotification", {{"connectorId", 1},
                                             {"errorCode", "Mode3Error"},
                                             {"status", "Charging"},
                                             {"info", std::string(80, 'i')}});
  EXPECT_EQ(result_of(r, "StatusNotification"), json::object());
  ASSERT_EQ(r.events.size(), 1u);
  const auto& e = r.events[0];
  EXPECT_EQ(e.event_type, EventType::StatusNotification);
  EXPECT_TRUE(has_flag(e, analytics::flag::kSchemaViolation));
  ASSERT_TRUE(e.extra.contains("schema_violations"));
  std::set<std::string> paths;
  for (const auto& v : e.extra["schema_violations"]) paths.insert(v["path"].get<std::string>());
  EXPECT_EQ(paths, (std::set<std::string>{"/errorCode", "/info"}));
  EXPECT_EQ(e.error_code, "Mode3Error");
  EXPECT_EQ(e.connector_status, "CHARGING");
  EXPECT_EQ(e.extra["info"], std::string(80, 'i'));
}

TEST_F(Ocpp16Test, LenientModeStillRefusesWhatAHandlerCannotDoWithout) {
  mode = rpc::ValidationMode::Lenient;
  const auto missing =
      call("StartTransaction",
           {{"connectorId", 1}, {"meterStart", 0}, {"timestamp", "2025-06-15T15:00:00Z"}});
  EXPECT_EQ(error_code_of(missing), "OccurenceConstraintViolation");
  EXPECT_EQ(missing.events.at(0).event_type, EventType::Invalid);

  const auto mistyped =
      call("StopTransaction",
           {{"transactionId", "12"}, {"meterStop", 1}, {"timestamp", "2025-06-15T15:00:00Z"}});
  EXPECT_EQ(error_code_of(mistyped), "TypeConstraintViolation");

  const auto bad_time =
      call("StartTransaction",
           {{"connectorId", 1}, {"idTag", "T"}, {"meterStart", 0}, {"timestamp", "yesterday"}});
  EXPECT_EQ(error_code_of(bad_time), "PropertyConstraintViolation");
  EXPECT_TRUE(state.starts.empty());
}

TEST_F(Ocpp16Test, LenientModeAnswersWhatAHandlerDoesNotNeed) {
  mode = rpc::ValidationMode::Lenient;
  // MeterValues without connectorId, Stop with an unparsable timestamp: both still answered.
  const auto meter =
      call("MeterValues",
           {{"meterValue",
             {{{"timestamp", "2025-06-15T15:00:00Z"}, {"sampledValue", {{{"value", "5"}}}}}}}});
  EXPECT_EQ(result_of(meter, "MeterValues"), json::object());
  const auto stop =
      call("StopTransaction", {{"transactionId", 3}, {"meterStop", 1}, {"timestamp", "16:00"}});
  EXPECT_EQ(result_of(stop, "StopTransaction"), json::object());
  ASSERT_EQ(state.stops.size(), 1u);
  EXPECT_EQ(state.stops[0].timestamp_ms, kNow);
  EXPECT_TRUE(has_flag(stop.events.at(0), "INVALID_TIMESTAMP"));
  EXPECT_EQ(stop.events.at(0).extra["raw_timestamp"], "16:00");
}

TEST_F(Ocpp16Test, StrictModeRejectsUnknownMembersAndLenientKeepsThem) {
  const json payload = {{"status", "Idle"}, {"vendorDetail", {{"slot", 3}}}};
  EXPECT_EQ(error_code_of(call("FirmwareStatusNotification", payload)), "FormationViolation");
  mode = rpc::ValidationMode::Lenient;
  const auto r = call("FirmwareStatusNotification", payload);
  result_of(r, "FirmwareStatusNotification");
  EXPECT_EQ(r.events.at(0).extra["vendorDetail"], (json{{"slot", 3}}));
  EXPECT_EQ(r.events.at(0).extra["status"], "Idle");
}

}  // namespace
}  // namespace ocppgw::ocpp16
