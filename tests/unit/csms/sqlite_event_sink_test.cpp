#include "csms/sqlite_event_sink.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "storage/gateway_db.hpp"
#include "tests/unit/csms/sink_test_util.hpp"
#include "tests/unit/storage/temp_dir.hpp"

namespace ocppgw::csms {
namespace {

using analytics::EventType;
using testing::count_rows;
using testing::make_event;
using testing::submit_and_wait;

std::unique_ptr<EventSink> make_sink(const SqliteSinkOptions& options) {
  storage::Status s;
  auto sink = make_sqlite_event_sink(options, &s);
  EXPECT_TRUE(sink) << s.message();
  return sink;
}

std::unique_ptr<storage::Db> reader(const std::string& path) {
  storage::Status s;
  auto db = storage::Db::open(path, storage::OpenOptions{.read_only = true}, &s);
  EXPECT_TRUE(db) << s.message();
  return db;
}

SinkEntry frame_entry(const std::string& cp, int index, int events_per_frame) {
  SinkEntry e;
  e.charge_point_id = cp;
  e.raw_frame = "[2,\"" + std::to_string(index) + "\",\"Heartbeat\",{}]";
  e.received_ms = 1000 + index;
  for (int k = 0; k < events_per_frame; ++k) {
    e.events.push_back(make_event(cp, EventType::Heartbeat,
                                  cp + "-" + std::to_string(index) + "-" + std::to_string(k),
                                  1000 + index));
  }
  return e;
}

TEST(SqliteEventSink, CompletesEveryEntryOnceInOrderUnderConcurrency) {
  testing::TempDir dir;
  const std::string path = dir.file("g.db");
  auto sink = make_sink({.db_path = path});
  constexpr int kThreads = 8, kPerThread = 250, kEventsPerFrame = 2;
  std::mutex mu;
  std::vector<std::vector<int>> completed(kThreads);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const std::string cp = "CP" + std::to_string(t);
      for (int i = 0; i < kPerThread; ++i) {
        SinkEntry e = frame_entry(cp, i, kEventsPerFrame);
        e.on_durable = [&, t, i](bool ok) {
          if (!ok) ++failures;
          std::lock_guard lock(mu);
          completed[static_cast<size_t>(t)].push_back(i);
        };
        sink->submit(std::move(e));
      }
    });
  }
  for (auto& th : threads) th.join();
  sink->stop();

  EXPECT_EQ(failures.load(), 0);
  for (const auto& c : completed) {
    ASSERT_EQ(c.size(), static_cast<size_t>(kPerThread));  // exactly once each
    for (int i = 0; i < kPerThread; ++i) EXPECT_EQ(c[static_cast<size_t>(i)], i);  // in order
  }
  auto db = reader(path);
  const int64_t frames = kThreads * kPerThread;
  EXPECT_EQ(count_rows(*db, "SELECT count(*) FROM frames"), frames);
  EXPECT_EQ(count_rows(*db, "SELECT count(*) FROM events"), frames * kEventsPerFrame);
  EXPECT_EQ(count_rows(*db, "SELECT count(*) FROM outbox"), frames * kEventsPerFrame);
  EXPECT_EQ(count_rows(*db,
                       "SELECT count(*) FROM events e JOIN frames f ON f.seq = e.frame_seq "
                       "WHERE f.charge_point_id = e.charge_point_id"),
            frames * kEventsPerFrame);
  // Per charge point, log order is submission order.
  storage::Statement& st =
      db->cached("SELECT charge_point_id, received_ms FROM frames ORDER BY seq");
  std::map<std::string, int64_t> last;
  while (st.step()) {
    int64_t& prev = last[st.text(0)];
    EXPECT_GT(st.int64(1), prev);
    prev = st.int64(1);
  }
  const SinkStats stats = sink->stats();
  EXPECT_TRUE(stats.healthy);
  EXPECT_EQ(stats.frames_committed, static_cast<uint64_t>(frames));
  EXPECT_EQ(stats.events_committed, static_cast<uint64_t>(frames * kEventsPerFrame));
  // Group commit: far fewer transactions than frames.
  EXPECT_LT(stats.batches, static_cast<uint64_t>(frames));
  std::printf("[ figures  ] %d frames in %llu batches\n", static_cast<int>(frames),
              static_cast<unsigned long long>(stats.batches));
}

