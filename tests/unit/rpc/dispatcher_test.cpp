// tests/unit/rpc/dispatcher_test.cpp: one frame in, reply and events out, over the real 1.6
// protocol table: refusals, strict vs lenient, stable event ids, and the caller's context.
#include "rpc/dispatcher.hpp"

#include <gtest/gtest.h>

#include "ocpp16/protocol.hpp"
#include "tests/support/fake_csms_state.hpp"
#include "tests/unit/rpc/context.hpp"

namespace ocppgw::rpc {
namespace {

using analytics::EventType;
using nlohmann::json;

class RpcDispatcher : public ::testing::Test {
 protected:
  InboundResult send(std::string_view text, std::string_view cp = "CP-9") {
    CallContext ctx = make_context(policy, state, cp, mode, 1'700'000'000'000);
    return dispatch(ocpp16::protocol(), ctx, text);
  }
  static json reply(const InboundResult& r) { return json::parse(r.reply, nullptr, false); }

  testing::FakeCsmsState state;
  Policy policy{.id_token_secret = "k"};
  ValidationMode mode = ValidationMode::Strict;
};

TEST_F(RpcDispatcher, UnknownActionIsNotImplementedWithTheIdEchoed) {
  const auto r = send(R"([2,"u-1","FlyToTheMoon",{"speed":1}])");
  const json j = reply(r);
  ASSERT_TRUE(j.is_array());
  EXPECT_EQ(j[0], 4);
  EXPECT_EQ(j[1], "u-1");
  EXPECT_EQ(j[2], "NotImplemented");
  ASSERT_EQ(r.events.size(), 1u);
  const auto& e = r.events[0];
  EXPECT_EQ(e.event_type, EventType::Invalid);
  EXPECT_EQ(e.ocpp_action, "FlyToTheMoon");
  EXPECT_EQ(e.message_id, "u-1");
  EXPECT_EQ(e.error_code, "NotImplemented");
  EXPECT_EQ(e.extra["raw"], R"([2,"u-1","FlyToTheMoon",{"speed":1}])");
  EXPECT_FALSE(r.error.empty());
}

TEST_F(RpcDispatcher, BeforeAcceptanceOnlyBootNotificationIsAnswered) {
  state.registration_accepted = false;
  const auto r = send(R"([2,"h-1","Heartbeat",{}])");
  const json j = reply(r);
  ASSERT_TRUE(j.is_array());
  EXPECT_EQ(j[0], 4);
  EXPECT_EQ(j[2], "SecurityError");
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].event_type, EventType::Invalid);
  const auto boot =
      send(R"([2,"b-1","BootNotification",{"chargePointVendor":"V","chargePointModel":"M"}])");
  EXPECT_EQ(reply(boot)[0], 3);
}

TEST_F(RpcDispatcher, MalformedCallGetsFormationViolationAndAnInvalidEvent) {
  const auto r = send(R"([2,"f-1","Heartbeat"])");
  EXPECT_EQ(
      reply(r),
      json::parse(R"([4,"f-1","FormationViolation","CALL must have exactly 4 elements",{}])"));
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].event_type, EventType::Invalid);
  EXPECT_EQ(r.events[0].ocpp_action, "Heartbeat");
}

TEST_F(RpcDispatcher, UnreadableIdIsAnsweredWithMinusOne) {
  for (const char* text : {"garbage", R"([2,7,"Heartbeat",{}])", "[]"}) {
    const auto r = send(text);
    const json j = reply(r);
    ASSERT_TRUE(j.is_array()) << text;
    EXPECT_EQ(j[1], "-1") << text;
    EXPECT_EQ(j[2], "FormationViolation") << text;
    ASSERT_EQ(r.events.size(), 1u);
    EXPECT_EQ(r.events[0].extra["raw"], text);
    EXPECT_FALSE(r.events[0].message_id);
  }
}

TEST_F(RpcDispatcher, AnOverflowingNumberIsRefusedWithTheIdEchoed) {
  const std::string text =
      R"([2,"mv-7","MeterValues",{"connectorId":1,"meterValue":[)"
      R"({"timestamp":"2024-06-01T09:00:00Z","sampledValue":[{"value":1e400}]}]}])";
  const auto r = send(text);
  const json j = reply(r);
  ASSERT_TRUE(j.is_array());
  EXPECT_EQ(j[1], "mv-7");
  EXPECT_EQ(j[2], "FormationViolation");
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].event_type, EventType::Invalid);
  EXPECT_EQ(r.events[0].message_id, "mv-7");
  EXPECT_EQ(r.events[0].ocpp_action, "MeterValues");
  EXPECT_EQ(r.events[0].extra["raw"], text);
  // A CALLRESULT that does not parse is recorded, never answered.
  EXPECT_TRUE(send(R"([3,"csms-1",{"x":1e400}])").reply.empty());
}

