// tests/unit/delta/maintenance_test.cpp: history, restore and vacuum of a Delta table.
#include "delta/maintenance.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "delta/fs.hpp"
#include "tests/unit/storage/temp_dir.hpp"

namespace ocppgw::delta {
namespace {

namespace fs = std::filesystem;

class Maintenance : public ::testing::Test {
 protected:
  Maintenance() : log_(dir_.path() / "t") {}

  // Commits a version whose only live files are `paths` (creating them on disk).
  int64_t commit_files(const std::vector<std::string>& paths) {
    util::Status s;
    auto snap = log_.snapshot(std::nullopt, &s);
    EXPECT_TRUE(snap) << s.message();
    Commit c;
    if (snap->version < 0) {
      c.protocol = Protocol{};
      c.metadata = Metadata{"id", "t", R"({"type":"struct","fields":[]})", {}, {}, 1};
    }
    const int64_t now = 1'000;
    for (const auto& [path, f] : snap->files)
      if (std::find(paths.begin(), paths.end(), path) == paths.end())
        c.removes.push_back({path, now, true, {}, 1});
    for (const auto& p : paths) {
      if (snap->files.count(p)) continue;
      fs::create_directories((log_.root() / decode_log_path(p)).parent_path());
      std::ofstream(log_.root() / decode_log_path(p)) << "data";
      c.adds.push_back({p, {}, 4, now, true, "", {}});
    }
    c.commit_info = {{"timestamp", now}, {"operation", "WRITE"}};
    const int64_t v = snap->version + 1;
    EXPECT_EQ(log_.try_commit(v, c, &s), DeltaLog::CommitResult::kCommitted) << s.message();
    return v;
  }

  std::set<std::string> live(std::optional<int64_t> version = std::nullopt) {
    util::Status s;
    auto snap = log_.snapshot(version, &s);
    EXPECT_TRUE(snap) << s.message();
    std::set<std::string> out;
    if (snap)
      for (const auto& [p, f] : snap->files) out.insert(p);
    return out;
  }

