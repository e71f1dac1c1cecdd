// tests/unit/util/time_test.cpp: RFC 3339 parsing and formatting of event times.
#include "util/time.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <ctime>
#include <random>

namespace ocppgw::util {
namespace {

TEST(AnalyticsTime, ParsesZonesOffsetsAndFractions) {
  const int64_t base = 1'735'689'600'000;  // 2025-01-01T00:00:00Z
  EXPECT_EQ(util::parse_rfc3339_ms("2025-01-01T00:00:00Z"), base);
  EXPECT_EQ(util::parse_rfc3339_ms("2025-01-01t00:00:00z"), base);
  EXPECT_EQ(util::parse_rfc3339_ms("2025-01-01T02:00:00+02:00"), base);
  EXPECT_EQ(util::parse_rfc3339_ms("2024-12-31T19:30:00-04:30"), base);
  EXPECT_EQ(util::parse_rfc3339_ms("2025-01-01T00:00:00.5Z"), base + 500);
  EXPECT_EQ(util::parse_rfc3339_ms("2025-01-01T00:00:00.123Z"), base + 123);
  EXPECT_EQ(util::parse_rfc3339_ms("2025-01-01T00:00:00.123999Z"), base + 123);  // truncated
  EXPECT_EQ(util::parse_rfc3339_ms("2024-02-29T00:00:00Z"), 1'709'164'800'000);
  EXPECT_EQ(util::parse_rfc3339_ms("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(util::parse_rfc3339_ms("1969-12-31T23:59:59.999Z"), -1);
}

TEST(AnalyticsTime, RejectsInvalidDatesAndMissingZones) {
  for (const char* bad :
       {"", "2025-02-30T00:00:00Z", "2023-02-29T00:00:00Z", "2025-13-01T00:00:00Z",
        "2025-00-10T00:00:00Z", "2025-04-31T00:00:00Z", "2025-01-01T24:00:00Z",
        "2025-01-01T00:60:00Z", "2025-01-01T00:00:00", "2025-01-01", "2025-01-01T00:00Z",
        "2025-01-01T00:00:00.Z", "2025-01-01T00:00:00+25:00", "2025-01-01T00:00:00Zjunk",
        "25-01-01T00:00:00Z", "2025/01/01T00:00:00Z", "yesterday"}) {
    EXPECT_FALSE(util::parse_rfc3339_ms(bad)) << bad;
  }
}

TEST(AnalyticsTime, FormatsUtcWithMilliseconds) {
  EXPECT_EQ(util::format_rfc3339_ms(1'735'689'600'123), "2025-01-01T00:00:00.123Z");
  EXPECT_EQ(util::format_rfc3339_ms(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(util::format_rfc3339_ms(-1), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(util::format_rfc3339_ms(951'782'400'000), "2000-02-29T00:00:00.000Z");
}

TEST(AnalyticsTime, FormatMatchesGmtimeOverTheWholeFourDigitRange) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int64_t> any_ms(-62'167'219'200'000, 253'402'300'799'999);
  for (int i = 0; i < 200000; ++i) {
    const int64_t ms = any_ms(rng);
    const int64_t secs = ms >= 0 ? ms / 1000 : (ms - 999) / 1000;
    const std::time_t t = static_cast<std::time_t>(secs);
    std::tm tm{};
    ASSERT_NE(gmtime_r(&t, &tm), nullptr);
    char want[64];
    std::snprintf(want, sizeof want, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                  static_cast<int>(ms - secs * 1000));
    ASSERT_EQ(util::format_rfc3339_ms(ms), want) << ms;
  }
}

TEST(AnalyticsTime, FormatAndParseRoundTrip) {
  for (int64_t ms : {int64_t{0}, int64_t{-86'400'001}, int64_t{1'700'000'000'001},
                     int64_t{4'102'444'800'000}, int64_t{253'402'300'799'999}}) {
    EXPECT_EQ(util::parse_rfc3339_ms(format_rfc3339_ms(ms)), ms) << ms;
  }
}

TEST(AnalyticsTime, NowIsPlausible) { EXPECT_GT(util::now_ms(), 1'700'000'000'000); }

}  // namespace
}  // namespace ocppgw::util