TEST_F(RpcDispatcher, ATrailingNulIsRefused) {
  const auto r = send(std::string(R"([2,"hb-1","Heartbeat",{}])") + '\0');
  const json j = reply(r);
  ASSERT_TRUE(j.is_array());
  EXPECT_EQ(j[1], "hb-1");
  EXPECT_EQ(j[2], "FormationViolation");
}

TEST_F(RpcDispatcher, UnknownMessageTypeIsRefusedInThe16Spelling) {
  const auto r = send(R"([6,"t-1","Heartbeat",{}])");
  EXPECT_EQ(reply(r)[2], "NotSupported");
  EXPECT_EQ(reply(r)[1], "t-1");
}

TEST_F(RpcDispatcher, BrokenResponsesAreRecordedButNeverAnswered) {
  for (const char* text : {R"([3,"r-1"])", R"([4,"r-2","GenericError"])", R"([3,"r-3",[]])"}) {
    const auto r = send(text);
    EXPECT_TRUE(r.reply.empty()) << text;
    ASSERT_EQ(r.events.size(), 1u);
    EXPECT_EQ(r.events[0].event_type, EventType::Invalid);
    EXPECT_FALSE(r.response);
  }
}

TEST_F(RpcDispatcher, ResponsesAreHandedBackForThePendingCallTable) {
  const auto r = send(R"([3,"csms-1",{"status":"Accepted"}])");
  EXPECT_TRUE(r.reply.empty());
  EXPECT_TRUE(r.events.empty());
  ASSERT_TRUE(r.response);
  EXPECT_EQ(r.response->type, MessageType::CallResult);
  EXPECT_EQ(r.response->message_id, "csms-1");
  EXPECT_EQ(r.response->payload["status"], "Accepted");

  const auto e = send(R"([4,"csms-2","NotSupported","nope",{}])");
  ASSERT_TRUE(e.response);
  EXPECT_EQ(e.response->error_code, "NotSupported");
}

TEST_F(RpcDispatcher, StrictModeRefusesSchemaViolations) {
  const auto r = send(R"([2,"s-1","Authorize",{}])");
  EXPECT_EQ(reply(r)[2], "OccurenceConstraintViolation");
  EXPECT_EQ(r.events.at(0).event_type, EventType::Invalid);
  const auto t = send(R"([2,"s-2","Authorize",{"idTag":5}])");
  EXPECT_EQ(reply(t)[2], "TypeConstraintViolation");
}

TEST_F(RpcDispatcher, LenientModeAnswersAndRecordsViolations) {
  mode = ValidationMode::Lenient;
  const auto r = send(R"([2,"l-1","Heartbeat",{"uptime":12}])");
  const json j = reply(r);
  EXPECT_EQ(j[0], 3);
  ASSERT_EQ(r.events.size(), 1u);
  const auto& e = r.events[0];
  EXPECT_EQ(e.event_type, EventType::Heartbeat);
  EXPECT_EQ(e.flags, std::vector<std::string>{"SCHEMA_VIOLATION"});
  ASSERT_EQ(e.extra["schema_violations"].size(), 1u);
  EXPECT_EQ(e.extra["schema_violations"][0]["path"], "/");
  EXPECT_EQ(e.extra["uptime"], 12);
}

TEST_F(RpcDispatcher, LenientModeUsesTheValidationClassWhenAHandlerCannotCope) {
  mode = ValidationMode::Lenient;
  const auto r = send(R"([2,"l-2","Authorize",{"idTag":["x"]}])");
  EXPECT_EQ(reply(r)[2], "TypeConstraintViolation");
  EXPECT_EQ(r.events.at(0).event_type, EventType::Invalid);
  EXPECT_EQ(r.events.at(0).error_code, "TypeConstraintViolation");
}

TEST_F(RpcDispatcher, EventIdIsStableForAnExactResend) {
  const std::string text =
      R"([2,"42","StatusNotification",{"connectorId":1,"errorCode":"NoError","status":"Available"}])";
  const auto a = send(text);
  const auto b = send(text);
  ASSERT_EQ(a.events.size(), 1u);
  EXPECT_EQ(a.events[0].event_id, b.events[0].event_id);
  // A charger that restarted its counter reuses "42" for a different frame: no collision.
  const auto c = send(
      R"([2,"42","StatusNotification",{"connectorId":1,"errorCode":"NoError","status":"Charging"}])");
  EXPECT_NE(a.events[0].event_id, c.events[0].event_id);
  // The same frame from another charge point is a different fact.
  EXPECT_NE(a.events[0].event_id, send(text, "CP-10").events[0].event_id);
}

