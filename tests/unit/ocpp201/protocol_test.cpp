// tests/unit/ocpp201/protocol_test.cpp: the 2.0.1 table through rpc::dispatch: every
// charge-point-initiated action is answered with a schema-valid CALLRESULT and recorded, and
// bad input gets the 2.0.1 CALLERROR spellings.
#include "ocpp201/protocol.hpp"

#include <set>

#include <gtest/gtest.h>

#include "tests/unit/ocpp201/harness.hpp"
#include "tests/unit/ocpp201/payloads.hpp"
#include "util/time.hpp"

namespace ocppgw::ocpp201::test {
namespace {

using analytics::EventType;

TEST(Ocpp201Protocol, TableHasEveryChargePointInitiatedActionWithBothSchemas) {
  const rpc::Protocol& p = protocol();
  EXPECT_EQ(p.version, rpc::OcppVersion::v201);
  EXPECT_EQ(p.request_suffix, "Request");
  std::set<std::string_view> expected;
  for (const auto& sample : action_samples()) expected.insert(sample.action);
  EXPECT_EQ(expected.size(), 25u);
  for (std::string_view action : expected) {
    EXPECT_NE(p.find(action), nullptr) << action;
    EXPECT_TRUE(p.schemas.has(std::string(action) + "Request")) << action;
    EXPECT_TRUE(p.schemas.has(std::string(action) + "Response")) << action;
  }
  EXPECT_EQ(p.actions.size(), expected.size());
  // CSMS-initiated actions are not ours to answer.
  EXPECT_EQ(p.find("RequestStartTransaction"), nullptr);
}

TEST(Ocpp201Protocol, EveryActionGetsASchemaValidCallResultAndItsEvent) {
  for (const auto& sample : action_samples()) {
    SCOPED_TRACE(std::string(sample.action));
    Harness h;
    const auto request_check =
        protocol().schemas.validate(std::string(sample.action) + "Request", sample.request);
    ASSERT_TRUE(request_check.ok) << "sample is not schema-valid: " << request_check.summary();
    const auto r =
        h.call(sample.action, sample.request, "id-" + std::string(sample.action.substr(0, 20)));
    result_payload(r, sample.action);
    const auto reply = json::parse(r.reply);
    EXPECT_EQ(reply[1], "id-" + std::string(sample.action.substr(0, 20)));
    ASSERT_FALSE(r.events.empty());
    const auto& e = r.events.front();
    EXPECT_EQ(e.event_type, sample.event_type);
    EXPECT_EQ(e.ocpp_action, sample.action);
    EXPECT_EQ(e.ocpp_version, "2.0.1");
    EXPECT_EQ(e.charge_point_id, kChargePoint);
    EXPECT_EQ(e.gateway_node, "node-test");
    EXPECT_EQ(e.event_id.size(), 32u);
    EXPECT_EQ(e.ingest_ts_ms, kIngestMs);
    // Raw tokens never reach an event, in any field.
    EXPECT_EQ(analytics::to_json_string(e).find("04A2B3C4D5E680"), std::string::npos);
  }
}

TEST(Ocpp201Protocol, RecordedActionsKeepTheirPayloadAndDeviceTime) {
  Harness h;
  const auto samples = action_samples();
  for (const auto& sample : samples) {
    if (sample.action != "NotifyEvent" && sample.action != "SecurityEventNotification" &&
        sample.action != "ClearedChargingLimit" && sample.action != "FirmwareStatusNotification")
      continue;
    SCOPED_TRACE(std::string(sample.action));
    const auto r = h.call(sample.action, sample.request);
    ASSERT_EQ(r.events.size(), 1u);
    const auto& e = r.events.front();
    if (sample.action == "NotifyEvent") {
      EXPECT_EQ(e.extra["eventData"], sample.request["eventData"]);
      EXPECT_EQ(e.extra["seqNo"], 0);
      EXPECT_EQ(e.event_ts_ms, *util::parse_rfc3339_ms("2024-06-01T09:56:00Z"));
    } else if (sample.action == "SecurityEventNotification") {
      EXPECT_EQ(e.extra["type"], "FirmwareUpdated");
      EXPECT_EQ(e.extra["techInfo"], "1.8.20 -> 1.8.21");
      EXPECT_EQ(e.event_ts_ms, *util::parse_rfc3339_ms("2024-06-01T09:50:00Z"));
    } else if (sample.action == "ClearedChargingLimit") {
      EXPECT_EQ(e.evse_id, 1);
      EXPECT_EQ(e.extra["chargingLimitSource"], "EMS");
      EXPECT_FALSE(e.extra.contains("evseId"));
      EXPECT_EQ(e.event_ts_ms, kIngestMs);  // no device time in this message
    } else {
      EXPECT_EQ(e.extra["status"], "Installed");
      EXPECT_EQ(e.extra["requestId"], 42);
    }
  }
}

TEST(Ocpp201Protocol, CustomDataIsKeptInExtra) {
  Harness h;
  const json custom = {{"vendorId", "com.example"}, {"cabinetTemp", 38}};
  auto r = h.call("Heartbeat", {{"customData", custom}});
  result_payload(r, "Heartbeat");
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].extra["customData"], custom);

