// tests/unit/analytics/live_pipeline_test.cpp: the worker thread, bounded queue and drain.
#include "analytics/live_pipeline.hpp"

#include <gtest/gtest.h>

#include "tests/unit/analytics/fleet_generator.hpp"
#include "tests/unit/analytics/test_support.hpp"

namespace ocppgw::analytics {
namespace {

TEST(LivePipeline, OffersFromSeveralThreadsAreAllProcessedAndStopDrains) {
  testing::TempDir dir;
  testing::FleetSpec spec;
  spec.charge_points = 12;
  testing::Fleet fleet = testing::generate_fleet(spec);
  LivePipeline::Options o;
  o.pipeline.path = dir.file("a.db");
  o.pipeline.durable = false;
  o.max_queued_events = 300;  // small: offers must block, never drop
  o.max_batch_events = 500;
  storage::Status s;
  auto live = LivePipeline::start(o, &s);
  ASSERT_TRUE(live) << s.message();
  std::vector<std::thread> producers;
  const size_t n = fleet.events.size();
  for (int t = 0; t < 3; ++t) {
    producers.emplace_back([&, t] {
      for (size_t i = static_cast<size_t>(t) * 50; i < n; i += 150)
        live->offer(
            std::vector<Event>(fleet.events.begin() + static_cast<long>(i),
                               fleet.events.begin() + static_cast<long>(std::min(n, i + 50))));
    });
  }
  for (auto& p : producers) p.join();
  live->stop();
  LivePipelineStats st = live->stats();
  EXPECT_EQ(st.events, static_cast<int64_t>(n));
  EXPECT_EQ(st.totals.raw, static_cast<int64_t>(n));
  EXPECT_TRUE(st.totals.ok());
  EXPECT_EQ(st.failed_batches, 0);
  EXPECT_EQ(st.queued_events, 0);
  live->stop();  // idempotent
}

TEST(LivePipeline, FlushWaitsForEverythingOffered) {
  testing::TempDir dir;
  LivePipeline::Options o;
  o.pipeline.path = dir.file("a.db");
  o.pipeline.durable = false;
  storage::Status s;
  auto live = LivePipeline::start(o, &s);
  ASSERT_TRUE(live);
  live->offer({testing::make_event("h", "CP-1", EventType::Heartbeat,
                                   testing::ts("2026-03-01T10:00:00Z"))});
  live->flush();
  EXPECT_EQ(live->stats().totals.silver, 1);
  EXPECT_EQ(live->stats().data_clock_ms, testing::ts("2026-03-01T10:00:00Z"));
}

}  // namespace
}  // namespace ocppgw::analytics
