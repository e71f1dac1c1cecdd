// tests/unit/analytics/live_pipeline_test.cpp: the worker thread, bounded queue and drain.
#include "analytics/live_pipeline.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

#include "storage/gateway_db.hpp"
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

TEST(LivePipeline, WithPipelineRunsOnTheWorkerBetweenBatchesUntilStopped) {
  testing::TempDir dir;
  LivePipeline::Options o;
  o.pipeline.path = dir.file("a.db");
  o.pipeline.durable = false;
  o.max_linger_ms = 10000;  // a task must not wait for the linger
  storage::Status s;
  auto live = LivePipeline::start(o, &s);
  ASSERT_TRUE(live);
  live->offer({testing::make_event("h", "CP-1", EventType::Heartbeat,
                                   testing::ts("2026-03-01T10:00:00Z"))});
  std::thread::id ran_on;
  int64_t silver = -1;
  const auto started = std::chrono::steady_clock::now();
  ASSERT_TRUE(live->with_pipeline([&](Pipeline& p) {
    ran_on = std::this_thread::get_id();
    silver = p.counts().silver;
  }));
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
  EXPECT_NE(ran_on, std::this_thread::get_id());
  EXPECT_NE(ran_on, std::thread::id());
  EXPECT_GE(silver, 0);  // ran with the pipeline, before or after the batch, never during it
  live->stop();
  EXPECT_FALSE(live->with_pipeline([](Pipeline&) { FAIL() << "ran after stop"; }));
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

// The gateway's event log as the sink writes it (seq 1..n in `events` order).
class EventLog {
 public:
  explicit EventLog(std::string path) : path_(std::move(path)) {
    storage::Status s;
    db_ = storage::open_gateway_db(path_, &s);
    EXPECT_TRUE(db_) << s.message();
  }
  // Appends events[from, to) and returns the seq of the last one.
  int64_t append(const std::vector<Event>& events, size_t from, size_t to) {
    return testing::append_to_event_log(*db_, std::span(events.data() + from, to - from));
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::unique_ptr<storage::Db> db_;
};

std::vector<Event> slice(const std::vector<Event>& events, size_t from, size_t to) {
  return {events.begin() + static_cast<long>(from), events.begin() + static_cast<long>(to)};
}

struct LogFixture {
  testing::TempDir dir;
  testing::Fleet fleet = testing::generate_fleet(testing::FleetSpec{.charge_points = 6});
  EventLog log{dir.file("ocppgw.db")};

  std::unique_ptr<LivePipeline> start(size_t max_queued = 200000, int linger_ms = 20) {
    LivePipeline::Options o;
    o.pipeline.path = dir.file("a.db");
    o.pipeline.durable = false;
    o.event_log_path = log.path();
    o.max_queued_events = max_queued;
    o.max_linger_ms = linger_ms;
    storage::Status s;
    auto live = LivePipeline::start(o, &s);
    EXPECT_TRUE(live) << s.message();
    return live;
  }
};

TEST(LivePipeline, CatchesUpFromTheEventLogAtStartAndAfterARestart) {
  LogFixture f;
  const size_t n = f.fleet.events.size();
  ASSERT_GT(n, 100u);
  // Committed by the gateway but never offered (a crash between commit and analysis).
  f.log.append(f.fleet.events, 0, n / 2);
  {
    auto live = f.start();
    live->flush();
    LivePipelineStats st = live->stats();
    EXPECT_EQ(st.totals.raw, static_cast<int64_t>(n / 2));
    EXPECT_EQ(st.log_events, static_cast<int64_t>(n / 2));
    EXPECT_EQ(st.event_log_seq, static_cast<int64_t>(n / 2));
  }
  const int64_t last = f.log.append(f.fleet.events, n / 2, n);
  auto live = f.start();
  live->flush();
  LivePipelineStats st = live->stats();
  EXPECT_EQ(st.totals.raw, static_cast<int64_t>(n)) << "each event analysed exactly once";
  EXPECT_EQ(st.event_log_seq, last);
  EXPECT_TRUE(st.totals.ok());
}

TEST(LivePipeline, ReadsAGapFromTheLogAndSkipsOffersAlreadyCovered) {
  LogFixture f;
  const size_t n = f.fleet.events.size();
  const size_t a = n / 3, b = 2 * n / 3;
  auto live = f.start();
  live->flush();  // start-up catch-up of the empty log
  // Offers for [0, a) never arrive; [a, b) is offered: the gap comes from the log first.
  f.log.append(f.fleet.events, 0, a);
  const int64_t b_last = f.log.append(f.fleet.events, a, b);
  live->offer(slice(f.fleet.events, a, b), static_cast<int64_t>(a) + 1, b_last);
  live->flush();
  EXPECT_EQ(live->stats().totals.raw, static_cast<int64_t>(b));
  EXPECT_EQ(live->stats().log_events, static_cast<int64_t>(a));
  // A stale re-offer of [0, a) is skipped, not counted as duplicates.
  live->offer(slice(f.fleet.events, 0, a), 1, static_cast<int64_t>(a));
  const int64_t c_last = f.log.append(f.fleet.events, b, n);
  live->offer(slice(f.fleet.events, b, n), b_last + 1, c_last);
  live->flush();
  LivePipelineStats st = live->stats();
  EXPECT_EQ(st.totals.raw, static_cast<int64_t>(n));
  // The same counts as one pass over every event exactly once.
  auto reference = testing::open_pipeline(f.dir.file("ref.db"));
  ASSERT_TRUE(reference->ingest(f.fleet.events).status.ok());
  const ConservationCounts once = reference->counts();
  EXPECT_EQ(st.totals.duplicates, once.duplicates);
  EXPECT_EQ(st.totals.silver, once.silver);
  EXPECT_EQ(st.totals.quarantine, once.quarantine);
  EXPECT_EQ(st.event_log_seq, c_last);
}

TEST(LivePipeline, TheLingerEndsOnceHalfTheQueueWaits) {
  LogFixture f;
  ASSERT_GE(f.fleet.events.size(), 50u);
  // A linger far longer than the test: only the queue filling up can end it.
  auto live = f.start(/*max_queued=*/100, /*linger_ms=*/60000);
  live->flush();  // the start-up catch-up of the empty log
  const int64_t seq49 = f.log.append(f.fleet.events, 0, 49);
  live->offer(slice(f.fleet.events, 0, 49), 1, seq49);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(live->stats().events, 0) << "49 of 100 queued: still lingering";
  const int64_t seq50 = f.log.append(f.fleet.events, 49, 50);
  live->offer(slice(f.fleet.events, 49, 50), seq49 + 1, seq50);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (live->stats().events < 50 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  LivePipelineStats st = live->stats();
  EXPECT_EQ(st.events, 50) << "half the queue waits: the batch is taken without the linger";
  EXPECT_EQ(st.log_events, 0);
  EXPECT_EQ(st.dropped_offers, 0);
  EXPECT_EQ(st.event_log_seq, seq50);
}

TEST(LivePipeline, AFullQueueDropsOffersToTheLogInsteadOfBlockingTheSink) {
  LogFixture f;
  const size_t n = f.fleet.events.size();
  // A tiny queue, and the worker held in a task until every offer is made: the queue fills
  // whatever the machine's speed (left to a race with the worker, a fast worker emptied it
  // before it ever filled), and the offers that find it full must go to the log.
  auto live = f.start(/*max_queued=*/8, /*linger_ms=*/300);
  live->flush();
  std::promise<void> held, release;
  std::shared_future<void> released = release.get_future().share();
  std::thread holder([&] {
    live->with_pipeline([&](Pipeline&) {
      held.set_value();
      released.wait();
    });
  });
  held.get_future().wait();
  int64_t seq = 0;
  for (size_t i = 0; i < n; i += 4) {
    const size_t to = std::min(n, i + 4);
    const int64_t last = f.log.append(f.fleet.events, i, to);
    live->offer(slice(f.fleet.events, i, to), seq + 1, last);
    seq = last;
  }
  EXPECT_EQ(live->stats().dropped_offers, static_cast<int64_t>((n + 3) / 4) - 2)
      << "two offers of 4 fill the queue of 8; every later one is dropped";
  release.set_value();
  holder.join();
  live->flush();
  LivePipelineStats st = live->stats();
  EXPECT_GT(st.dropped_offers, 0);
  EXPECT_EQ(st.blocked_offers, 0);
  EXPECT_EQ(st.totals.raw, static_cast<int64_t>(n));
  EXPECT_EQ(st.event_log_seq, seq);
  EXPECT_TRUE(st.totals.ok());
}

}  // namespace
}  // namespace ocppgw::analytics
