// tests/unit/util/text_test.cpp: trimming and splitting option, header and event field text.
#include "util/text.hpp"

#include <gtest/gtest.h>

namespace ocppgw::util {
namespace {

TEST(Text, TrimRemovesEveryKindOfWhitespaceAroundAndNothingInside) {
  EXPECT_EQ(trim("  a b \t"), "a b");
  EXPECT_EQ(trim("\n\r\v\fCP-1\r\n"), "CP-1");
  EXPECT_EQ(trim(" \t\n "), "");
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(trim("x"), "x");
  EXPECT_EQ(trim("\xc2\xa0x"), "\xc2\xa0x");  // UTF-8 no-break space is not ASCII whitespace
}

TEST(Text, SplitListDropsEmptyItemsAndTheWhitespaceAroundEach) {
  EXPECT_EQ(split_list("a, ,b"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(split_list(" ocpp2.0.1 ,\tocpp1.6 "),
            (std::vector<std::string>{"ocpp2.0.1", "ocpp1.6"}));
  EXPECT_EQ(split_list("k=v; x", ';'), (std::vector<std::string>{"k=v", "x"}));
  EXPECT_TRUE(split_list("").empty());
  EXPECT_TRUE(split_list(",,").empty());
  EXPECT_EQ(split_list("a,\n b\r\n, \n"), (std::vector<std::string>{"a", "b"}));  // a TOML array
}

}  // namespace
}  // namespace ocppgw::util