  testing::TempDir dir_;
  DeltaLog log_;
};

TEST(DecodeLogPath, PercentEscapesAreDecodedAndBadOnesKept) {
  EXPECT_EQ(decode_log_path("day=a%2520b/x.parquet"), "day=a%20b/x.parquet");
  EXPECT_EQ(decode_log_path("d=%3A/x"), "d=:/x");
  EXPECT_EQ(decode_log_path("100%"), "100%");
  EXPECT_EQ(decode_log_path("%zz"), "%zz");
}

TEST_F(Maintenance, RestoreCommitsTheOldFileSetAsANewVersion) {
  commit_files({"a.parquet"});
  commit_files({"a.parquet", "b.parquet"});
  commit_files({"c.parquet"});
  util::Status s;
  auto r = restore(log_, 1, std::chrono::hours(1000), &s);
  ASSERT_TRUE(r) << s.message();
  EXPECT_EQ(r->version, 3);
  EXPECT_EQ(r->files_added, 2);
  EXPECT_EQ(r->files_removed, 1);
  EXPECT_EQ(live(), (std::set<std::string>{"a.parquet", "b.parquet"}));
  EXPECT_EQ(live(2), std::set<std::string>{"c.parquet"}) << "history is kept";
  auto h = history(log_, 1, &s);
  ASSERT_TRUE(h) << s.message();
  ASSERT_EQ(h->size(), 1u);
  EXPECT_EQ((*h)[0]["operation"], "RESTORE");
  EXPECT_EQ((*h)[0]["operationParameters"]["version"], "1");
  EXPECT_EQ((*h)[0]["readVersion"], 2);
}

TEST_F(Maintenance, RestoreIsRefusedWhenAFileOfThatVersionIsGone) {
  commit_files({"a.parquet"});
  commit_files({"b.parquet"});
  fs::remove(log_.root() / "a.parquet");
  util::Status s;
  EXPECT_FALSE(restore(log_, 0, std::chrono::hours(1000), &s));
  EXPECT_NE(s.message().find("a.parquet is gone"), std::string::npos) << s.message();
  util::Status latest;
  EXPECT_EQ(log_.latest_version(&latest), 1) << "nothing committed";
}

TEST_F(Maintenance, VacuumDeletesExpiredRemovedAndOrphanFilesOnly) {
  commit_files({"p=1/a.parquet", "p=1/b.parquet"});
  commit_files({"p=1/b.parquet", "p=2/c.parquet"});  // removes a at t=1000 ms (long ago)
  // Files no commit names: an old one (a crashed writer's) and a fresh one (a writer about to
  // commit it).
  std::ofstream(log_.root() / "p=1" / "orphan-old.parquet") << "x";
  fs::last_write_time(log_.root() / "p=1" / "orphan-old.parquet",
                      fs::file_time_type::clock::now() - std::chrono::hours(200));
  std::ofstream(log_.root() / "p=2" / "orphan-new.parquet") << "x";
  fs::create_directories(log_.root() / "_staging" / "x");
  std::ofstream(log_.root() / "_staging" / "x" / "staged.parquet") << "x";
  fs::create_directories(log_.root() / "p=3");
  std::ofstream(log_.root() / "p=3" / "gone.parquet") << "x";
  fs::last_write_time(log_.root() / "p=3" / "gone.parquet",
                      fs::file_time_type::clock::now() - std::chrono::hours(200));

  util::Status s;
  VacuumOptions dry;
  dry.dry_run = true;
  auto listed = vacuum(log_, dry, &s);
  ASSERT_TRUE(listed) << s.message();
  EXPECT_EQ(listed->deleted.size(), 3u);
  EXPECT_TRUE(fs::exists(log_.root() / "p=1" / "a.parquet")) << "a dry run deletes nothing";

  auto done = vacuum(log_, VacuumOptions{}, &s);
  ASSERT_TRUE(done) << s.message();
  std::set<std::string> deleted(done->deleted.begin(), done->deleted.end());
  EXPECT_EQ(deleted,
            (std::set<std::string>{"p=1/a.parquet", "p=1/orphan-old.parquet", "p=3/gone.parquet"}));
  EXPECT_EQ(done->directories_deleted, 1) << "p=3 emptied";
  EXPECT_TRUE(fs::exists(log_.root() / "p=1" / "b.parquet"));
  EXPECT_TRUE(fs::exists(log_.root() / "p=2" / "orphan-new.parquet"));
  EXPECT_TRUE(fs::exists(log_.root() / "_staging" / "x" / "staged.parquet"));
  EXPECT_EQ(done->version, 2);
  auto h = history(log_, 1, &s);
  ASSERT_TRUE(h) << s.message();
  EXPECT_EQ((*h)[0]["operation"], "VACUUM END");
  EXPECT_EQ((*h)[0]["operationMetrics"]["numDeletedFiles"], "3");
  EXPECT_EQ(live(), (std::set<std::string>{"p=1/b.parquet", "p=2/c.parquet"}));
}

TEST_F(Maintenance, VacuumKeepsRemovedFilesWithinTheRetention) {
  commit_files({"a.parquet"});
  // Removed now (not at t=1000): within a 1-hour retention.
  util::Status s;
  Commit c;
  c.removes.push_back({"a.parquet",
                       std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count(),
                       true,
                       {},
                       4});
  c.commit_info = {{"timestamp", 2}};
  ASSERT_EQ(log_.try_commit(1, c, &s), DeltaLog::CommitResult::kCommitted);
  VacuumOptions o;
  o.retention = std::chrono::hours(1);
  auto done = vacuum(log_, o, &s);
  ASSERT_TRUE(done) << s.message();
  EXPECT_TRUE(done->deleted.empty());
  EXPECT_TRUE(fs::exists(log_.root() / "a.parquet"));
  o.retention = std::chrono::hours(0);
  done = vacuum(log_, o, &s);
  ASSERT_TRUE(done) << s.message();
  EXPECT_EQ(done->deleted, std::vector<std::string>{"a.parquet"});
}

}  // namespace
}  // namespace ocppgw::delta
