// tests/unit/analytics/silver_rules_test.cpp: the pure Silver rules.
#include "analytics/silver_rules.hpp"

#include <gtest/gtest.h>

#include "tests/unit/analytics/test_support.hpp"

namespace ocppgw::analytics {
namespace {

TEST(SilverRules, UpperSnakeNormalisesOcppEnums) {
  EXPECT_EQ(upper_snake("SuspendedEV "), "SUSPENDED_EV");
  EXPECT_EQ(upper_snake(" charging"), "CHARGING");
  EXPECT_EQ(upper_snake("EVDisconnected"), "EV_DISCONNECTED");
  EXPECT_EQ(upper_snake("SuspendedEVSE"), "SUSPENDED_EVSE");
  EXPECT_EQ(upper_snake("SUSPENDED_EV"), "SUSPENDED_EV");
  EXPECT_EQ(upper_snake("Power Loss"), "POWER_LOSS");
}

TEST(SilverRules, BusinessKeysFollowTheNaturalIdentityPerType) {
  Event m = testing::tx_event("a", "CP|1", EventType::MeterValues, "5", 1000, 10);
  Event m2 = m;
  m2.event_id = "b";
  m2.meter_wh = 99;
  EXPECT_EQ(business_key(m), business_key(m2));  // same fact; meter compared separately
  Event other_cp = testing::tx_event("a", "CP", EventType::MeterValues, "1|5", 1000, 10);
  EXPECT_NE(business_key(m), business_key(other_cp));  // escaping keeps them apart
  Event start = testing::tx_event("s", "CP-1", EventType::StartTransaction, "5", 1000, 10);
  Event start_later = start;
  start_later.event_ts_ms += 5000;
  EXPECT_EQ(business_key(start), business_key(start_later));  // one start per transaction
  Event notify = testing::make_event("n1", "CP-1", EventType::Notification, 1000);
  Event notify2 = notify;
  notify2.event_id = "n2";
  EXPECT_NE(business_key(notify), business_key(notify2));  // unmodelled types: no business dedup
}

TEST(SilverRules, ClockSkewFlagOnlyForDeviceTimeAhead) {
  SilverRules rules;
  Event late = testing::make_event("a", "CP-1", EventType::Heartbeat, 1772359200000,
                                   1772359200000 + 3600000);
  EXPECT_TRUE(normalize_event(late, rules).ok());
  EXPECT_TRUE(late.flags.empty());
  Event ahead =
      testing::make_event("b", "CP-1", EventType::Heartbeat, 1772359200000 + 600000, 1772359200000);
  EXPECT_TRUE(normalize_event(ahead, rules).ok());
  EXPECT_EQ(ahead.flags, std::vector<std::string>{"CLOCK_SKEW"});
}

TEST(SilverRules, ParseRawListsEveryViolationAndNamesTheFirst) {
  SilverRules rules;
  Event e = testing::tx_event("a", "CP-1", EventType::StopTransaction, "", 1000, -1);
  RawParse p = parse_raw_event(to_json_string(e), std::nullopt, rules);
  EXPECT_FALSE(p.event);
  EXPECT_EQ(p.verdict.reason, "INVALID_TIMESTAMP");  // 1970 device time
  EXPECT_EQ(p.verdict.violations,
            (std::vector<std::string>{"INVALID_TIMESTAMP", "SCHEMA_MISMATCH", "NEGATIVE_METER"}));
  EXPECT_EQ(p.event_id, "a");
}

TEST(SilverRules, UnknownFieldsAreCountedOnlyWhereTheyAreUnexpected) {
  Event s = testing::make_event("a", "CP-1", EventType::StatusNotification, 1000);
  s.extra = {{"raw_timestamp", "x"}};
  EXPECT_FALSE(has_unknown_fields(s));
  s.extra["vendorFancy"] = 1;
  EXPECT_TRUE(has_unknown_fields(s));
  Event d = testing::make_event("b", "CP-1", EventType::DataTransfer, 1000);
  d.extra = {{"vendorId", "x"}, {"data", "y"}};
  EXPECT_FALSE(has_unknown_fields(d));
}

}  // namespace
}  // namespace ocppgw::analytics
