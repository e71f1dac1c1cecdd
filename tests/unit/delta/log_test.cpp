// tests/unit/delta/log_test.cpp: commit files, their actions, snapshots and checkpoints.
#include "delta/log.hpp"

#include <gtest/gtest.h>

#include "delta/data_file.hpp"
#include "delta/fs.hpp"
#include "tests/unit/storage/temp_dir.hpp"

namespace ocppgw::delta {
namespace {

Commit sample_commit() {
  Commit c;
  c.protocol = Protocol{};
  c.metadata = Metadata{"id-1", "t", R"({"type":"struct","fields":[]})", {"day"}, {}, 5};
  c.txns.push_back({"app", 3, 9});
  c.adds.push_back({"day=2026-01-01/a.parquet",
                    {{"day", "2026-01-01"}},
                    10,
                    11,
                    true,
                    R"({"numRecords":1})",
                    {}});
  c.removes.push_back({"day=2025-12-31/b.parquet", 12, true, {{"day", std::nullopt}}, 20});
  c.commit_info = {{"timestamp", 13}, {"operation", "WRITE"}};
  return c;
}

TEST(DeltaLog, CommitFileIsOneJsonActionPerLineAndParsesBack) {
  const std::string text = serialize_commit(sample_commit());
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 6);
  EXPECT_EQ(text.rfind("{\"commitInfo\"", 0), 0u) << "commitInfo comes first";
  util::Status s;
  auto c = parse_commit(text, &s);
  ASSERT_TRUE(c) << s.message();
  ASSERT_TRUE(c->metadata);
  EXPECT_EQ(c->metadata->partition_columns, std::vector<std::string>{"day"});
  ASSERT_EQ(c->adds.size(), 1u);
  EXPECT_EQ(c->adds[0].partition_values.at("day"), "2026-01-01");
  ASSERT_EQ(c->removes.size(), 1u);
  EXPECT_FALSE(c->removes[0].partition_values.at("day").has_value()) << "null partition value";
  ASSERT_EQ(c->txns.size(), 1u);
  EXPECT_EQ(c->txns[0].version, 3);
}

TEST(DeltaLog, AVersionIsCreatedOnceOnly) {
  testing::TempDir dir;
  DeltaLog log(dir.path() / "t");
  util::Status s;
  EXPECT_EQ(log.latest_version(&s), -1);
  EXPECT_EQ(log.try_commit(0, sample_commit(), &s), DeltaLog::CommitResult::kCommitted);
  Commit other;
  other.commit_info = {{"timestamp", 99}};
  EXPECT_EQ(log.try_commit(0, other, &s), DeltaLog::CommitResult::kVersionTaken);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(read_file(log.commit_path(0), &s), serialize_commit(sample_commit()));
  EXPECT_EQ(log.latest_version(&s), 0);
  // No temporary file is left in the log folder.
  int entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(log.log_dir()))
    ++entries;
  EXPECT_EQ(entries, 1);
}

TEST(DeltaLog, SnapshotReplaysAddsRemovesAndTxns) {
  testing::TempDir dir;
  DeltaLog log(dir.path() / "t");
  util::Status s;
  ASSERT_EQ(log.try_commit(0, sample_commit(), &s), DeltaLog::CommitResult::kCommitted);
  Commit second;
  second.removes.push_back({"day=2026-01-01/a.parquet", 20, true, {{"day", "2026-01-01"}}, 10});
  second.adds.push_back(
      {"day=2026-01-01/c.parquet", {{"day", "2026-01-01"}}, 30, 21, true, "", {}});
  second.txns.push_back({"app", 4, 22});
  ASSERT_EQ(log.try_commit(1, second, &s), DeltaLog::CommitResult::kCommitted);

  auto now = log.snapshot(std::nullopt, &s);
  ASSERT_TRUE(now) << s.message();
  EXPECT_EQ(now->version, 1);
  ASSERT_EQ(now->files.size(), 1u);
  EXPECT_TRUE(now->files.count("day=2026-01-01/c.parquet"));
  EXPECT_TRUE(now->tombstones.count("day=2026-01-01/a.parquet"));
  EXPECT_EQ(now->txn_version("app"), 4);

  auto then = log.snapshot(0, &s);
  ASSERT_TRUE(then) << s.message();
  EXPECT_TRUE(then->files.count("day=2026-01-01/a.parquet")) << "time travel to version 0";
  EXPECT_EQ(then->txn_version("app"), 3);
  EXPECT_FALSE(log.snapshot(5, &s));
}

TEST(DeltaLog, ATableNeedingNewerProtocolIsRefused) {
  testing::TempDir dir;
  DeltaLog log(dir.path() / "t");
  Commit c = sample_commit();
  c.protocol = Protocol{3, 7};
  util::Status s;
  ASSERT_EQ(log.try_commit(0, c, &s), DeltaLog::CommitResult::kCommitted);
  EXPECT_FALSE(log.snapshot(std::nullopt, &s));
  EXPECT_NE(s.message().find("writer 7"), std::string::npos) << s.message();
}

