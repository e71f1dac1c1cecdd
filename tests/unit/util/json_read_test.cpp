// tests/unit/util/json_read_test.cpp: the fast road (try_parse_json) against the reference,
// json::parse. Wherever the fast road answers, its tree must be json::parse's to the number type
// and the bit; wherever json::parse refuses, the fast road must not answer. The frames the gateway
// sees every second must take the fast road (else the benchmark figures would be the reference's).
#include "util/json_read.hpp"

#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/json_texts.hpp"
#include "tests/support/mutate_json.hpp"
#include "tests/support/same_json.hpp"

namespace ocppgw::util {
namespace {

using nlohmann::json;
using testing::same_tree;

// The frame parser's bound (rpc::kMaxNestingDepth).
constexpr size_t kMaxNestingDepth = 32;

// The contract for one text: fast answer => the reference accepts and builds the same tree.
::testing::AssertionResult agrees(const std::string& text) {
  const auto fast = try_parse_json(text, kMaxNestingDepth);
  const json reference = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!fast) return ::testing::AssertionSuccess();
  if (reference.is_discarded())
    return ::testing::AssertionFailure() << "fast road accepted what json::parse refuses: " << text;
  return same_tree(*fast, reference);
}

const std::vector<std::string> kHotFrames = {
    R"([2,"h","Heartbeat",{}])",
    R"([2,"m","MeterValues",{"connectorId":1,"transactionId":1,"meterValue":[{"timestamp":"2025-06-15T15:00:00Z","sampledValue":[{"value":"1234.5","measurand":"Energy.Active.Import.Register","unit":"Wh","context":"Sample.Periodic"},{"value":"7200","measurand":"Power.Active.Import","unit":"W"}]}]}])",
    R"([2,"u","TransactionEvent",{"eventType":"Updated","timestamp":"2025-06-15T15:00:00Z","triggerReason":"MeterValuePeriodic","seqNo":3,"transactionInfo":{"transactionId":"tx-1"},"evse":{"id":1,"connectorId":1},"meterValue":[{"timestamp":"2025-06-15T15:00:00Z","sampledValue":[{"value":1234.5,"measurand":"Energy.Active.Import.Register","unitOfMeasure":{"unit":"Wh","multiplier":-3}},{"value":-0.0}]}]}])",
    R"( [ 3 , "7" , { "status" : "Accepted" , "currentTime" : "2025-06-15T15:00:00.000Z" } ] )",
    R"([4,"9","NotImplemented","no such action",{}])",
};

TEST(JsonRead, HotFramesTakeTheFastRoadAndMatchTheReference) {
  for (const auto& text : kHotFrames) {
    const auto fast = try_parse_json(text, kMaxNestingDepth);
    ASSERT_TRUE(fast) << text;
    EXPECT_TRUE(same_tree(*fast, json::parse(text))) << text;
  }
}

TEST(JsonRead, NumberTypesAreTheReferences) {
  // json::parse: unsigned for a plain integer, signed with a minus, double otherwise; beyond
  // 64 bits a double. The fast road must give the same type or stand aside.
  for (const char* text : testing::kJsonNumberTexts) {
    EXPECT_TRUE(agrees(text)) << text;
    EXPECT_TRUE(agrees(std::string("[") + text + "]")) << text;
    EXPECT_TRUE(agrees(std::string("{\"v\":") + text + "}")) << text;
  }
  EXPECT_TRUE(try_parse_json("[1.5,-2,3]", 32));
  EXPECT_TRUE(try_parse_json("[-0.0]", 32));
  EXPECT_TRUE(try_parse_json("\"2025-06-15\"", 32));  // a date's "-0" is not a number
}

TEST(JsonRead, IntegerMinusZeroIsSignedAsInTheReference) {
  for (const char* text : {"-0", "[-0]", "{\"a\":-0}", "[1, -0 ]"}) {
    EXPECT_TRUE(try_parse_json(text, 32)) << text;
    EXPECT_TRUE(agrees(text)) << text;
  }
  EXPECT_FALSE(try_parse_json("-0", 32)->is_number_unsigned());
}

TEST(JsonRead, WhatItDoesNotReadItself) {
  // Handed to json::parse: UTF-8, \u escapes, control characters, out-of-range numbers.
  for (const char* text : {"\"caf\xc3\xa9\"", R"("\u0041")", "\"a\x01\"", "1e400",
                           "18446744073709551616", "-9223372036854775809"})
    EXPECT_FALSE(try_parse_json(text, 32)) << text;
}

TEST(JsonRead, StringsAndEscapes) {
  for (const char* text :
       {R"("plain")", R"("tab\tquote\"slash\/back\\")", R"("\u00e9\u4e2d")", R"("\ud83d\ude00")",
        R"("\u0000")", R"("\ud800")", R"("\udc00")", R"("\ud800x")", R"("\ud800\u0041")",
        "\"caf\xc3\xa9\"", "\"\xc3\"", "\"\xff\"", "\"\xed\xa0\x80\"", "\"a\x01\"", "\"a\nb\"",
        R"("\x")", R"("\u12")", "\"unterminated"}) {
    EXPECT_TRUE(agrees(text)) << text;
  }
}

TEST(JsonRead, StructureLiteralsAndGarbage) {
  for (const char* text : testing::kJsonStructureTexts) {
    EXPECT_TRUE(agrees(text)) << text;
  }
  // Duplicate keys: the last one wins in both.
  const auto dup = try_parse_json(R"({"a":1,"a":2})", 32);
  ASSERT_TRUE(dup);
  EXPECT_EQ((*dup)["a"], 2);
}

TEST(JsonRead, DepthBoundAndLargeDocuments) {
  const auto nested = [](int levels) {
    return std::string(static_cast<size_t>(levels), '[') +
           std::string(static_cast<size_t>(levels), ']');
  };
  EXPECT_TRUE(try_parse_json(nested(32), 32));
  // A NUL never gets through, and the depth bound is what lets parse_frame scan brackets only for
  // what is handed over.
  EXPECT_FALSE(try_parse_json(std::string("[\"a\0b\"]", 7), 32));
  EXPECT_FALSE(try_parse_json(std::string("[1]\0", 4), 32));
  EXPECT_FALSE(try_parse_json(nested(33), 32));
  const std::string big = "[\"" + std::string(1 << 20, 'x') + "\"]";
  EXPECT_TRUE(agrees(big));
}

// Byte flips, cuts and splices of real frames: every variant must agree with the reference.
TEST(JsonRead, MutatedFramesAgreeWithTheReference) {
  std::mt19937 random(20261205);
  size_t answered = 0;
  for (int round = 0; round < 20000; ++round) {
    const std::string text = testing::mutate_json(kHotFrames[random() % kHotFrames.size()], random);
    ASSERT_TRUE(agrees(text)) << text;
    answered += try_parse_json(text, kMaxNestingDepth) ? 1 : 0;
  }
  EXPECT_GT(answered, 1000u);  // the mutations leave plenty of valid JSON to compare
}

}  // namespace
}  // namespace ocppgw::util
