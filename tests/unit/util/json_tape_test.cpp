// tests/unit/util/json_tape_test.cpp: a tape against the tree road (try_parse_json, itself held
// to json::parse by json_read_test.cpp). Wherever a tape reads, its values must be the tree's to
// the number type and the bit, its text must be what util::to_json_text writes for the tree, and
// its accessors must answer as nlohmann's do; it must read everything the tree road reads except
// objects with a duplicate key. The frames the gateway sees every second must be read.
#include "util/json_tape.hpp"

#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/json_texts.hpp"
#include "tests/support/mutate_json.hpp"
#include "tests/support/same_json.hpp"
#include "util/json_read.hpp"
#include "util/json_text.hpp"

namespace ocppgw::util {
namespace {

using nlohmann::json;
using testing::same_tree;

constexpr size_t kMaxNestingDepth = 32;  // the frame parser's bound (rpc::kMaxNestingDepth)

// Whether any object in `text` (valid JSON) repeats a key: json::parse keeps the last one, so
// the tree cannot tell; its parser's callback sees every key.
bool has_duplicate_key(const std::string& text) {
  std::vector<std::set<std::string>> open;
  bool duplicate = false;
  [[maybe_unused]] const json parsed = json::parse(text, [&](int, json::parse_event_t event,
                                                             json& value) {
    if (event == json::parse_event_t::object_start) open.emplace_back();
    if (event == json::parse_event_t::object_end) open.pop_back();
    if (event == json::parse_event_t::key && !open.back().insert(value.get<std::string>()).second)
      duplicate = true;
    return true;
  });
  return duplicate;
}

// The contract for one text.
::testing::AssertionResult agrees(const std::string& text) {
  JsonTape tape;
  const bool read = tape.read(text, kMaxNestingDepth);
  const auto tree = try_parse_json(text, kMaxNestingDepth);
  if (!read) {
    if (tree && !has_duplicate_key(text))
      return ::testing::AssertionFailure()
             << "the tree road reads what the tape does not: " << text;
    return ::testing::AssertionSuccess();
  }
  if (!tree)
    return ::testing::AssertionFailure() << "the tape reads what the tree does not: " << text;
  if (auto same = same_tree(tape.root().to_tree(), *tree); !same) return same << " in " << text;
  std::string written;
  tape.root().append_text(written);
  if (written != to_json_text(*tree))
    return ::testing::AssertionFailure()
           << "text " << written << " != " << to_json_text(*tree) << " for " << text;
  return ::testing::AssertionSuccess();
}

const std::vector<std::string> kHotFrames = {
    R"([2,"h","Heartbeat",{}])",
    R"([2,"s","StatusNotification",{"connectorId":1,"errorCode":"NoError","status":"Charging","timestamp":"2025-06-15T15:00:00Z"}])",
    R"([2,"m","MeterValues",{"connectorId":1,"transactionId":1,"meterValue":[{"timestamp":"2025-06-15T15:00:00Z","sampledValue":[{"value":"1234.5","measurand":"Energy.Active.Import.Register","unit":"Wh","context":"Sample.Periodic"},{"value":"7200","measurand":"Power.Active.Import","unit":"W"}]}]}])",
    R"([2,"u","TransactionEvent",{"eventType":"Updated","timestamp":"2025-06-15T15:00:00Z","triggerReason":"MeterValuePeriodic","seqNo":3,"transactionInfo":{"transactionId":"tx-1"},"evse":{"id":1,"connectorId":1},"meterValue":[{"timestamp":"2025-06-15T15:00:00Z","sampledValue":[{"value":1234.5,"measurand":"Energy.Active.Import.Register","unitOfMeasure":{"unit":"Wh","multiplier":-3}},{"value":-0.0}]}]}])",
    R"( [ 3 , "7" , { "status" : "Accepted" , "currentTime" : "2025-06-15T15:00:00.000Z" } ] )",
    R"([4,"9","NotImplemented","no such action",{}])",
};

TEST(JsonTape, HotFramesAreReadAndMatchTheTree) {
  for (const auto& text : kHotFrames) {
    JsonTape tape;
    ASSERT_TRUE(tape.read(text, kMaxNestingDepth)) << text;
    EXPECT_TRUE(agrees(text)) << text;
  }
}

TEST(JsonTape, TextIsTheTreesDumpMembersSorted) {
  JsonTape tape;
  ASSERT_TRUE(tape.read(R"( {"b":1, "a":{"d":2.50,"c":[3,{"f":1e2,"e":-0}]},"k":"a\nb\"c\/"} )",
                        kMaxNestingDepth));
  std::string out;
  tape.root().append_text(out);
  EXPECT_EQ(out, R"({"a":{"c":[3,{"e":0,"f":100.0}],"d":2.5},"b":1,"k":"a\nb\"c/"})");
}

