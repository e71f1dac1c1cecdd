// tests/unit/analytics/gold_rules_test.cpp: the pure Gold derivations.
#include "analytics/gold_rules.hpp"

#include <gtest/gtest.h>

namespace ocppgw::analytics {
namespace {

SessionEvent ev(const char* id, EventType t, int64_t ts, std::optional<double> meter) {
  SessionEvent e;
  e.event_id = id;
  e.type = t;
  e.event_ts = ts;
  e.ingest_ts = ts;
  e.meter_wh = meter;
  return e;
}

TEST(GoldRules, SessionIsTheSameForAnyInputOrder) {
  GoldRules rules;
  std::vector<SessionEvent> a = {ev("1", EventType::StartTransaction, 0, 100),
                                 ev("2", EventType::MeterValues, 60000, 400),
                                 ev("3", EventType::StopTransaction, 120000, 900)};
  std::vector<SessionEvent> b(a.rbegin(), a.rend());
  SessionRow x = compute_session("CP", "1", a, false, 120000, rules);
  SessionRow y = compute_session("CP", "1", b, false, 120000, rules);
  EXPECT_EQ(x.row_hash, y.row_hash);
  EXPECT_EQ(x.session_status, "COMPLETED");
  EXPECT_DOUBLE_EQ(*x.energy_kwh, 0.8);
  EXPECT_TRUE(x.energy_is_final);
  EXPECT_EQ(x.duration_seconds, 120);
}

TEST(GoldRules, StopBelowStartIsAnAnomalyNotNegativeEnergy) {
  SessionRow r = compute_session(
      "CP", "1",
      {ev("1", EventType::StartTransaction, 0, 5000), ev("2", EventType::StopTransaction, 1, 10)},
      false, 1, GoldRules{});
  EXPECT_FALSE(r.energy_is_final);
  EXPECT_DOUBLE_EQ(*r.energy_kwh, 0.0);
  EXPECT_EQ(r.quality_flags, std::vector<std::string>{"METER_ANOMALY"});
}

TEST(GoldRules, TimeoutDependsOnlyOnTheDataClock) {
  GoldRules rules;
  std::vector<SessionEvent> open = {ev("1", EventType::StartTransaction, 0, 0)};
  EXPECT_EQ(compute_session("CP", "1", open, false, rules.session_timeout_ms, rules).session_status,
            "IN_PROGRESS");
  SessionRow t = compute_session("CP", "1", open, false, rules.session_timeout_ms + 1, rules);
  EXPECT_EQ(t.session_status, "TIMED_OUT");
  EXPECT_FALSE(t.is_open);
  EXPECT_EQ(t.quality_flags, std::vector<std::string>{"STOP_MISSING"});
}

TEST(GoldRules, StatusIntervalsOrderBySeqNoOnTies) {
  auto iv = compute_status_intervals({{"b", 10, 2, "CHARGING", std::nullopt},
                                      {"a", 10, 1, "PREPARING", std::nullopt},
                                      {"c", 5, std::nullopt, "AVAILABLE", std::nullopt}});
  ASSERT_EQ(iv.size(), 3u);
  EXPECT_EQ(iv[0].status, "AVAILABLE");
  EXPECT_EQ(iv[0].valid_to, 10);
  EXPECT_EQ(iv[2].status, "CHARGING");
  EXPECT_FALSE(iv[2].valid_to);
}

TEST(GoldRules, HealthUsesTheBootIntervalForOfflineDetection) {
  HealthInput in;
  in.last_seen_ts = 1000000;
  in.boot_extra = {{"interval", 10}, {"chargingStation", {{"vendorName", "V"}, {"model", "M"}}}};
  GoldRules rules;
  HealthRow h = compute_health(in, 1000000 + 30000, rules);
  EXPECT_EQ(h.liveness, "ONLINE");
  EXPECT_EQ(h.vendor, "V");
  EXPECT_EQ(compute_health(in, 1000000 + 30001, rules).liveness, "OFFLINE");
}

TEST(GoldRules, DayOfUsesTheFixedOffset) {
  EXPECT_EQ(day_of(1772405999000, 0), "2026-03-01");  // 22:59:59Z
  EXPECT_EQ(day_of(1772405999000, 120), "2026-03-02");
  EXPECT_EQ(day_of(1772359200000, -660), "2026-02-28");
}

}  // namespace
}  // namespace ocppgw::analytics