  r = h.call("StatusNotification", {{"timestamp", "2024-06-01T09:59:58Z"},
                                    {"connectorStatus", "Faulted"},
                                    {"evseId", 2},
                                    {"connectorId", 1},
                                    {"customData", custom}});
  result_payload(r, "StatusNotification");
  EXPECT_EQ(r.events[0].extra, json({{"customData", custom}}));
}

// ---- bad input: 2.0.1 spellings ----

TEST(Ocpp201CallError, MissingRequiredFieldIsOccurrenceConstraintViolation) {
  Harness h;
  const auto r = h.call("BootNotification",
                        {{"chargingStation", {{"model", "X"}, {"vendorName", "Y"}}}}, "boot-1");
  EXPECT_EQ(call_error(r).first, "OccurrenceConstraintViolation");
  EXPECT_EQ(json::parse(r.reply)[1], "boot-1");
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].event_type, EventType::Invalid);
  EXPECT_EQ(r.events[0].error_code, "OccurrenceConstraintViolation");
  EXPECT_NE(r.events[0].extra["raw"].get<std::string>().find("chargingStation"), std::string::npos);
  EXPECT_TRUE(h.state.boots.empty());  // never handled
}

TEST(Ocpp201CallError, WrongTypeIsTypeConstraintViolation) {
  Harness h;
  const auto r = h.call("StatusNotification", {{"timestamp", "2024-06-01T09:59:58Z"},
                                               {"connectorStatus", "Available"},
                                               {"evseId", "1"},
                                               {"connectorId", 1}});
  EXPECT_EQ(call_error(r).first, "TypeConstraintViolation");
  EXPECT_NE(call_error(r).second.find("evseId"), std::string::npos);
}

TEST(Ocpp201CallError, UnknownPropertyIsFormatViolationNotTheOneSixSpelling) {
  Harness h;
  const auto r = h.call("Heartbeat", {{"uptime", 12}});
  EXPECT_EQ(call_error(r).first, "FormatViolation");
  EXPECT_EQ(r.events[0].error_code, "FormatViolation");
}

TEST(Ocpp201CallError, EnumOutsideTheSchemaIsPropertyConstraintViolation) {
  Harness h;
  // "Charging" is a 1.6 status; 2.0.1 connectors are Occupied.
  const auto r = h.call("StatusNotification", {{"timestamp", "2024-06-01T09:59:58Z"},
                                               {"connectorStatus", "Charging"},
                                               {"evseId", 1},
                                               {"connectorId", 1}});
  EXPECT_EQ(call_error(r).first, "PropertyConstraintViolation");
}

TEST(Ocpp201CallError, TooManyItemsIsOccurrenceConstraintViolation) {
  Harness h;
  auto r = h.call("MeterValues", {{"evseId", 1}, {"meterValue", json::array()}});
  EXPECT_EQ(call_error(r).first, "OccurrenceConstraintViolation");
}

