// tests/unit/util/json_text_test.cpp: the direct JSON writer gives nlohmann's compact dump byte
// for byte (event ids hash this text, so one differing byte would change every id).
#include "util/json_text.hpp"

#include <cstring>
#include <limits>
#include <random>

#include <gtest/gtest.h>

namespace ocppgw::util {
namespace {

using nlohmann::json;

std::string reference(const json& v) {
  return v.dump(-1, ' ', false, json::error_handler_t::replace);
}

TEST(JsonText, EveryKindOfValueAsDumpWritesIt) {
  const json values[] = {
      nullptr,
      true,
      false,
      0,
      1,
      -1,
      std::numeric_limits<int64_t>::min(),
      std::numeric_limits<uint64_t>::max(),
      0.0,
      -0.0,
      1.5,
      7200.0,
      1e21,
      1e-7,
      0.1,
      1234.5,
      std::numeric_limits<double>::max(),
      std::numeric_limits<double>::denorm_min(),
      std::numeric_limits<double>::quiet_NaN(),
      std::numeric_limits<double>::infinity(),
      "",
      "plain",
      "quote\" back\\ slash/",
      "tab\t nl\n cr\r bs\b ff\f",
      std::string("nul\0x", 5),
      "\x01\x1f\x7f",
      "caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80",
      "bad \xff \xc3 end",
      json::array(),
      json::object(),
      json::array({1, "a", nullptr, json::array({json::object()})}),
      json::parse(R"({"z":1,"a":{"y":[1.5,"x"],"b":null},"m":"\u00e9","":true})"),
  };
  for (const auto& v : values) EXPECT_EQ(to_json_text(v), reference(v)) << reference(v);
}

TEST(JsonText, RandomDoublesAndMeterLikeReadings) {
  // nlohmann's Grisu2 digits are not always std::to_chars's shortest ones; the writer must give
  // nlohmann's.
  std::mt19937_64 random(20261205);
  for (int i = 0; i < 100000; ++i) {
    uint64_t bits = random();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    const double reading = static_cast<double>(random() % 100000000) / 1000.0;
    for (const double v : {d, reading}) {
      const json j = v;
      ASSERT_EQ(to_json_text(j), reference(j)) << bits;
    }
  }
}

TEST(JsonText, AppendsToWhatIsThere) {
  std::string out = "x=";
  append_json(out, json::parse(R"([1,{"k":"v"}])"));
  EXPECT_EQ(out, R"(x=[1,{"k":"v"}])");
}

}  // namespace
}  // namespace ocppgw::util
