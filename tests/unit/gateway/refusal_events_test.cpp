// tests/unit/gateway/refusal_events_test.cpp: security events of refused handshakes are bounded
// per charge point and in all, and what was held back is reported.
#include "gateway/refusal_events.hpp"

#include <gtest/gtest.h>

namespace ocppgw::gateway {
namespace {

TEST(RefusalEventLimiter, OnePerIdPerIntervalAndTheHeldBackAreCounted) {
  RefusalEventLimiter limiter;
  int64_t suppressed = -1;
  EXPECT_TRUE(limiter.allow("CP1", 0, &suppressed));
  EXPECT_EQ(suppressed, 0);
  EXPECT_FALSE(limiter.allow("CP1", 5'000, &suppressed));
  EXPECT_FALSE(limiter.allow("CP1", 9'999, &suppressed));
  EXPECT_TRUE(limiter.allow("CP2", 10'000, &suppressed)) << "another id is not held back";
  EXPECT_EQ(suppressed, 2);
  EXPECT_TRUE(limiter.allow("CP1", 10'000, &suppressed));
  EXPECT_EQ(suppressed, 0);
}

TEST(RefusalEventLimiter, AFloodOfIdsIsBoundedByTheTotalRate) {
  RefusalEventLimiter limiter;
  int64_t suppressed = 0, reported = 0;
  int written = 0;
  // 10,000 distinct ids within one second: the burst, then the rate.
  for (int i = 0; i < 10'000; ++i)
    if (limiter.allow("CP" + std::to_string(i), i / 10, &suppressed)) {
      ++written;
      reported += suppressed;
    }
  EXPECT_LE(written, RefusalEventLimiter::kBurst + RefusalEventLimiter::kPerSecond + 1);
  EXPECT_GE(written, RefusalEventLimiter::kBurst);
  // A minute later the bucket is full again; every held-back event was reported once.
  EXPECT_TRUE(limiter.allow("late", 61'000, &suppressed));
  EXPECT_EQ(reported + suppressed, 10'000 - written);
}

}  // namespace
}  // namespace ocppgw::gateway