TEST(DeltaLog, CheckpointHoldsOneRowPerActionAndLastCheckpointPointsAtIt) {
  testing::TempDir dir;
  DeltaLog log(dir.path() / "t");
  util::Status s;
  ASSERT_EQ(log.try_commit(0, sample_commit(), &s), DeltaLog::CommitResult::kCommitted);
  auto snap = log.snapshot(std::nullopt, &s);
  ASSERT_TRUE(snap) << s.message();
  ASSERT_TRUE(log.write_checkpoint(*snap).ok());
  // protocol + metaData + txn + add + remove (tombstone)
  auto scan = scan_data_file(log.log_dir() / (version_name(0) + ".checkpoint.parquet"), {}, &s);
  ASSERT_TRUE(scan) << s.message();
  EXPECT_EQ(scan->rows, 5);
  EXPECT_EQ(scan->column_names,
            (std::vector<std::string>{"txn", "add", "remove", "metaData", "protocol"}));
  const auto last = nlohmann::json::parse(read_file(log.log_dir() / "_last_checkpoint", &s));
  EXPECT_EQ(last["version"], 0);
  EXPECT_EQ(last["size"], 5);
  EXPECT_EQ(last["numOfAddFiles"], 1);
}

// Sets a file's modification time `age` into the past (the clean-up decides by it).
void age(const std::filesystem::path& p, std::chrono::hours age) {
  std::filesystem::last_write_time(p, std::filesystem::file_time_type::clock::now() - age);
}

// Versions 0..n-1, each adding one file; a checkpoint at every 10th.
void commit_versions(const DeltaLog& log, int n) {
  util::Status s;
  for (int v = 0; v < n; ++v) {
    Commit c = v == 0 ? sample_commit() : Commit{};
    c.adds = {{"f" + std::to_string(v) + ".parquet", {}, 1, 1, true, "", {{"v", "x"}}}};
    c.txns = {{"app", v, 0}};
    ASSERT_EQ(log.try_commit(v, c, &s), DeltaLog::CommitResult::kCommitted) << s.message();
    auto snap = log.snapshot(std::nullopt, &s);
    ASSERT_TRUE(snap) << s.message();
    log.follow_up(*snap, std::chrono::hours(1000));
  }
}

TEST(DeltaLog, SnapshotStartsFromTheCheckpointAndEqualsTheFullReplay) {
  testing::TempDir dir;
  DeltaLog log(dir.path() / "t");
  commit_versions(log, 13);
  util::Status s;
  const auto full = log.snapshot(std::nullopt, &s);
  ASSERT_TRUE(full) << s.message();
  ASSERT_TRUE(std::filesystem::exists(log.log_dir() / (version_name(10) + ".checkpoint.parquet")));
  // With the commits the checkpoint covers gone, the same snapshot comes from the checkpoint.
  for (int v = 0; v <= 9; ++v) std::filesystem::remove(log.commit_path(v));
  const auto from_cp = log.snapshot(std::nullopt, &s);
  ASSERT_TRUE(from_cp) << s.message();
  EXPECT_EQ(from_cp->version, 12);
  ASSERT_EQ(from_cp->files.size(), full->files.size());
  for (const auto& [path, f] : full->files) {
    ASSERT_TRUE(from_cp->files.count(path)) << path;
    EXPECT_EQ(from_cp->files.at(path).tags, f.tags);
    EXPECT_EQ(from_cp->files.at(path).partition_values, f.partition_values);
  }
  EXPECT_EQ(from_cp->tombstones.size(), full->tombstones.size());
  EXPECT_EQ(from_cp->txn_version("app"), 12);
  ASSERT_TRUE(from_cp->metadata);
  EXPECT_EQ(from_cp->metadata->schema_string, full->metadata->schema_string);
  EXPECT_EQ(from_cp->metadata->partition_columns, full->metadata->partition_columns);
  // A version before the checkpoint is gone with its commits, and the error says so.
  EXPECT_FALSE(log.snapshot(5, &s));
  EXPECT_NE(s.message().find("gone"), std::string::npos) << s.message();
  s = {};
  EXPECT_EQ(log.oldest_version(&s), 10);
}

TEST(DeltaLog, CleanupDeletesOnlyWhatNoVersionWithinTheRetentionNeeds) {
  testing::TempDir dir;
  DeltaLog log(dir.path() / "t");
  commit_versions(log, 25);  // checkpoints at 10 and 20
  util::Status s;
  // Versions 0..14 are old; 15.. are recent. Only a checkpoint below which every commit is
  // expired may become the log's start: 10 (20 has recent commits below it).
  for (int v = 0; v <= 14; ++v) age(log.commit_path(v), std::chrono::hours(48));
  auto deleted = log.cleanup_expired_logs(std::chrono::hours(24), &s);
  ASSERT_TRUE(deleted) << s.message();
  EXPECT_EQ(*deleted, 10);  // commits 0..9 (no checkpoint below 10)
  EXPECT_FALSE(std::filesystem::exists(log.commit_path(9)));
  EXPECT_TRUE(std::filesystem::exists(log.commit_path(10)));
  EXPECT_EQ(log.oldest_version(&s), 10);
  for (int v = 10; v <= 24; ++v) EXPECT_TRUE(log.snapshot(v, &s)) << v << ": " << s.message();
  // Once 10..19 are old too, 20 becomes the start.
  for (int v = 15; v <= 19; ++v) age(log.commit_path(v), std::chrono::hours(48));
  deleted = log.cleanup_expired_logs(std::chrono::hours(24), &s);
  ASSERT_TRUE(deleted) << s.message();
  EXPECT_EQ(*deleted, 11);  // commits 10..19 and the checkpoint of 10
  EXPECT_EQ(log.oldest_version(&s), 20);
  auto snap = log.snapshot(std::nullopt, &s);
  ASSERT_TRUE(snap) << s.message();
  EXPECT_EQ(snap->files.size(), 25u) << "one file per version";
}

}  // namespace
}  // namespace ocppgw::delta
