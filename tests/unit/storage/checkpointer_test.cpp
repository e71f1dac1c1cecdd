#include "storage/checkpointer.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
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
};

TEST(Checkpointer, CopiesTheWalBackOnItsOwnThread) {
  Store st;
  Status s;
  auto c = Checkpointer::attach(*st.db, OpenOptions{.synchronous_full = false},
                                {.start_pages = 64, .inline_pages = 1 << 20}, &s);
  ASSERT_TRUE(c) << s.message();
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
  Status s;
  auto c = Checkpointer::attach(*st.db, OpenOptions{.synchronous_full = false},
                                {.start_pages = 100000, .inline_pages = 1 << 20}, &s);
  ASSERT_TRUE(c) << s.message();
  const uintmax_t before = st.file_bytes();
  st.write(1000);  // SQLite's own automatic checkpoint (1000 pages) would not fire either
  st.write(4000);  // ~1250 pages in the WAL: SQLite's own would have, this one does not
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(c->stats().checkpoints, 0);
  EXPECT_EQ(st.file_bytes(), before);
}

TEST(Checkpointer, TheWriterCheckpointsInlineWhenTheWalPassesTheBound) {
  Store st;
  Status s;
  auto c = Checkpointer::attach(*st.db, OpenOptions{.synchronous_full = false},
                                {.start_pages = 1 << 20, .inline_pages = 64}, &s);
  ASSERT_TRUE(c) << s.message();
  const uintmax_t before = st.file_bytes();
  st.write(1000);
  EXPECT_EQ(c->stats().inline_checkpoints, 1);
  EXPECT_GT(st.file_bytes(), before + 900'000);  // copied before commit() returned
}

TEST(Checkpointer, TheStoreReopensWithEveryRowAfterDetaching) {
  Store st;
  {
    Status s;
    auto c = Checkpointer::attach(*st.db, OpenOptions{.synchronous_full = false},
                                  {.start_pages = 64, .inline_pages = 1 << 20}, &s);
    ASSERT_TRUE(c) << s.message();
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
