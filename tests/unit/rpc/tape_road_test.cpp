// tests/unit/rpc/tape_road_test.cpp: the hot actions read from a tape against the same frames
// read as a tree (Policy::tape_reads off), over the real 1.6 and 2.0.1 protocol tables. The two
// roads must give the same reply, the same refusal, the same stored text and byte-identical events,
// frame after frame of one charge point's history, and the tape road must be the one the ordinary
// frames take.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "analytics/event.hpp"
#include "ocpp16/protocol.hpp"
#include "ocpp201/protocol.hpp"
#include "rpc/dispatcher.hpp"
#include "tests/support/fake_csms_state.hpp"
#include "tests/unit/rpc/context.hpp"

namespace ocppgw::rpc {
namespace {

// One history of frames through a state of its own, on the road `tape` chooses.
struct Road {
  explicit Road(bool tape, ValidationMode validation = ValidationMode::Strict,
                OcppVersion ocpp = OcppVersion::v16)
      : policy{.id_token_secret = "k", .max_events_per_frame = 5, .tape_reads = tape},
        mode(validation),
        version(ocpp) {}

  InboundResult send(const std::string& text) {
    CallContext ctx =
        make_context(policy, state, "CP-9", mode, 1'700'000'000'000 + ++clock, version);
    return dispatch(version == OcppVersion::v16 ? ocpp16::protocol() : ocpp201::protocol(), ctx,
                    text);
  }

  Policy policy;
  ValidationMode mode;
  OcppVersion version;
  testing::FakeCsmsState state;
  int64_t clock = 0;
};

::testing::AssertionResult same_result(const InboundResult& tape, const InboundResult& tree) {
  auto differ = [](const char* what) { return ::testing::AssertionFailure() << what << " differ"; };
  if (tape.reply != tree.reply)
    return differ("replies") << ": " << tape.reply << " vs " << tree.reply;
  if (tape.error != tree.error)
    return differ("errors") << ": " << tape.error << " vs " << tree.error;
  if (tape.error_code != tree.error_code) return differ("error codes");
  if (tape.stored_frame != tree.stored_frame) return differ("stored frames");
  if (tape.type != tree.type || tape.spec != tree.spec) return differ("types or actions");
  if (tape.events.size() != tree.events.size()) return differ("event counts");
  for (size_t i = 0; i < tape.events.size(); ++i) {
    const std::string a = analytics::to_json_string(tape.events[i]);
    const std::string b = analytics::to_json_string(tree.events[i]);
    if (a != b) return differ("events") << ":\n" << a << "\n" << b;
  }
  return ::testing::AssertionSuccess();
}

std::string meter_values(const std::string& body, const std::string& id = "m") {
  return R"([2,")" + id + R"(","MeterValues",{)" + body + "}]";
}

// Frames the tape road answers itself.
const std::vector<std::string> kTapeFrames = {
    meter_values(
        R"("connectorId":1,"transactionId":1,"meterValue":[{"timestamp":"2025-06-15T15:00:00Z","sampledValue":[{"value":"1234.5","measurand":"Energy.Active.Import.Register","unit":"Wh","context":"Sample.Periodic"},{"value":"7200","measurand":"Power.Active.Import","unit":"W"},{"value":"31.9","measurand":"Current.Import","unit":"A","phase":"L1"},{"value":"230.1","measurand":"Voltage","unit":"V","phase":"L1-N"}]}])"),
    // member order as sent, blanks, kWh, a value with blanks, one that is not a number
    meter_values(
        R"( "meterValue" : [ {"sampledValue":[{"unit":"kWh","value":" 1.005 ","location":"Outlet"},{"value":"n/a","measurand":"SoC","unit":"Percent"}],"timestamp":"2025-06-15T15:00:00+00:00"} ] , "transactionId":1, "connectorId":1 )"),
    // two entries of one instant in two spellings, a third of another
    meter_values(
        R"("connectorId":2,"transactionId":1,"meterValue":[{"timestamp":"2025-06-15T15:00:00Z","sampledValue":[{"value":"1"}]},{"timestamp":"2025-06-15T15:00:00.000+00:00","sampledValue":[{"value":"2","measurand":"Power.Active.Import"}]},{"timestamp":"2025-06-15T15:01:00Z","sampledValue":[{"value":"3","format":"SignedData"}]}])"),
    // an id never issued, then the -1 of an offline transaction, then no transaction at all
    meter_values(
        R"("connectorId":1,"transactionId":999,"meterValue":[{"timestamp":"2025-06-15T15:00:00Z","sampledValue":[{"value":"5"}]}])"),
    meter_values(
        R"("connectorId":1,"transactionId":-1,"meterValue":[{"timestamp":"2025-06-15T15:00:00Z","sampledValue":[{"value":"6"}]}])"),
    meter_values(
        R"("connectorId":0,"meterValue":[{"timestamp":"2025-06-15T15:00:00Z","sampledValue":[{"value":"7","measurand":"Voltage","unit":"V"}]}])"),
    // escapes in the id and in a value
    meter_values(
        R"("connectorId":1,"transactionId":1,"meterValue":[{"timestamp":"2025-06-15T15:00:00Z","sampledValue":[{"value":"8\t"}]}])",
        R"(a\"b\/c)"),
    R"([2,"s1","StatusNotification",{"connectorId":1,"errorCode":"NoError","status":"Charging","timestamp":"2025-06-15T15:00:00Z"}])",
    R"([2,"h","Heartbeat",{}])",
    R"([2,"s2","StatusNotification",{"status":"SuspendedEV","errorCode":"OtherError","connectorId":2,"info":"hot","vendorId":"V","vendorErrorCode":"E7"}])",
};

// Frames the tape road leaves to the tree: refused ones, duplicate keys, UTF-8, other actions.
const std::vector<std::string> kTreeFrames = {
    meter_values(
        R"("connectorId":1,"meterValue":[{"timestamp":"2025-06-15T15:00:00Z","sampledValue":[{"value":1}]}])"),
    meter_values(
        R"("connectorId":1,"meterValue":[{"timestamp":"yesterday","sampledValue":[{"value":"1"}]}])"),
    meter_values(
        R"("connectorId":1,"connectorId":2,"meterValue":[{"timestamp":"2025-06-15T15:00:00Z","sampledValue":[{"value":"1"}]}])"),
    meter_values(
        R"("connectorId":1,"meterValue":[{"timestamp":"2025-06-15T15:00:00Z","sampledValue":[{"value":"1","unit":"W","measurand":"Power.Active.Import","context":"Sample.Clock","x":"caf)"
        "\xc3\xa9"
        R"("}]}])"),
    meter_values(
        R"("connectorId":1,"meterValue":[)" +
        std::string(R"({"timestamp":"2025-06-15T15:00:00Z","sampledValue":[{"value":"1"}]},)") +
        R"({"timestamp":"2025-06-15T15:00:00Z","sampledValue":[{"value":"1"}]},{"timestamp":"2025-06-15T15:00:00Z","sampledValue":[{"value":"1"}]},{"timestamp":"2025-06-15T15:00:00Z","sampledValue":[{"value":"1"}]},{"timestamp":"2025-06-15T15:00:00Z","sampledValue":[{"value":"1"}]},{"timestamp":"2025-06-15T15:00:00Z","sampledValue":[{"value":"1"}]}])"),
    R"([2,"s3","StatusNotification",{"connectorId":1,"errorCode":"NoError","status":"Dancing"}])",
    R"([2,"s4","StatusNotification",{"connectorId":1,"errorCode":"NoError","status":"Available"},5])",
    R"([2,"h2","Heartbeat",{"x":1}])",  // a member the schema does not allow: the tree's verdict
    R"([2,"a","Authorize",{"idTag":"T1"}])",
    R"([3,"x",{}])",
    R"([2,"","MeterValues",{}])",
};