TEST_F(RpcDispatcher, EventIdsDifferWithinOneFrame) {
  const auto r = send(R"([2,"mv","MeterValues",{"connectorId":1,"meterValue":[
      {"timestamp":"2025-01-01T00:00:00Z","sampledValue":[{"value":"1"}]},
      {"timestamp":"2025-01-01T00:00:00Z","sampledValue":[{"value":"1"}]}]}])");
  ASSERT_EQ(r.events.size(), 2u);
  EXPECT_NE(r.events[0].event_id, r.events[1].event_id);
}

// docs/event_contract.md: the id hashes the payload as serialised JSON, i.e. nlohmann's dump()
// of the parsed payload (keys sorted, compact, its number format), whatever spacing, key order
// or escapes the charge point sent. Pinned here because the dispatcher writes that text itself.
TEST_F(RpcDispatcher, EventIdsHashThePayloadAsDumpWritesIt) {
  const std::string payload =
      R"({ "transactionId": 7, "connectorId" : 1, "meterValue": [ {"timestamp": "2025-06-15T15:00:00Z",
      "sampledValue": [{"value": "1.5", "unit": "kWh", "measurand": "Energy.Active.Import.Register"},
      {"value":"230","measurand":"Voltage","phase":"L1-N","context":"\u0053ample.Periodic"}]},
      {"timestamp":"2025-06-15T15:01:00Z","sampledValue":[{"value":"1.75e0","unit":"kWh"}]}]})";
  const auto r = send(R"([2,"ids",  "MeterValues", )" + payload + "]");
  ASSERT_EQ(r.events.size(), 2u) << r.error;
  const std::string dumped = json::parse(payload).dump();
  for (size_t i = 0; i < r.events.size(); ++i)
    EXPECT_EQ(r.events[i].event_id,
              analytics::make_event_id("CP-9", "ids", "MeterValues", dumped, i));
}

TEST_F(RpcDispatcher, InvalidEventIdIsStableForAnExactResend) {
  EXPECT_EQ(send("{{{").events.at(0).event_id, send("{{{").events.at(0).event_id);
  EXPECT_NE(send("{{{").events.at(0).event_id, send("{{").events.at(0).event_id);
}

TEST_F(RpcDispatcher, CallersContextComesBackAsItWasPassedIn) {
  mode = ValidationMode::Lenient;
  CallContext ctx = make_context(policy, state, "CP-1", mode);
  ctx.flags.emplace_back(analytics::flag::kUnknownChargePoint);  // set by the session
  const auto first = dispatch(ocpp16::protocol(), ctx,
                              R"([2,"a","MeterValues",{"connectorId":1,"transactionId":5,"x":1,
                                  "meterValue":[{"timestamp":"2025-01-01T00:00:00Z","sampledValue":[{"value":"1"}]}]}])");
  EXPECT_EQ(first.events.at(0).flags,
            (std::vector<std::string>{"UNKNOWN_CHARGE_POINT", "SCHEMA_VIOLATION",
                                      "UNKNOWN_TRANSACTION"}));
  EXPECT_TRUE(ctx.message_id.empty());
  EXPECT_TRUE(ctx.action.empty());
  EXPECT_EQ(ctx.flags, std::vector<std::string>{"UNKNOWN_CHARGE_POINT"});
  EXPECT_TRUE(ctx.violations.empty());
  // Nothing of the first frame leaks into the next one.
  const auto second = dispatch(ocpp16::protocol(), ctx, R"([2,"b","Heartbeat",{}])");
  EXPECT_EQ(second.events.at(0).flags, std::vector<std::string>{"UNKNOWN_CHARGE_POINT"});
  EXPECT_FALSE(second.events.at(0).extra.contains("schema_violations"));
}

