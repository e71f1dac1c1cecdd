// tests/unit/util/logging_test.cpp: what a log line looks like when its values come from a
// hostile peer: control characters escaped in both formats, long values cut.
#include "util/logging.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace ocppgw::log {
namespace {

bool has_raw_control(std::string_view s) {
  for (char ch : s) {
    const auto u = static_cast<unsigned char>(ch);
    if (u < 0x20 || u == 0x7f) return true;
  }
  return false;
}

TEST(UtilLogging, TextFormatEscapesControlCharacters) {
  const std::string line =
      format_line(false, "call_refused", "CP\r1",
                  {{"action", "Boot\r\nevent=forged level=info"}, {"reason", "a\x1b[2Jb"}});
  EXPECT_FALSE(has_raw_control(line)) << line;
  EXPECT_EQ(line, R"(event=call_refused cp="CP\r1" action="Boot\r\nevent=forged level=info" )"
                  R"(reason="a\x1b[2Jb")");
}

TEST(UtilLogging, PlainValuesStayUnquoted) {
  EXPECT_EQ(format_line(false, "connected", "CP-1", {{"remote", "127.0.0.1"}, {"empty", ""}}),
            R"(event=connected cp=CP-1 remote=127.0.0.1 empty="")");
}

TEST(UtilLogging, JsonFormatEscapesControlCharacters) {
  const std::string line = format_line(true, "closed", "CP-1", {{"reason", "x\r\n\x1b"}});
  EXPECT_FALSE(has_raw_control(line)) << line;
  const auto j = nlohmann::json::parse("{" + line + "}");
  EXPECT_EQ(j["reason"], "x\r\n\x1b");
}

TEST(UtilLogging, LongValuesAreCut) {
  const std::string big(1 << 20, 'a');
  for (bool json : {false, true}) {
    const std::string line = format_line(json, "call_refused", "CP-1", {{"action", big}});
    EXPECT_LT(line.size(), kMaxLogValueBytes + 100);
    EXPECT_NE(line.find("(1048576 bytes)"), std::string::npos);
  }
}

}  // namespace
}  // namespace ocppgw::log