TEST(SqliteEventSink, StoresCanonicalJsonAndCallsListenersInSeqOrder) {
  testing::TempDir dir;
  const std::string path = dir.file("g.db");
  auto sink = make_sink({.db_path = path});
  std::vector<std::string> heard;
  std::vector<std::pair<int64_t, int64_t>> seqs;
  sink->add_commit_listener([&](const CommittedBatch& batch) {
    for (const auto& e : *batch.events) heard.push_back(e.event_id);
    seqs.emplace_back(batch.first_seq, batch.last_seq);
  });
  SinkEntry e = frame_entry("CP1", 1, 3);
  const analytics::Event first = e.events[0];
  ASSERT_TRUE(submit_and_wait(*sink, std::move(e)));
  ASSERT_TRUE(submit_and_wait(*sink, frame_entry("CP1", 2, 2)));
  sink->stop();
  EXPECT_EQ(heard,
            (std::vector<std::string>{"CP1-1-0", "CP1-1-1", "CP1-1-2", "CP1-2-0", "CP1-2-1"}));
  // The log positions the analytics watermark relies on: consecutive, one range per commit.
  EXPECT_EQ(seqs, (std::vector<std::pair<int64_t, int64_t>>{{1, 3}, {4, 5}}));
  auto db = reader(path);
  storage::Statement& st = db->cached(
      "SELECT event_id, event_type, ocpp_version, event_ts_ms, json FROM events ORDER BY seq");
  ASSERT_TRUE(st.step());
  EXPECT_EQ(st.text(0), "CP1-1-0");
  EXPECT_EQ(st.text(1), "Heartbeat");
  EXPECT_EQ(st.text(2), "1.6");
  EXPECT_EQ(st.int64(3), 1001);
  auto parsed = analytics::from_json(nlohmann::json::parse(st.text(4)));
  ASSERT_TRUE(parsed);
  EXPECT_EQ(*parsed, first);
}

TEST(SqliteEventSink, AcceptsEntriesWithoutFrameOrWithoutEvents) {
  testing::TempDir dir;
  const std::string path = dir.file("g.db");
  auto sink = make_sink({.db_path = path});
  SinkEntry connection;  // gateway-made: no raw frame
  connection.charge_point_id = "CP1";
  connection.events.push_back(make_event("CP1", EventType::Connection, "c1", 5));
  ASSERT_TRUE(submit_and_wait(*sink, std::move(connection)));
  SinkEntry bare = frame_entry("CP1", 2, 0);  // a frame that produced no event
  ASSERT_TRUE(submit_and_wait(*sink, std::move(bare)));
  SinkEntry empty;
  empty.charge_point_id = "CP1";
  ASSERT_TRUE(submit_and_wait(*sink, std::move(empty)));
  sink->stop();
  auto db = reader(path);
  EXPECT_EQ(count_rows(*db, "SELECT count(*) FROM events WHERE frame_seq IS NULL"), 1);
  EXPECT_EQ(count_rows(*db, "SELECT count(*) FROM frames"), 1);
  EXPECT_EQ(count_rows(*db, "SELECT count(*) FROM outbox"), 1);
}

TEST(SqliteEventSink, AppliesWriteSetsInTheFramesTransaction) {
  testing::TempDir dir;
  const std::string path = dir.file("g.db");
  auto sink = make_sink({.db_path = path});
  SinkEntry e = frame_entry("CP1", 1, 1);
  e.writes = std::make_unique<rpc::WriteSet>();
  e.writes->add("INSERT INTO id_tokens (id_token_hash, status, updated_ms) VALUES (?, ?, ?)",
                {std::string("h1"), std::string("Accepted"), int64_t{7}});
  ASSERT_TRUE(submit_and_wait(*sink, std::move(e)));
  // A write that cannot apply fails its whole batch: the frame is not stored either.
  SinkEntry bad = frame_entry("CP1", 2, 1);
  bad.writes = std::make_unique<rpc::WriteSet>();
  bad.writes->add("INSERT INTO no_such_table VALUES (?)", {int64_t{1}});
  EXPECT_FALSE(submit_and_wait(*sink, std::move(bad)));
  EXPECT_FALSE(sink->healthy());
  EXPECT_NE(sink->stats().last_error.find("no_such_table"), std::string::npos);
  sink->stop();
  auto db = reader(path);
  EXPECT_EQ(count_rows(*db, "SELECT count(*) FROM id_tokens WHERE id_token_hash = 'h1'"), 1);
  EXPECT_EQ(count_rows(*db, "SELECT count(*) FROM frames"), 1);
  EXPECT_EQ(count_rows(*db, "SELECT count(*) FROM events"), 1);
}