TEST_F(RpcDispatcher, RefusedCallsKeepTheirRawTextWithIdTokensHashed) {
  const std::string tag = "SECRET-TAG-0123456789XYZ";  // 24 chars: too long for 1.6
  for (const std::string& text :
       {R"([2,"r1","Authorize",{"idTag":")" + tag + R"("}])",
        R"([2,"r2","NoSuchAction",{"idToken":{"idToken":")" + tag + R"(","type":"ISO14443"}}])",
        R"([2,"r3","StopTransaction",{"transactionId":1,"idTag":")" + tag + R"("}])"}) {
    const auto r = send(text);
    ASSERT_EQ(r.events.size(), 1u) << text;
    const auto& e = r.events[0];
    EXPECT_EQ(e.event_type, EventType::Invalid);
    EXPECT_EQ(e.extra["raw_redacted"], true);
    const std::string all = to_json_string(e);
    EXPECT_EQ(all.find(tag), std::string::npos) << all;
    const auto raw = json::parse(e.extra["raw"].get<std::string>());
    EXPECT_EQ(raw[1], json::parse(text)[1]);  // the rest of the frame is intact
  }
  // Nothing to redact: the raw text is kept byte for byte.
  const std::string plain = R"([2,"r4","Heartbeat",{"x": 1}])";
  EXPECT_EQ(send(plain).events.at(0).extra["raw"], plain);
}

TEST_F(RpcDispatcher, StoredFrameHasIdTokensHashedWhetherAnsweredOrRefused) {
  const std::string tag = "TAG-4711";
  const std::string long_tag = "SECRET-TAG-0123456789XYZ";  // refused: longer than 20 chars
  for (const std::string& text : {R"([2,"s1","Authorize",{"idTag":")" + tag + R"("}])",
                                  R"([2,"s2","Authorize",{"idTag":")" + long_tag + R"("}])"}) {
    const auto r = send(text);
    ASSERT_TRUE(r.stored_frame.has_value()) << text;
    EXPECT_EQ(r.stored_frame->find(tag), std::string::npos) << *r.stored_frame;
    EXPECT_EQ(r.stored_frame->find(long_tag), std::string::npos) << *r.stored_frame;
    const auto stored = json::parse(*r.stored_frame);
    EXPECT_EQ(stored[1], json::parse(text)[1]);
    EXPECT_EQ(stored[2], "Authorize");
    EXPECT_EQ(stored[3]["idTag"].get<std::string>().rfind("hmac:", 0), 0u);
  }
  // A frame without tokens is stored as received.
  EXPECT_FALSE(send(R"([2,"s3","Heartbeat",{}])").stored_frame.has_value());
}

TEST_F(RpcDispatcher, DeeplyNestedFrameIsRefusedWithoutCrashing) {
  mode = ValidationMode::Lenient;
  const std::string text = R"([2,"deep","DataTransfer",{"vendorId":"v","x":)" +
                           std::string(100000, '[') + std::string(100000, ']') + "}]";
  const auto r = send(text);
  EXPECT_EQ(reply(r)[1], "deep");
  EXPECT_EQ(reply(r)[2], "FormationViolation");
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].event_type, EventType::Invalid);
  EXPECT_FALSE(to_json_string(r.events[0]).empty());
}

TEST_F(RpcDispatcher, InvalidEventKeepsAtMost64KiBOfRawText) {
  const std::string text =
      R"([2,"big","DataTransfer",{"vendorId":")" + std::string(100000, 'v') + "\"}]";
  const auto r = send(text);
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].extra["raw"].get<std::string>().size(), 64u * 1024);
  EXPECT_EQ(r.events[0].extra["raw_truncated_from"], text.size());
}

TEST_F(RpcDispatcher, ConnectionAndInvalidEventsCarryTheContext) {
  CallContext ctx = make_context(policy, state, "CP-5", ValidationMode::Strict, 5);
  const auto c = connection_event(ctx, "connected", {{"remote", "127.0.0.1"}});
  EXPECT_EQ(c.event_type, EventType::Connection);
  EXPECT_EQ(c.extra["state"], "connected");
  EXPECT_EQ(c.extra["remote"], "127.0.0.1");
  EXPECT_EQ(c.charge_point_id, "CP-5");
  const auto i = invalid_event(ctx, "\x01\x02", "binary frame");
  EXPECT_EQ(i.event_type, EventType::Invalid);
  EXPECT_EQ(i.extra["reason"], "binary frame");
  EXPECT_EQ(i.event_ts_ms, 5);
}

std::string meter_values_frame(size_t entries) {
  std::string text = R"([2,"mv","MeterValues",{"connectorId":1,"meterValue":[)";
  for (size_t i = 0; i < entries; ++i) {
    if (i) text += ',';
    text += R"({"timestamp":"2025-06-15T15:00:00Z","sampledValue":[{"value":")" +
            std::to_string(i) + R"("}]})";
  }
  return text + "]}]";
}

