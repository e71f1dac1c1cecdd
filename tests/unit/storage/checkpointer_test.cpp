#include "storage/checkpointer.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/unit/storage/temp_dir.hpp"

namespace ocppgw::storage {
namespace {

struct Store {
  testing::TempDir dir;
  std::string path = dir.file("c.db");
  std::unique_ptr<Db> db;

  Store() {
    Status s;
    db = Db::open(path, OpenOptions{.synchronous_full = false}, &s);
    EXPECT_TRUE(s.ok()) << s.message();
    EXPECT_TRUE(db->exec("CREATE TABLE t(x TEXT)").ok());
  }
  // One transaction of `rows` rows of 1 KB: about rows / 4 WAL pages.
  void write(int rows) {
    ASSERT_TRUE(db->begin_immediate().ok());
    for (int i = 0; i < rows; ++i)
      ASSERT_TRUE(
          db->cached("INSERT INTO t VALUES(?1)").bind(1, std::string(1000, 'x')).run().ok());
    ASSERT_TRUE(db->commit().ok());
  }
  // The database file only grows when a checkpoint copies pages back from the WAL.
  uintmax_t file_bytes() const { return std::filesystem::file_size(path); }
  // The WAL file is a 32-byte header and frames of a 24-byte header and a page each; it never
  // shrinks, so this is the longest the WAL has been.
  int64_t wal_frames() const {
    return static_cast<int64_t>((std::filesystem::file_size(path + "-wal") - 32) / (24 + 4096));
  }
  // The WAL header's checkpoint sequence number (big-endian, bytes 12-15): SQLite adds one each
  // time the WAL starts over from its first frame.
  uint32_t wal_restarts() const {
    std::ifstream wal(path + "-wal", std::ios::binary);
    unsigned char header[16] = {};
    wal.read(reinterpret_cast<char*>(header), sizeof header);
    return (uint32_t{header[12]} << 24) | (uint32_t{header[13]} << 16) |
           (uint32_t{header[14]} << 8) | uint32_t{header[15]};
  }
  std::unique_ptr<Checkpointer> attach(CheckpointerOptions options) {
    Status s;
    auto c = Checkpointer::attach(*db, OpenOptions{.synchronous_full = false}, options, &s);
    EXPECT_TRUE(c) << s.message();
    return c;
  }
};

TEST(Checkpointer, CopiesTheWalBackOnItsOwnThread) {
  Store st;
  auto c = st.attach({.start_pages = 64, .inline_pages = 1 << 20});
  ASSERT_TRUE(c);
  const uintmax_t before = st.file_bytes();
  st.write(1000);  // ~250 pages: past start_pages
  for (int i = 0; i < 500 && c->stats().checkpoints == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_GE(c->stats().checkpoints, 1);
  EXPECT_EQ(c->stats().inline_checkpoints, 0);
  EXPECT_GT(st.file_bytes(), before + 900'000);
}

TEST(Checkpointer, BelowTheThresholdNothingIsCopied) {
  Store st;
  auto c = st.attach({.start_pages = 100000, .inline_pages = 1 << 20});
  ASSERT_TRUE(c);
  const uintmax_t before = st.file_bytes();
  st.write(1000);  // SQLite's own automatic checkpoint (1000 pages) would not fire either
  st.write(4000);  // ~1250 pages in the WAL: SQLite's own would have, this one does not
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(c->stats().checkpoints, 0);
  EXPECT_EQ(st.file_bytes(), before);
}

// A reader that holds its snapshot keeps the WAL from restarting, so its size stays past the
// threshold commit after commit; the thread must still wake once per start_pages of new frames,
// not once per commit.
TEST(Checkpointer, WakesPerThresholdOfNewFramesWhileAReaderPinsTheWal) {
  Store st;
  Status s;
  auto reader = Db::open(st.path, OpenOptions{.read_only = true}, &s);
  ASSERT_TRUE(reader) << s.message();
  ASSERT_TRUE(reader->exec("BEGIN").ok());
  Statement& count = reader->cached("SELECT count(*) FROM t");
  ASSERT_TRUE(count.step());  // the read transaction now holds its snapshot
  auto c = st.attach({.start_pages = 64, .inline_pages = 1 << 20});
  ASSERT_TRUE(c);
  for (int i = 0; i < 200; ++i) {
    st.write(12);                                                 // a few pages per commit
    std::this_thread::sleep_for(std::chrono::microseconds(200));  // lets the thread run
  }
  const int64_t thresholds = st.wal_frames() / 64;
  ASSERT_GE(thresholds, 8);
  for (int i = 0; i < 50 && c->stats().checkpoints < thresholds; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  // One per commit past the threshold would be ~180; fewer than one per threshold only when
  // wakes coalesce because the thread was not scheduled in time.
  EXPECT_LE(c->stats().checkpoints, thresholds);
  EXPECT_GE(c->stats().checkpoints, thresholds / 2);
  count.reset();
  ASSERT_TRUE(reader->exec("COMMIT").ok());
}

// The thread's pass copies the WAL as it was when the pass began, and the writer appends
// meanwhile, so without the writer's finishing copy no pass ever copies every frame and the WAL
// never starts over: here it would grow to all ~900 frames written. Starting over, the file
// keeps the size of one generation: start_pages plus what was appended before and during a
// pass, which is as long as the thread waits for a core (362 frames once, with ctest -j2 on
// two cores), so the test counts the restarts and not the frames.
TEST(Checkpointer, TheWalStartsOverWhileTheWriterKeepsWriting) {
  Store st;
  auto c = st.attach({.start_pages = 64, .inline_pages = 1 << 20});
  ASSERT_TRUE(c);
  st.write(12);
  const uint32_t restarts_before = st.wal_restarts();
  for (int i = 0; i < 300; ++i) {
    st.write(12);  // three pages per commit
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  EXPECT_GE(c->stats().finishing_checkpoints, 2);
  EXPECT_GE(st.wal_restarts() - restarts_before, 2u);
  EXPECT_LT(st.wal_frames(), 750);  // under half of the ~1,500 frames written
  EXPECT_EQ(c->stats().inline_checkpoints, 0);
  Statement& count = st.db->cached("SELECT count(*) FROM t");
  ASSERT_TRUE(count.step());
  EXPECT_EQ(count.int64(0), 301 * 12);
}

TEST(Checkpointer, TheWriterCheckpointsInlineWhenTheWalPassesTheBound) {
  Store st;
  auto c = st.attach({.start_pages = 1 << 20, .inline_pages = 64});
  ASSERT_TRUE(c);
  const uintmax_t before = st.file_bytes();
  st.write(1000);
  EXPECT_EQ(c->stats().inline_checkpoints, 1);
  EXPECT_GT(st.file_bytes(), before + 900'000);  // copied before commit() returned
}

TEST(Checkpointer, TheStoreReopensWithEveryRowAfterDetaching) {
  Store st;
  {
    auto c = st.attach({.start_pages = 64, .inline_pages = 1 << 20});
    ASSERT_TRUE(c);
    for (int i = 0; i < 5; ++i) st.write(400);
  }
  st.write(10);
  st.db.reset();
  Status s;
  auto db = Db::open(st.path, OpenOptions{.read_only = true}, &s);
  ASSERT_TRUE(db) << s.message();
  Statement& count = db->cached("SELECT count(*) FROM t");
  ASSERT_TRUE(count.step());
  EXPECT_EQ(count.int64(0), 2010);
}

}  // namespace
}  // namespace ocppgw::storage