TEST(SqliteEventSink, FullDiskIsStickyAndKeepsEarlierRows) {
  testing::TempDir dir;
  const std::string path = dir.file("g.db");
  SqliteSinkOptions options{.db_path = path};
  // Cap the file a few pages above its current size: inserts soon fail with SQLITE_FULL,
  // exactly as on a full disk.
  options.on_open = [](storage::Db& db) {
    storage::Statement& st = db.cached("PRAGMA page_count");
    ASSERT_TRUE(st.step());
    const int64_t pages = st.int64(0);
    st.reset();
    ASSERT_TRUE(db.exec("PRAGMA max_page_count = " + std::to_string(pages + 8)).ok());
  };
  auto sink = make_sink(options);
  int committed = 0;
  bool failed = false;
  for (int i = 0; i < 200; ++i) {
    SinkEntry e = frame_entry("CP1", i, 1);
    e.raw_frame += std::string(4000, ' ');
    const bool ok = submit_and_wait(*sink, std::move(e));
    if (ok) {
      ASSERT_FALSE(failed) << "acknowledged entry " << i << " after a failed commit";
      ++committed;
    } else {
      failed = true;
    }
  }
  ASSERT_TRUE(failed);
  ASSERT_GT(committed, 0);
  EXPECT_FALSE(sink->healthy());
  EXPECT_FALSE(sink->stats().healthy);
  EXPECT_FALSE(sink->stats().last_error.empty());
  sink->stop();
  auto db = reader(path);
  EXPECT_EQ(count_rows(*db, "SELECT count(*) FROM frames"), committed);
  EXPECT_EQ(count_rows(*db, "SELECT count(*) FROM events"), committed);
  EXPECT_EQ(count_rows(*db, "SELECT count(*) FROM outbox"), committed);
}

TEST(SqliteEventSink, LockedDatabaseFailsTheBatchAndStaysUnhealthy) {
  testing::TempDir dir;
  const std::string path = dir.file("g.db");
  auto sink = make_sink({.db_path = path, .busy_timeout_ms = 50});
  ASSERT_TRUE(submit_and_wait(*sink, frame_entry("CP1", 1, 1)));
  {
    storage::Status s;
    auto other = storage::Db::open(path, storage::OpenOptions{}, &s);
    ASSERT_TRUE(other) << s.message();
    ASSERT_TRUE(other->begin_immediate().ok());  // holds the write lock past the busy timeout
    EXPECT_FALSE(submit_and_wait(*sink, frame_entry("CP1", 2, 1)));
    other->rollback();
  }
  // The lock is gone, but the failure is sticky: nothing more is acknowledged.
  EXPECT_FALSE(submit_and_wait(*sink, frame_entry("CP1", 3, 1)));
  EXPECT_FALSE(sink->healthy());
  sink->stop();
  auto db = reader(path);
  EXPECT_EQ(count_rows(*db, "SELECT count(*) FROM frames"), 1);
}

TEST(SqliteEventSink, StopCommitsEverythingQueued) {
  testing::TempDir dir;
  const std::string path = dir.file("g.db");
  auto sink = make_sink({.db_path = path, .max_batch_entries = 64});
  std::atomic<int> ok{0};
  constexpr int kEntries = 2000;
  for (int i = 0; i < kEntries; ++i) {
    SinkEntry e = frame_entry("CP1", i, 1);
    e.on_durable = [&](bool committed) { ok += committed ? 1 : 0; };
    sink->submit(std::move(e));
  }
  sink->stop();
  EXPECT_EQ(ok.load(), kEntries);
  EXPECT_GE(sink->stats().batches, static_cast<uint64_t>(kEntries / 64));  // batch bound holds
  // After stop, a submission completes at once, and not as committed.
  bool after = true;
  SinkEntry late = frame_entry("CP1", kEntries, 1);
  late.on_durable = [&](bool committed) { after = committed; };
  sink->submit(std::move(late));
  EXPECT_FALSE(after);
  sink->stop();  // idempotent
  auto db = reader(path);
  EXPECT_EQ(count_rows(*db, "SELECT count(*) FROM frames"), kEntries);
}

TEST(SqliteEventSink, LingerStillCompletesEverything) {
  testing::TempDir dir;
  const std::string path = dir.file("g.db");
  auto sink = make_sink({.db_path = path, .max_linger_us = 2000});
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(submit_and_wait(*sink, frame_entry("CP1", i, 1)));
  sink->stop();
  EXPECT_EQ(sink->stats().frames_committed, 20u);
}

TEST(SqliteEventSink, OpenFailsClearlyOnUnwritablePath) {
  storage::Status s;
  auto sink = make_sqlite_event_sink({.db_path = "/nonexistent-dir/x/g.db"}, &s);
  EXPECT_FALSE(sink);
  EXPECT_NE(s.message().find("/nonexistent-dir/x/g.db"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace ocppgw::csms