TEST_F(RpcDispatcher, EventsPerFrameAreCappedWithOccurrenceConstraintViolation) {
  policy.max_events_per_frame = 5;
  const auto ok = send(meter_values_frame(5));
  EXPECT_EQ(reply(ok)[0], 3);
  EXPECT_EQ(ok.events.size(), 5u);

  const auto r = send(meter_values_frame(6));
  const json answer = reply(r);
  ASSERT_EQ(answer.size(), 5u);
  EXPECT_EQ(answer[0], 4);
  EXPECT_EQ(answer[1], "mv");
  EXPECT_EQ(answer[2], "OccurenceConstraintViolation");  // the 1.6 spelling
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].event_type, EventType::Invalid);
  EXPECT_EQ(r.events[0].error_code, "OccurenceConstraintViolation");
}

TEST_F(RpcDispatcher, DefaultCapAllowsAThousandEntries) {
  EXPECT_EQ(send(meter_values_frame(1000)).events.size(), 1000u);
  EXPECT_EQ(send(meter_values_frame(1001)).events.size(), 1u);
}

TEST_F(RpcDispatcher, HugeActionNameIsNotEchoedInFull) {
  const std::string action(1 << 20, 'A');
  const auto r = send(R"([2,"x",")" + action + R"(",{}])");
  EXPECT_LT(r.reply.size(), 1024u);
  EXPECT_EQ(reply(r)[1], "x");
  EXPECT_EQ(reply(r)[2], "NotImplemented");
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_LT(to_json_string(r.events[0]).size(), 70u * 1024);  // 64 KiB of raw text at most
  EXPECT_LT(r.error.size(), 1024u);
}

TEST_F(RpcDispatcher, HugeMessageIdIsNotEchoedInFull) {
  const auto r = send(R"([2,")" + std::string(1 << 20, 'i') + R"(","Heartbeat",{}])");
  EXPECT_LT(r.reply.size(), 1024u);
  EXPECT_EQ(reply(r)[2], "FormationViolation");
}

TEST_F(RpcDispatcher, CallOverMaxCallBytesIsRefusedUnlessItsActionCarriesBulkData) {
  policy.max_call_bytes = 1000;
  const std::string data(2000, 'd');
  // Authorize never needs 2 KB: GenericError, and the Invalid event records why.
  EXPECT_EQ(reply(send(R"([2,"a-1","Authorize",{"idTag":"T"}])"))[0], 3);  // small: served
  const auto big = send(R"([2,"a-2","StatusNotification",{"connectorId":1,"errorCode":"NoError",)"
                        R"("status":"Available","info":")" +
                        data.substr(0, 50) + R"(","vendorErrorCode":")" + data + R"("}])");
  EXPECT_EQ(reply(big)[0], 4);
  EXPECT_EQ(reply(big)[1], "a-2");
  EXPECT_EQ(reply(big)[2], "GenericError");
  ASSERT_EQ(big.events.size(), 1u);
  EXPECT_EQ(big.events[0].event_type, EventType::Invalid);
  EXPECT_EQ(big.events[0].error_code, "GenericError");
  // DataTransfer carries bulk data by design: the same size passes.
  const auto bulk = send(R"([2,"a-3","DataTransfer",{"vendorId":"V","data":")" + data + "\"}]");
  EXPECT_EQ(reply(bulk)[0], 3);
  policy.large_call_actions.clear();
  EXPECT_EQ(reply(send(R"([2,"a-4","DataTransfer",{"vendorId":"V","data":")" + data + "\"}]"))[2],
            "GenericError");
}

TEST_F(RpcDispatcher, RefusedFrameIsStoredCutTo64KiB) {
  const std::string text = R"([2,"big","NoSuchAction",{"x":")" + std::string(300000, 'v') + "\"}]";
  const auto r = send(text);
  ASSERT_TRUE(r.stored_frame);
  EXPECT_EQ(r.stored_frame->size(), 64u * 1024);
  EXPECT_EQ(r.stored_frame->substr(0, 20), text.substr(0, 20));
  const auto unparsed = send(text.substr(0, text.size() - 1));  // not JSON any more
  ASSERT_TRUE(unparsed.stored_frame);
  EXPECT_EQ(unparsed.stored_frame->size(), 64u * 1024);
  EXPECT_FALSE(send(R"([2,"s","NoSuchAction",{}])").stored_frame);  // small: stored as sent
}

}  // namespace
}  // namespace ocppgw::rpc
