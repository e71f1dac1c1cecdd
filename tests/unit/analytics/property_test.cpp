// tests/unit/analytics/property_test.cpp: Gold is a pure function of the event multiset. Fleets
// with every fault the generator knows are fed in different orders, batchings, input paths
// (typed and JSON) and repetitions; the canonical dumps of the Gold tables must be identical,
// and final session energy must equal the generator's ground truth.
#include <gtest/gtest.h>

#include <map>

#include "analytics/pipeline.hpp"
#include "tests/unit/analytics/fleet_generator.hpp"
#include "tests/unit/analytics/test_support.hpp"

namespace ocppgw::analytics {
namespace {

using testing::dump_gold;
using testing::dump_query;

PipelineOptions property_options() {
  PipelineOptions o;
  o.gold.session_timeout_ms = 2 * 3600 * 1000;  // fleets span ~a day: some sessions time out
  return o;
}

void feed(Pipeline& p, const std::vector<Event>& events, uint64_t seed, bool as_json) {
  std::mt19937_64 rng(seed);
  size_t i = 0;
  while (i < events.size()) {
    size_t n = std::min(events.size() - i,
                        static_cast<size_t>(std::uniform_int_distribution<int>(1, 700)(rng)));
    BatchReport r;
    if (as_json) {
      std::vector<RawInput> raw;
      for (size_t k = i; k < i + n; ++k)
        raw.push_back({to_json_string(events[k]), events[k].charge_point_id});
      r = p.ingest_raw(raw, Source::Kafka);
    } else {
      r = p.ingest(std::span(events.data() + i, n));
    }
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    ASSERT_TRUE(r.conservation_ok) << r.to_json().dump();
    i += n;
  }
}

std::string run(const std::vector<Event>& events, uint64_t batch_seed, bool as_json,
                int times = 1) {
  testing::TempDir dir;
  auto p = testing::open_pipeline(dir.file("a.db"), property_options());
  for (int k = 0; k < times; ++k) feed(*p, events, batch_seed + static_cast<uint64_t>(k), as_json);
  ReconcileReport rec = p->reconcile();
  EXPECT_TRUE(rec.gold_matches) << rec.to_json().dump();
  EXPECT_TRUE(rec.conservation_ok) << rec.to_json().dump();
  EXPECT_EQ(rec.counted.raw, static_cast<int64_t>(events.size()) * times);
  return dump_gold(p->db());
}

class AnalyticsProperty : public ::testing::TestWithParam<uint64_t> {};

TEST_P(AnalyticsProperty, GoldIsIndependentOfOrderBatchingAndRepetition) {
  testing::FleetSpec spec;
  spec.seed = GetParam();
  testing::Fleet fleet = testing::generate_fleet(spec);
  ASSERT_GT(fleet.technical_dups + fleet.business_dups, 0);
  ASSERT_GT(fleet.conflicting, 0);

  std::vector<Event> by_ingest = fleet.events;
  std::stable_sort(by_ingest.begin(), by_ingest.end(),
                   [](const Event& a, const Event& b) { return a.ingest_ts_ms < b.ingest_ts_ms; });
  std::vector<Event> shuffled = fleet.events;
  std::mt19937_64 rng(spec.seed * 7919);
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  std::vector<Event> reversed(fleet.events.rbegin(), fleet.events.rend());

  const std::string golden = run(by_ingest, 1, false);
  ASSERT_NE(golden.find("COMPLETED"), std::string::npos);
  EXPECT_EQ(run(shuffled, 2, false), golden) << "shuffled order";
  EXPECT_EQ(run(reversed, 3, true), golden) << "reversed order via JSON";
  EXPECT_EQ(run(shuffled, 4, true, 2), golden) << "replayed twice";
}

INSTANTIATE_TEST_SUITE_P(Seeds, AnalyticsProperty, ::testing::Values(1, 2, 3, 42));

TEST(AnalyticsProperty, FinalEnergyEqualsGroundTruthAndFlagsMatchTheFaults) {
  testing::FleetSpec spec;
  spec.seed = 7;
  spec.charge_points = 60;
  testing::Fleet fleet = testing::generate_fleet(spec);
  std::vector<Event> events = fleet.events;
  std::mt19937_64 rng(99);
  std::shuffle(events.begin(), events.end(), rng);
  testing::TempDir dir;
  auto p = testing::open_pipeline(dir.file("a.db"), property_options());
  feed(*p, events, 5, false);
  int finals = 0;
  std::map<std::string, int> statuses;
  for (const auto& truth : fleet.sessions) {
    SCOPED_TRACE(truth.charge_point_id + "/" + truth.transaction_id);
    storage::Statement st = p->db().prepare(
        "SELECT energy_kwh, energy_is_final, session_status, quality_flags FROM charging_sessions "
        "WHERE charge_point_id = ?1 AND transaction_id = ?2");
    st.bind(1, truth.charge_point_id).bind(2, truth.transaction_id);
    ASSERT_TRUE(st.step());
    const bool is_final = st.int64(1) != 0;
    const std::string flags = st.text(3);
    ++statuses[st.text(2)];
    EXPECT_EQ(is_final, truth.expect_final);
    if (is_final) {
      ++finals;
      EXPECT_NEAR(st.real(0), truth.energy_kwh, 1e-6);
      EXPECT_EQ(st.text(2), "COMPLETED");
    }
    EXPECT_EQ(flags.find("START_MISSING") != std::string::npos, !truth.has_start);
    EXPECT_EQ(flags.find("METER_ANOMALY") != std::string::npos, truth.meter_reset);
    EXPECT_EQ(flags.find("CONFLICT") != std::string::npos, truth.conflict);
    EXPECT_EQ(flags.find("CLOCK_SKEW") != std::string::npos, truth.charge_point_id == "CP-0");
    if (!st.is_null(0)) {
      EXPECT_GE(st.real(0), 0.0);
    }
  }
  EXPECT_GT(finals, 100);
  EXPECT_GT(statuses["START_MISSING"], 0);
  EXPECT_GT(statuses["TIMED_OUT"] + statuses["IN_PROGRESS"], 0);
}

}  // namespace
}  // namespace ocppgw::analytics