TEST(TapeRoad, GivesWhatTheTreeGivesFrameAfterFrame) {
  Road tape(true), tree(false);
  // A transaction to belong to (StartTransaction holds a token: the tree road for both).
  const std::string start =
      R"([2,"t","StartTransaction",{"connectorId":1,"idTag":"T1","meterStart":10,"timestamp":"2025-06-15T14:00:00Z"}])";
  ASSERT_TRUE(same_result(tape.send(start), tree.send(start)));
  for (const auto& text : kTapeFrames) {
    const InboundResult a = tape.send(text), b = tree.send(text);
    EXPECT_TRUE(a.from_tape) << text;
    EXPECT_FALSE(b.from_tape) << text;
    EXPECT_TRUE(same_result(a, b)) << text;
    EXPECT_FALSE(a.events.empty());
  }
  for (const auto& text : kTreeFrames) {
    const InboundResult a = tape.send(text), b = tree.send(text);
    EXPECT_FALSE(a.from_tape) << text;
    EXPECT_TRUE(same_result(a, b)) << text;
  }
  // Both states saw the same history (the -1 and the unknown id asked for links).
  EXPECT_EQ(tape.state.links.size(), tree.state.links.size());
  EXPECT_FALSE(tape.state.links.empty());
}

std::string transaction_event(const std::string& id, const std::string& body) {
  return R"([2,")" + id + R"(","TransactionEvent",{)" + body + "}]";
}

