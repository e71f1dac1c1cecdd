// tests/unit/delta/replace_partitions_test.cpp: the mirror's transaction: partitions replaced
// exactly, retries skipped by their txn, lost races retried or reported, checkpoints.
#include "delta/replace_partitions.hpp"

#include <gtest/gtest.h>

#include <thread>

#include "delta/fs.hpp"
#include "tests/unit/storage/temp_dir.hpp"

namespace ocppgw::delta {
namespace {

TableSchema day_schema() {
  return {{{"id", ColumnType::kString, false}, {"day", ColumnType::kDate, false}}, {"day"}};
}

AddFile file_in(const std::string& day) {
  const std::string path = "day=" + day + "/part-" + random_uuid() + ".parquet";
  return {path, {{"day", day}}, 100, 1, true, R"({"numRecords":1})", {}};
}

ReplacePartitions replace(std::vector<std::string> days, const std::string& app, int64_t v) {
  ReplacePartitions r;
  r.table_name = "t";
  r.schema = day_schema();
  for (const auto& d : days) {
    r.partitions.insert({{"day", d}});
    r.adds.push_back(file_in(d));
  }
  r.txn = {app, v, 0};
  return r;
}

std::set<std::string> days_of(const Snapshot& s) {
  std::set<std::string> out;
  for (const auto& [p, f] : s.files) out.insert(*f.partition_values.at("day"));
  return out;
}

TEST(ReplacePartitions, FirstCommitCreatesTheTableThenOnlyNamedPartitionsChange) {
  testing::TempDir dir;
  DeltaLog log(dir.path() / "t");
  util::Status s;
  auto first = replace_partitions(log, replace({"2026-01-01", "2026-01-02"}, "m", 1), &s);
  ASSERT_TRUE(first) << s.message();
  EXPECT_EQ(first->kind, ReplaceOutcome::Kind::kCommitted);
  EXPECT_EQ(first->version, 0);
  auto c0 = log.read_commit(0, &s);
  ASSERT_TRUE(c0 && c0->protocol && c0->metadata);
  EXPECT_EQ(c0->protocol->min_reader_version, 1);
  EXPECT_EQ(c0->protocol->min_writer_version, 2);
  EXPECT_EQ(c0->metadata->partition_columns, std::vector<std::string>{"day"});
  EXPECT_FALSE(c0->commit_info.contains("readVersion")) << "readers parse it as unsigned";

  const auto before = log.snapshot(std::nullopt, &s);
  auto second = replace_partitions(log, replace({"2026-01-02"}, "m", 2), &s);
  ASSERT_TRUE(second) << s.message();
  EXPECT_EQ(second->version, 1);
  EXPECT_EQ(second->removed_files, 1);
  auto after = log.snapshot(std::nullopt, &s);
  ASSERT_TRUE(after);
  EXPECT_EQ(after->files.size(), 2u);
  EXPECT_EQ(days_of(*after), (std::set<std::string>{"2026-01-01", "2026-01-02"}));
  for (const auto& [path, f] : before->files) {
    if (f.partition_values.at("day") == "2026-01-01") {
      EXPECT_TRUE(after->files.count(path)) << "an untouched partition keeps its file";
    }
  }
  auto c1 = log.read_commit(1, &s);
  ASSERT_TRUE(c1);
  EXPECT_FALSE(c1->metadata) << "metaData only in the first commit";
  EXPECT_EQ(c1->commit_info["operationParameters"]["mode"], "Overwrite");
  EXPECT_EQ(c1->commit_info["readVersion"], 0);
}

TEST(ReplacePartitions, TheSameTxnVersionAgainAddsNothing) {
  testing::TempDir dir;
  DeltaLog log(dir.path() / "t");
  util::Status s;
  ASSERT_TRUE(replace_partitions(log, replace({"2026-01-01"}, "m", 5), &s));
  auto again = replace_partitions(log, replace({"2026-01-01"}, "m", 5), &s);
  ASSERT_TRUE(again) << s.message();
  EXPECT_EQ(again->kind, ReplaceOutcome::Kind::kAlreadyApplied);
  auto older = replace_partitions(log, replace({"2026-01-01"}, "m", 4), &s);
  ASSERT_TRUE(older);
  EXPECT_EQ(older->kind, ReplaceOutcome::Kind::kAlreadyApplied);
  EXPECT_EQ(log.latest_version(&s), 0);
  auto other_app = replace_partitions(log, replace({"2026-01-01"}, "other", 1), &s);
  ASSERT_TRUE(other_app);
  EXPECT_EQ(other_app->kind, ReplaceOutcome::Kind::kCommitted);
}

TEST(ReplacePartitions, AnUnpartitionedTableIsReplacedWhole) {
  testing::TempDir dir;
  DeltaLog log(dir.path() / "t");
  util::Status s;
  ReplacePartitions r;
  r.table_name = "small";
  r.schema = {{{"id", ColumnType::kString, false}}, {}};
  r.adds = {{"part-a.parquet", {}, 1, 1, true, "", {}}, {"part-b.parquet", {}, 1, 1, true, "", {}}};
  r.txn = {"m", 1, 0};
  ASSERT_TRUE(replace_partitions(log, r, &s));
  r.adds = {{"part-c.parquet", {}, 1, 1, true, "", {}}};
  r.txn.version = 2;
  auto out = replace_partitions(log, r, &s);
  ASSERT_TRUE(out) << s.message();
  EXPECT_EQ(out->removed_files, 2);
  auto snap = log.snapshot(std::nullopt, &s);
  ASSERT_EQ(snap->files.size(), 1u);
  EXPECT_TRUE(snap->files.count("part-c.parquet"));
}

TEST(ReplacePartitions, CheckpointEveryTenCommits) {
  testing::TempDir dir;
  DeltaLog log(dir.path() / "t");
  util::Status s;
  for (int64_t v = 1; v <= 12; ++v) {
    auto out = replace_partitions(log, replace({"2026-01-01"}, "m", v), &s);
    ASSERT_TRUE(out) << s.message();
    EXPECT_EQ(out->follow_up.checkpointed, out->version == 10) << "version " << out->version;
  }
  EXPECT_TRUE(std::filesystem::exists(log.log_dir() / (version_name(10) + ".checkpoint.parquet")));
  EXPECT_FALSE(std::filesystem::exists(log.log_dir() / (version_name(0) + ".checkpoint.parquet")));
  const auto last = nlohmann::json::parse(read_file(log.log_dir() / "_last_checkpoint", &s));
  EXPECT_EQ(last["version"], 10);
}

// Writers racing on different partitions: every commit lands once, versions are contiguous,
// and no writer's file is lost.
TEST(ReplacePartitions, LostRacesOnOtherPartitionsAreRetriedOnTop) {
  testing::TempDir dir;
  const auto root = dir.path() / "t";
  util::Status s;
  ASSERT_TRUE(replace_partitions(DeltaLog(root), replace({"2026-01-01"}, "setup", 1), &s));
  constexpr int kWriters = 4, kEach = 10;
  std::vector<std::thread> writers;
  std::atomic<int> committed{0}, failed{0};
  for (int w = 0; w < kWriters; ++w)
    writers.emplace_back([&, w] {
      DeltaLog log(root);
      const std::string day = "2026-02-0" + std::to_string(w + 1);
      for (int i = 1; i <= kEach; ++i) {
        util::Status ws;
        auto r = replace({day}, "writer-" + std::to_string(w), i);
        r.max_attempts = 100;
        auto out = replace_partitions(log, r, &ws);
        if (out && out->kind == ReplaceOutcome::Kind::kCommitted)
          ++committed;
        else
          ++failed;
      }
    });
  for (auto& t : writers) t.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(committed.load(), kWriters * kEach);
  DeltaLog log(root);
  EXPECT_EQ(log.latest_version(&s), kWriters * kEach);
  auto snap = log.snapshot(std::nullopt, &s);
  ASSERT_TRUE(snap) << s.message();
  EXPECT_EQ(snap->files.size(), static_cast<size_t>(kWriters + 1)) << "one file per partition";
  for (int w = 0; w < kWriters; ++w)
    EXPECT_EQ(snap->txn_version("writer-" + std::to_string(w)), kEach);
}

// Another writer takes the version between our snapshot and our commit (before_commit).
struct Race {
  const DeltaLog& log;
  Commit theirs;
  bool done = false;
  void operator()(int64_t version) {
    if (done) return;
    done = true;
    util::Status s;
    ASSERT_EQ(log.try_commit(version, theirs, &s), DeltaLog::CommitResult::kCommitted);
  }
};

TEST(ReplacePartitions, AWinnerOnTheSamePartitionIsAConflict) {
  testing::TempDir dir;
  DeltaLog log(dir.path() / "t");
  util::Status s;
  ASSERT_TRUE(replace_partitions(log, replace({"2026-01-01"}, "a", 1), &s));
  auto race = std::make_shared<Race>(Race{log, {}});
  race->theirs.adds.push_back(file_in("2026-01-01"));
  auto r = replace({"2026-01-01"}, "a", 2);
  r.before_commit = [race](int64_t v) { (*race)(v); };
  auto out = replace_partitions(log, r, &s);
  ASSERT_TRUE(out) << s.message();
  EXPECT_EQ(out->kind, ReplaceOutcome::Kind::kConflict);
  EXPECT_EQ(log.latest_version(&s), 1) << "nothing committed on a conflict";
}

TEST(ReplacePartitions, AWinnerElsewhereIsRetriedOnTopOfIt) {
  testing::TempDir dir;
  DeltaLog log(dir.path() / "t");
  util::Status s;
  ASSERT_TRUE(replace_partitions(log, replace({"2026-01-01", "2026-01-02"}, "a", 1), &s));
  auto race = std::make_shared<Race>(Race{log, {}});
  race->theirs.adds.push_back(file_in("2026-01-02"));
  auto r = replace({"2026-01-01"}, "a", 2);
  r.before_commit = [race](int64_t v) { (*race)(v); };
  auto out = replace_partitions(log, r, &s);
  ASSERT_TRUE(out) << s.message();
  EXPECT_EQ(out->kind, ReplaceOutcome::Kind::kCommitted);
  EXPECT_EQ(out->version, 2);
  EXPECT_EQ(out->attempts, 2);
  auto snap = log.snapshot(std::nullopt, &s);
  EXPECT_EQ(snap->files.size(), 3u) << "their file in 2026-01-02 survives";
}

TEST(ReplacePartitions, AWinnerCarryingOurTxnMeansTheWorkIsDone) {
  testing::TempDir dir;
  DeltaLog log(dir.path() / "t");
  util::Status s;
  ASSERT_TRUE(replace_partitions(log, replace({"2026-01-01"}, "a", 1), &s));
  auto race = std::make_shared<Race>(Race{log, {}});
  race->theirs.adds.push_back(file_in("2026-01-01"));
  race->theirs.txns.push_back({"a", 2, 0});
  auto r = replace({"2026-01-01"}, "a", 2);
  r.before_commit = [race](int64_t v) { (*race)(v); };
  auto out = replace_partitions(log, r, &s);
  ASSERT_TRUE(out) << s.message();
  EXPECT_EQ(out->kind, ReplaceOutcome::Kind::kAlreadyApplied);
  EXPECT_EQ(log.latest_version(&s), 1);
}

}  // namespace
}  // namespace ocppgw::delta