TEST(JsonTape, AccessorsAnswerAsTheTreesDo) {
  const std::string text = kHotFrames[2];
  JsonTape tape;
  ASSERT_TRUE(tape.read(text, kMaxNestingDepth));
  const json tree = json::parse(text);
  const JsonTape::Value root = tape.root();
  ASSERT_TRUE(root.is_array());
  EXPECT_EQ(root.size(), tree.size());
  std::vector<JsonTape::Value> parts;
  root.all_elements([&](const JsonTape::Value& v) {
    parts.push_back(v);
    return true;
  });
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_TRUE(parts[0].is_number_unsigned());
  EXPECT_EQ(parts[0].unsigned_value(), 2u);
  EXPECT_EQ(parts[2].string(), "MeterValues");
  const JsonTape::Value payload = parts[3];
  EXPECT_TRUE(payload.contains("connectorId"));
  EXPECT_FALSE(payload.contains("connector"));
  EXPECT_FALSE(payload.member("nope").exists());
  EXPECT_TRUE(payload.member("nope").is_null());
  EXPECT_EQ(payload.member("nope").size(), 0u);
  EXPECT_EQ(payload.member("transactionId").number(), 1.0);
  const JsonTape::Value entries = payload.member("meterValue");
  EXPECT_EQ(entries.size(), tree[3]["meterValue"].size());
  EXPECT_EQ(payload.member("connectorId").size(), json(1).size());  // scalars: 1, as nlohmann
  EXPECT_FALSE(entries.is_object());
  // Members in the order sent; the tree's are sorted.
  std::vector<std::string_view> keys;
  payload.all_members([&](std::string_view key, const JsonTape::Value&) {
    keys.push_back(key);
    return true;
  });
  EXPECT_EQ(keys, (std::vector<std::string_view>{"connectorId", "transactionId", "meterValue"}));
}

TEST(JsonTape, NumberTypesAreTheTrees) {
  for (const char* text : testing::kJsonNumberTexts) {
    EXPECT_TRUE(agrees(text)) << text;
    EXPECT_TRUE(agrees(std::string("[") + text + "]")) << text;
    EXPECT_TRUE(agrees(std::string("{\"v\":") + text + "}")) << text;
  }
}

TEST(JsonTape, StringsStructureAndGarbage) {
  for (const char* text : testing::kJsonStructureTexts) EXPECT_TRUE(agrees(text)) << text;
  for (const char* text :
       {R"("plain")", R"("tab\tquote\"slash\/back\\")", R"("\u00e9")", "\"caf\xc3\xa9\"",
        "\"a\x01\"", R"("\x")", "\"unterminated", R"({"a\n":1,"a":2})"})
    EXPECT_TRUE(agrees(text)) << text;
}

TEST(JsonTape, RefusesDuplicateKeysWhichTheTreeMerges) {
  JsonTape tape;
  EXPECT_FALSE(tape.read(R"({"a":1,"a":2})", kMaxNestingDepth));
  EXPECT_FALSE(tape.read(R"([{"x":{"a":1,"b":2,"a":3}}])", kMaxNestingDepth));
  std::string many = "{";
  for (int i = 0; i < 40; ++i) many += "\"k" + std::to_string(i) + "\":" + std::to_string(i) + ",";
  EXPECT_TRUE(tape.read(many + "\"k40\":0}", kMaxNestingDepth));   // beyond the pairwise check
  EXPECT_FALSE(tape.read(many + "\"k17\":0}", kMaxNestingDepth));  // ... and sorted there
  EXPECT_TRUE(tape.read(R"({"a":{"a":1},"b":{"a":2}})", kMaxNestingDepth));  // per object
}

TEST(JsonTape, DepthBoundNulAndReuse) {
  const auto nested = [](int levels) {
    return std::string(static_cast<size_t>(levels), '[') +
           std::string(static_cast<size_t>(levels), ']');
  };
  JsonTape tape;
  EXPECT_TRUE(tape.read(nested(32), 32));
  EXPECT_FALSE(tape.read(nested(33), 32));
  EXPECT_FALSE(tape.read(std::string("[\"a\0b\"]", 7), 32));
  EXPECT_FALSE(tape.read(std::string("[1]\0", 4), 32));
  // A failed read leaves no document behind; a later one reads afresh.
  EXPECT_FALSE(tape.root().exists());
  ASSERT_TRUE(tape.read(R"(["a\tb",{"k":"v\"w"}])", 32));
  std::string out;
  tape.root().append_text(out);
  EXPECT_EQ(out, R"(["a\tb",{"k":"v\"w"}])");
}

// Decoded strings live in a buffer that grows (and moves) as more of them are read: each must
// still read as itself.
TEST(JsonTape, ManyEscapedStringsReadBackWhole) {
  std::string text = "[";
  for (int i = 0; i < 2000; ++i)
    text += std::string(i ? "," : "") + R"("v\t)" + std::to_string(i) + "\"";
  text += "]";
  EXPECT_TRUE(agrees(text));
  JsonTape tape;
  ASSERT_TRUE(tape.read(text, kMaxNestingDepth));
  size_t i = 0;
  tape.root().all_elements([&](const JsonTape::Value& v) {
    EXPECT_EQ(v.string(), "v\t" + std::to_string(i++));
    return true;
  });
  EXPECT_EQ(i, 2000u);
}

// Byte flips, cuts and splices of real frames: every variant must agree with the tree road.
TEST(JsonTape, MutatedFramesAgreeWithTheTree) {
  std::mt19937 random(20261206);
  size_t read = 0;
  JsonTape reused;  // one tape for all, as the dispatcher keeps one per thread
  for (int round = 0; round < 20000; ++round) {
    const std::string text = testing::mutate_json(kHotFrames[random() % kHotFrames.size()], random);
    ASSERT_TRUE(agrees(text)) << text;
    if (reused.read(text, kMaxNestingDepth)) {
      ++read;
      std::string out;
      reused.root().append_text(out);
      ASSERT_EQ(out, to_json_text(*try_parse_json(text, kMaxNestingDepth))) << text;
    }
  }
  EXPECT_GT(read, 1000u);
}

}  // namespace
}  // namespace ocppgw::util
