// tests/unit/rpc/frame_test.cpp: OCPP-J framing: every malformed shape gets its CALLERROR class
// and, whenever it is readable, the message id to echo; serialisation round-trips.
#include "rpc/frame.hpp"

#include <gtest/gtest.h>

namespace ocppgw::rpc {
namespace {

using nlohmann::json;

struct Bad {
  std::string text;
  RpcError code;
  std::optional<std::string> id;  // the id that must be recovered
};

TEST(RpcFrame, ParsesCall) {
  const auto r = parse_frame(R"([2,"abc-1","Heartbeat",{}])");
  ASSERT_TRUE(r.frame) << r.error.description;
  EXPECT_EQ(r.frame->type, MessageType::Call);
  EXPECT_EQ(r.frame->message_id, "abc-1");
  EXPECT_EQ(r.frame->action, "Heartbeat");
  EXPECT_EQ(r.frame->payload, json::object());
}

TEST(RpcFrame, ParsesCallResultAndCallError) {
  const auto result = parse_frame(R"([3,"7",{"status":"Accepted"}])");
  ASSERT_TRUE(result.frame);
  EXPECT_EQ(result.frame->type, MessageType::CallResult);
  EXPECT_EQ(result.frame->payload["status"], "Accepted");

  const auto error = parse_frame(R"([4,"8","NotImplemented","no such action",{"a":1}])");
  ASSERT_TRUE(error.frame);
  EXPECT_EQ(error.frame->type, MessageType::CallError);
  EXPECT_EQ(error.frame->message_id, "8");
  EXPECT_EQ(error.frame->error_code, "NotImplemented");
  EXPECT_EQ(error.frame->error_description, "no such action");
  EXPECT_EQ(error.frame->error_details, (json{{"a", 1}}));
}

TEST(RpcFrame, AcceptsWhitespaceAndA36CharacterId) {
  const std::string id(36, 'x');
  const auto r = parse_frame(" [ 2 , \"" + id + "\" , \"Heartbeat\" , { } ]\n");
  ASSERT_TRUE(r.frame) << r.error.description;
  EXPECT_EQ(r.frame->message_id, id);
}

TEST(RpcFrame, RejectsEveryMalformedShapeWithItsErrorAndRecoversTheId) {
  const std::vector<Bad> cases = {
      {"", RpcError::FormationViolation, std::nullopt},
      {"not json", RpcError::FormationViolation, std::nullopt},
      {R"([2,"1","Heartbeat",{})", RpcError::FormationViolation, "1"},  // truncated
      {R"({"2":"1"})", RpcError::FormationViolation, std::nullopt},
      {R"("text")", RpcError::FormationViolation, std::nullopt},
      {"[]", RpcError::FormationViolation, std::nullopt},
      {"[2]", RpcError::FormationViolation, std::nullopt},
      {R"([2,17,"Heartbeat",{}])", RpcError::FormationViolation, std::nullopt},
      {R"([2,null,"Heartbeat",{}])", RpcError::FormationViolation, std::nullopt},
      {R"([2,"","Heartbeat",{}])", RpcError::FormationViolation, ""},
      {R"([2,")" + std::string(37, 'i') + R"(","Heartbeat",{}])", RpcError::FormationViolation,
       std::string(37, 'i')},
      {R"(["2","id1","Heartbeat",{}])", RpcError::FormationViolation, "id1"},
      {R"([2.0,"id1","Heartbeat",{}])", RpcError::FormationViolation, "id1"},
      {R"([2,"id2","Heartbeat"])", RpcError::FormationViolation, "id2"},
      {R"([2,"id3","Heartbeat",{},{}])", RpcError::FormationViolation, "id3"},
      {R"([2,"id4",5,{}])", RpcError::FormationViolation, "id4"},
      {R"([2,"id5","",{}])", RpcError::FormationViolation, "id5"},
      {R"([2,"id6","Heartbeat",[]])", RpcError::FormationViolation, "id6"},
      {R"([2,"id7","Heartbeat","{}"])", RpcError::FormationViolation, "id7"},
      {R"([3,"id8"])", RpcError::FormationViolation, "id8"},
      {R"([3,"id9",{},{}])", RpcError::FormationViolation, "id9"},
      {R"([3,"id10",null])", RpcError::FormationViolation, "id10"},
      {R"([4,"id11","GenericError","x"])", RpcError::FormationViolation, "id11"},
      {R"([4,"id12",7,"x",{}])", RpcError::FormationViolation, "id12"},
      {R"([4,"id13","GenericError",null,{}])", RpcError::FormationViolation, "id13"},
      {R"([4,"id14","GenericError","x",[]])", RpcError::FormationViolation, "id14"},
      {R"([5,"id15","Heartbeat",{}])", RpcError::MessageTypeNotSupported, "id15"},
      {R"([0,"id16"])", RpcError::MessageTypeNotSupported, "id16"},
      {R"([-2,"id17","Heartbeat",{}])", RpcError::MessageTypeNotSupported, "id17"},
      // 2^32 + 2 must not wrap around to a CALL.
      {R"([4294967298,"id18","Heartbeat",{}])", RpcError::MessageTypeNotSupported, "id18"},
      {R"([18446744073709551615,"id19","Heartbeat",{}])", RpcError::MessageTypeNotSupported,
       "id19"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    const auto r = parse_frame(c.text);
    EXPECT_FALSE(r.frame);
    EXPECT_EQ(r.error.code, c.code) << r.error.description;
    EXPECT_FALSE(r.error.description.empty());
    EXPECT_EQ(r.message_id, c.id);
  }
}

TEST(RpcFrame, KeepsTheIdOfAFrameThatIsNotValidJsonAsAWhole) {
  // nlohmann/json refuses a number beyond double range; the peer still needs its id back.
  auto r = parse_frame(R"([2, "big-1" ,"MeterValues",{"meterValue":[{"v":1e400}]}])");
  EXPECT_FALSE(r.frame);
  EXPECT_EQ(r.error.code, RpcError::FormationViolation);
  EXPECT_NE(r.error.description.find("out of range"), std::string::npos) << r.error.description;
  EXPECT_EQ(r.message_id, "big-1");
  EXPECT_EQ(r.action, "MeterValues");
  EXPECT_EQ(r.type, MessageType::Call);
  // The type is read as well, so a broken CALLRESULT is still never answered.
  r = parse_frame(R"([3,"res-1",{"x":-1e400}])");
  EXPECT_EQ(r.message_id, "res-1");
  EXPECT_EQ(r.type, MessageType::CallResult);
  // Ids are decoded as JSON strings.
  r = parse_frame(R"([2,"a\"b\u0041","Heartbeat",{"x":1e999}])");
  EXPECT_EQ(r.message_id, "a\"bA");
  // Nothing is guessed when the start is not `[<integer>, "<id>"`.
  for (const char* text : {R"({"x":1e400})", R"([2, 7, "Heartbeat", {"x":1e400}])",
                           R"([x, "id", {"x":1e400}])", R"([2, "unterminated)"}) {
    r = parse_frame(text);
    EXPECT_FALSE(r.message_id) << text;
    EXPECT_FALSE(r.type) << text;
  }
}

TEST(RpcFrame, RefusesANulByteLikeAnyTrailingGarbage) {
  const std::string frame = R"([2,"n-1","Heartbeat",{}])";
  EXPECT_TRUE(parse_frame(frame).frame);
  for (const std::string& text :
       {frame + '\0', frame + '\0' + "garbage", frame + " x", std::string("\0", 1) + frame}) {
    const auto r = parse_frame(text);
    EXPECT_FALSE(r.frame) << text.size();
    EXPECT_EQ(r.error.code, RpcError::FormationViolation);
  }
  const auto r = parse_frame(frame + '\0');
  EXPECT_NE(r.error.description.find("NUL"), std::string::npos) << r.error.description;
  EXPECT_EQ(r.message_id, "n-1");
}

TEST(RpcFrame, RecoversTheActionOfABadCall) {
  const auto r = parse_frame(R"([2,"id","Authorize",[]])");
  EXPECT_FALSE(r.frame);
  EXPECT_EQ(r.action, "Authorize");
}

TEST(RpcFrame, RejectsInvalidUtf8) {
  const auto r = parse_frame("[2,\"id\",\"Heartbeat\",{\"x\":\"\xff\xfe\"}]");
  EXPECT_FALSE(r.frame);
  EXPECT_EQ(r.error.code, RpcError::FormationViolation);
}

TEST(RpcFrame, RejectsExcessiveNestingWithoutRecursingIntoIt) {
  // Deeply nested input must be refused cheaply: serialising or validating it recursively
  // would overflow the stack of a session thread.
  const size_t depth = 200000;
  const std::string text = "[2,\"deep\",\"DataTransfer\",{\"x\":" + std::string(depth, '[') +
                           std::string(depth, ']') + "}]";
  const auto r = parse_frame(text);
  EXPECT_FALSE(r.frame);
  EXPECT_EQ(r.error.code, RpcError::FormationViolation);
  EXPECT_EQ(r.message_id, "deep");

  const std::string ok =
      "[2,\"ok\",\"DataTransfer\",{\"x\":" + std::string(20, '[') + std::string(20, ']') + "}]";
  EXPECT_TRUE(parse_frame(ok).frame);
  // Brackets inside strings are text, not nesting.
  const std::string quoted =
      "[2,\"q\",\"DataTransfer\",{\"data\":\"" + std::string(1000, '[') + "\"}]";
  EXPECT_TRUE(parse_frame(quoted).frame);
}

TEST(RpcFrame, SerialisationRoundTrips) {
  const json payload = {{"connectorId", 1}, {"info", "quote \" and unicode \u00e9"}};
  const auto call = parse_frame(serialize_call("m-1", "StatusNotification", payload));
  ASSERT_TRUE(call.frame);
  EXPECT_EQ(call.frame->type, MessageType::Call);
  EXPECT_EQ(call.frame->message_id, "m-1");
  EXPECT_EQ(call.frame->action, "StatusNotification");
  EXPECT_EQ(call.frame->payload, payload);

  const auto result = parse_frame(serialize_call_result("m-2", payload));
  ASSERT_TRUE(result.frame);
  EXPECT_EQ(result.frame->type, MessageType::CallResult);
  EXPECT_EQ(result.frame->payload, payload);

  const auto error =
      parse_frame(serialize_call_error("m-3", RpcError::OccurrenceConstraintViolation,
                                       OcppVersion::v16, "missing idTag", {{"path", "/idTag"}}));
  ASSERT_TRUE(error.frame);
  EXPECT_EQ(error.frame->type, MessageType::CallError);
  EXPECT_EQ(error.frame->error_code, "OccurenceConstraintViolation");
  EXPECT_EQ(error.frame->error_description, "missing idTag");
  EXPECT_EQ(error.frame->error_details, (json{{"path", "/idTag"}}));
}

TEST(RpcFrame, CallResultTextIsCompactAndEscapesTheId) {
  EXPECT_EQ(serialize_call_result("1", json::object()), R"([3,"1",{}])");
  EXPECT_EQ(serialize_call_result("a\"b\\c\n", {{"status", "Accepted"}, {"n", 2}}),
            R"([3,"a\"b\\c\n",{"n":2,"status":"Accepted"}])");
}

TEST(RpcFrame, CallErrorDefaultsToEmptyDetailsObject) {
  EXPECT_EQ(serialize_call_error("1", RpcError::NotImplemented, OcppVersion::v16, "x"),
            R"([4,"1","NotImplemented","x",{}])");
}

TEST(RpcFrame, CallErrorDescriptionWithInvalidUtf8IsStillSerialised) {
  const std::string text =
      serialize_call_error("1", RpcError::GenericError, OcppVersion::v16, "bad \xff byte");
  const auto r = parse_frame(text);
  ASSERT_TRUE(r.frame) << text;
  EXPECT_EQ(r.frame->error_code, "GenericError");
}

// parse_frame takes the fast road (util/json_read.hpp) and falls back for the rest with the
// reference's verdict.
TEST(RpcFrame, PlainJsonAndTheRestGiveTheSameFramesEitherWay) {
  const auto call = parse_frame(R"([2,"z","DataTransfer",{"vendorId":"x","data":"\u00e9"}])");
  ASSERT_TRUE(call.frame);  // the \u escape went to json::parse
  EXPECT_EQ(call.frame->payload["data"], "\xc3\xa9");
  const auto big = parse_frame(R"([2,"b","DataTransfer",{"vendorId":"x","n":1e400}])");
  ASSERT_FALSE(big.frame);
  EXPECT_EQ(big.error.description, "frame is not valid JSON: a number is out of range");
  EXPECT_EQ(big.message_id, "b");
}

}  // namespace
}  // namespace ocppgw::rpc
