// tests/unit/delta/data_file_test.cpp: Parquet data files through Arrow, their Delta stats, and
// the read-back the audit relies on.
#include "delta/data_file.hpp"

#include <gtest/gtest.h>

#include "tests/unit/storage/temp_dir.hpp"

namespace ocppgw::delta {
namespace {

std::vector<Column> columns() {
  return {{"id", ColumnType::kString, false}, {"n", ColumnType::kLong},
          {"x", ColumnType::kDouble},         {"ts", ColumnType::kTimestamp},
          {"day", ColumnType::kDate},         {"ok", ColumnType::kBoolean}};
}

TEST(DataFile, StatsDescribeTheRowsWritten) {
  testing::TempDir dir;
  DataFileBuilder b(columns());
  b.append_string(0, "b");
  b.append_long(1, 7);
  b.append_double(2, 2.5);
  b.append_timestamp_ms(3, 1767225600123);  // 2026-01-01T00:00:00.123Z
  b.append_date(4, 20454);                  // 2026-01-01
  b.append_bool(5, true);
  b.append_string(0, "a");
  b.append_null(1);
  b.append_double(2, -1.0);
  b.append_timestamp_ms(3, 1767225600000);
  b.append_date(4, 20455);
  b.append_null(5);
  util::Status s;
  auto w = b.write(dir.path() / "f.parquet", {}, &s);
  ASSERT_TRUE(w) << s.message();
  EXPECT_EQ(w->rows, 2);
  EXPECT_GT(w->size, 0);
  EXPECT_EQ(w->stats["numRecords"], 2);
  EXPECT_EQ(w->stats["minValues"]["id"], "a");
  EXPECT_EQ(w->stats["maxValues"]["id"], "b");
  EXPECT_EQ(w->stats["minValues"]["n"], 7);
  EXPECT_EQ(w->stats["nullCount"]["n"], 1);
  EXPECT_EQ(w->stats["minValues"]["x"], -1.0);
  EXPECT_EQ(w->stats["minValues"]["ts"], "2026-01-01T00:00:00.000Z");
  EXPECT_EQ(w->stats["maxValues"]["ts"], "2026-01-01T00:00:00.123Z");
  EXPECT_EQ(w->stats["minValues"]["day"], "2026-01-01");
  EXPECT_EQ(w->stats["maxValues"]["day"], "2026-01-02");
  EXPECT_FALSE(w->stats["minValues"].contains("ok"));
  EXPECT_EQ(w->stats["nullCount"]["ok"], 1);
  EXPECT_EQ(b.rows(), 0) << "write resets the builder";

  auto scan = scan_data_file(dir.path() / "f.parquet", {"id", "n"}, &s);
  ASSERT_TRUE(scan) << s.message();
  EXPECT_EQ(scan->rows, 2);
  ASSERT_EQ(scan->column_names.size(), 6u);
  EXPECT_EQ(scan->null_counts[1], 1);
  EXPECT_EQ(scan->null_counts[0], 0);
  ASSERT_EQ(scan->keys.size(), 2u);
  EXPECT_NE(scan->keys[0], scan->keys[1]);
}

TEST(DataFile, LongStringMaximumIsLeftOutRatherThanCut) {
  testing::TempDir dir;
  DataFileBuilder b({{"s", ColumnType::kString}});
  b.append_string(0, "\xc3\xa9t\xc3\xa9");  // "été": unicode, the maximum here
  b.append_string(0, std::string(40, 'a'));
  util::Status s;
  auto w = b.write(dir.path() / "s.parquet", {}, &s);
  ASSERT_TRUE(w) << s.message();
  EXPECT_EQ(w->stats["minValues"]["s"], std::string(32, 'a')) << "a cut minimum is still a bound";
  EXPECT_EQ(w->stats["maxValues"]["s"], "\xc3\xa9t\xc3\xa9");

  b.append_string(0, "b");
  b.append_string(0, std::string(40, 'z'));
  w = b.write(dir.path() / "s2.parquet", {}, &s);
  ASSERT_TRUE(w) << s.message();
  EXPECT_FALSE(w->stats["maxValues"].contains("s")) << "a cut maximum would not be a bound";
}

TEST(DataFile, ManyRowGroupsReadBackWhole) {
  testing::TempDir dir;
  DataFileBuilder b({{"k", ColumnType::kLong, false}});
  for (int64_t i = 0; i < 10000; ++i) b.append_long(0, i);
  util::Status s;
  auto w = b.write(dir.path() / "g.parquet", WriteOptions{1000}, &s);
  ASSERT_TRUE(w) << s.message();
  auto scan = scan_data_file(dir.path() / "g.parquet", {"k"}, &s);
  ASSERT_TRUE(scan) << s.message();
  EXPECT_EQ(scan->rows, 10000);
  EXPECT_EQ(scan->keys.front(), "0");
  EXPECT_EQ(scan->keys.back(), "9999");
}

TEST(DataFile, UnequalColumnsAreRefused) {
  testing::TempDir dir;
  DataFileBuilder b({{"a", ColumnType::kLong}, {"b", ColumnType::kLong}});
  b.append_long(0, 1);
  util::Status s;
  EXPECT_FALSE(b.write(dir.path() / "bad.parquet", {}, &s));
  EXPECT_FALSE(s.ok());
}

}  // namespace
}  // namespace ocppgw::delta
