// tests/unit/util/hex_test.cpp: hex text of bytes and back; random secrets.
#include "util/hex.hpp"

#include <gtest/gtest.h>

namespace ocppgw::util {
namespace {

TEST(Hex, EncodesLowerCaseAndRoundTrips) {
  const std::string bytes("\x00\x01\xab\xff", 4);
  EXPECT_EQ(to_hex(bytes), "0001abff");
  EXPECT_EQ(from_hex("0001abff"), bytes);
  EXPECT_EQ(from_hex("0001ABFF"), bytes);
  EXPECT_EQ(to_hex(std::string_view()), "");
}

TEST(Hex, RefusesOddLengthAndNonHexDigits) {
  EXPECT_FALSE(from_hex("abc"));
  EXPECT_FALSE(from_hex("zz"));
  EXPECT_FALSE(from_hex("0g"));
}

TEST(Hex, RandomHexHasTheAskedLengthAndDiffers) {
  const auto a = random_hex(32), b = random_hex(32);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->size(), 64u);
  EXPECT_NE(*a, *b);
  EXPECT_TRUE(from_hex(*a));
}

}  // namespace
}  // namespace ocppgw::util