TEST(Ocpp201CallError, UnknownActionIsNotImplemented) {
  Harness h;
  const auto r = h.call("StartTransaction", {{"connectorId", 1}});  // 1.6 action
  EXPECT_EQ(call_error(r).first, "NotImplemented");
  EXPECT_EQ(r.events[0].event_type, EventType::Invalid);
  EXPECT_EQ(r.events[0].ocpp_action, "StartTransaction");
}

TEST(Ocpp201CallError, MalformedFramesUseTheTwoZeroOneSpellings) {
  Harness h;
  // A CALL missing its payload: the id is readable, so it is echoed.
  auto r = h.send_text(R"([2,"m-7","Heartbeat"])");
  EXPECT_EQ(call_error(r).first, "FormatViolation");
  EXPECT_EQ(json::parse(r.reply)[1], "m-7");
  // Message type 5 does not exist.
  r = h.send_text(R"([5,"m-8","Heartbeat",{}])");
  EXPECT_EQ(call_error(r).first, "MessageTypeNotSupported");
  // Not JSON at all: nothing to echo, but the text is kept for quarantine, and any answer
  // uses a 2.0.1 code.
  r = h.send_text(R"([2,"m-9","Heartbeat",{)");
  if (!r.reply.empty()) {
    const std::string code = call_error(r).first;
    EXPECT_TRUE(code == "FormatViolation" || code == "RpcFrameworkError") << r.reply;
  }
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].event_type, EventType::Invalid);
  EXPECT_EQ(r.events[0].extra["raw"], R"([2,"m-9","Heartbeat",{)");
  EXPECT_EQ(r.events[0].ocpp_version, "2.0.1");
}

TEST(Ocpp201CallError, LenientModeAnswersAndFlagsASchemaViolation) {
  Harness h;
  h.mode = rpc::ValidationMode::Lenient;
  const auto r = h.call("StatusNotification", {{"timestamp", "2024-06-01T09:59:58Z"},
                                               {"connectorStatus", "Charging"},
                                               {"evseId", 1},
                                               {"connectorId", 1}});
  result_payload(r, "StatusNotification");
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_TRUE(has_flag(r.events[0], analytics::flag::kSchemaViolation));
  EXPECT_EQ(r.events[0].connector_status, "CHARGING");
  // The payload broke its schema: it is kept whole.
  EXPECT_EQ(r.events[0].extra["payload"]["connectorStatus"], "Charging");
  EXPECT_TRUE(r.events[0].extra.contains("schema_violations"));
}

TEST(Ocpp201CallError, LenientModeStillRefusesWhatTheHandlerCannotRead) {
  Harness h;
  h.mode = rpc::ValidationMode::Lenient;
  const auto r = h.call("Authorize", {{"idToken", "04A2B3C4D5E680"}});
  EXPECT_EQ(call_error(r).first, "TypeConstraintViolation");
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].event_type, EventType::Invalid);
}

// A number no int64 holds, where the handler needs an integer: refused with the schema's code,
// never converted (that would be undefined behaviour; fuzz/regressions/dispatch201_fuzz).
TEST(Ocpp201CallError, LenientModeRefusesAnOutOfRangeIntegerTheHandlerNeeds) {
  Harness h;
  h.mode = rpc::ValidationMode::Lenient;
  for (const char* member : {"seqNo", "evse"}) {
    json tx = {{"eventType", "Started"},
               {"timestamp", "2026-12-04T10:00:00Z"},
               {"triggerReason", "Authorized"},
               {"seqNo", 0},
               {"transactionInfo", {{"transactionId", "TX-1"}}},
               {"evse", {{"id", 1}}}};
    if (std::string(member) == "seqNo")
      tx["seqNo"] = 1e300;
    else
      tx["evse"]["id"] = 1e300;
    const auto r = h.call("TransactionEvent", tx);
    EXPECT_EQ(call_error(r).first, "TypeConstraintViolation") << member;
    ASSERT_EQ(r.events.size(), 1u) << member;
    EXPECT_EQ(r.events[0].event_type, EventType::Invalid) << member;
  }
}

}  // namespace
}  // namespace ocppgw::ocpp201::test