// 2.0.1: TransactionEvent (meter values grouped by instant, multipliers, a stop),
// StatusNotification, MeterValues and Heartbeat on the tape; a Started event with its id token, and
// an unknown member, on the tree.
TEST(TapeRoad, GivesWhatTheTreeGivesFor201) {
  Road tape(true, ValidationMode::Strict, OcppVersion::v201);
  Road tree(false, ValidationMode::Strict, OcppVersion::v201);
  const std::vector<std::pair<std::string, bool>> frames = {
      {transaction_event(
           "t1",
           R"("eventType":"Started","timestamp":"2025-06-15T14:00:00Z","triggerReason":"Authorized","seqNo":0,"transactionInfo":{"transactionId":"tx-1","chargingState":"Charging"},"idToken":{"idToken":"T1","type":"ISO14443"},"evse":{"id":1,"connectorId":1})"),
       false},
      {transaction_event(
           "t2",
           R"("eventType":"Updated","timestamp":"2025-06-15T15:00:00Z","triggerReason":"MeterValuePeriodic","seqNo":1,"transactionInfo":{"transactionId":"tx-1"},"evse":{"id":1,"connectorId":1},"meterValue":[{"timestamp":"2025-06-15T15:00:00Z","sampledValue":[{"value":1234.5,"measurand":"Energy.Active.Import.Register","unitOfMeasure":{"unit":"kWh","multiplier":-3},"context":"Sample.Periodic"},{"value":7200,"measurand":"Power.Active.Import"}]},{"timestamp":"2025-06-15T14:59:00+00:00","sampledValue":[{"value":31.9,"measurand":"Current.Import","phase":"L1"}]}])"),
       true},
      {transaction_event(
           "t3",
           R"("seqNo":2,"eventType":"Updated","timestamp":"2025-06-15T15:01:00Z","triggerReason":"ChargingStateChanged","offline":true,"transactionInfo":{"transactionId":"tx-1","chargingState":"SuspendedEV"})"),
       true},
      {transaction_event(
           "t4",
           R"("eventType":"Ended","timestamp":"2025-06-15T16:00:00Z","triggerReason":"EVDeparted","seqNo":3,"transactionInfo":{"transactionId":"tx-1","stoppedReason":"EVDisconnected"},"meterValue":[{"timestamp":"2025-06-15T16:00:00Z","sampledValue":[{"value":2.5,"unitOfMeasure":{"unit":"kWh"}}]}])"),
       true},
      {R"([2,"s","StatusNotification",{"timestamp":"2025-06-15T15:00:00Z","connectorStatus":"Occupied","evseId":1,"connectorId":1}])",
       true},
      {R"([2,"m","MeterValues",{"evseId":1,"meterValue":[{"timestamp":"2025-06-15T15:00:00Z","sampledValue":[{"value":1.5,"measurand":"SoC","unitOfMeasure":{"unit":"Percent"}}]}]}])",
       true},
      {R"([2,"x","StatusNotification",{"timestamp":"2025-06-15T15:00:00Z","connectorStatus":"Occupied","evseId":1,"connectorId":1,"extra":1}])",
       false},
      {R"([2,"h","Heartbeat",{}])", true},
      {R"([2,"h2","Heartbeat",{"customData":{"vendorId":"V","x":[1,"a\tb"]}}])", true},
      {R"([2,"h3","Heartbeat",{"extra":1}])", false},
  };
  for (const auto& [text, on_tape] : frames) {
    const InboundResult a = tape.send(text), b = tree.send(text);
    EXPECT_EQ(a.from_tape, on_tape) << text;
    EXPECT_TRUE(same_result(a, b)) << text;
  }
}

TEST(TapeRoad, IsNotTakenWhereTheTreeMustDecide) {
  const std::string& text = kTapeFrames[0];
  Road lenient(true, ValidationMode::Lenient), lenient_tree(false, ValidationMode::Lenient);
  const InboundResult a = lenient.send(text);
  EXPECT_FALSE(a.from_tape);  // lenient mode keeps violations beside the events: the tree's
  EXPECT_TRUE(same_result(a, lenient_tree.send(text)));

  Road refused(true), refused_tree(false);
  refused.state.registration_accepted = false;
  refused_tree.state.registration_accepted = false;
  const InboundResult b = refused.send(text);
  EXPECT_FALSE(b.from_tape);
  EXPECT_TRUE(same_result(b, refused_tree.send(text)));
  EXPECT_NE(b.reply.find("SecurityError"), std::string::npos);

  Road small(true), small_tree(false);
  small.policy.max_call_bytes = 64;
  small.policy.large_call_actions.clear();
  small_tree.policy = small.policy;
  small_tree.policy.tape_reads = false;
  const InboundResult c = small.send(text);
  EXPECT_FALSE(c.from_tape);
  EXPECT_TRUE(same_result(c, small_tree.send(text)));
  EXPECT_NE(c.reply.find("GenericError"), std::string::npos);
}

}  // namespace
}  // namespace ocppgw::rpc
