// delta/data_file.hpp: one Parquet data file of a Delta table, written through Arrow/Parquet
// C++ (zstd, bounded row groups), with the per-file statistics Delta keeps in the add action
// (numRecords, minValues, maxValues, nullCount), and read back for the write-audit-publish
// audit. Not thread-safe; one builder per file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "delta/schema.hpp"
#include "util/status.hpp"

namespace arrow {
class ArrayBuilder;
}

namespace ocppgw::delta {

struct WriteOptions {
  int64_t rows_per_row_group = 64 * 1024;
};

struct WrittenFile {
  int64_t size = 0;
  int64_t rows = 0;
  nlohmann::json stats;  // Delta's stats object; the add action carries it as a string
};

// Rows are appended column by column in the order of `columns`: one append_* per column per row.
class DataFileBuilder {
 public:
  explicit DataFileBuilder(std::vector<Column> columns);
  ~DataFileBuilder();
  DataFileBuilder(const DataFileBuilder&) = delete;
  DataFileBuilder& operator=(const DataFileBuilder&) = delete;

  void append_null(size_t column);
  void append_long(size_t column, int64_t value);
  void append_double(size_t column, double value);
  void append_string(size_t column, std::string_view value);
  void append_bool(size_t column, bool value);
  void append_timestamp_ms(size_t column, int64_t epoch_ms);
  void append_date(size_t column, int32_t days_since_epoch);

  // Rows complete so far (the length of the first column).
  int64_t rows() const;
  const std::vector<Column>& columns() const { return columns_; }

  // Writes everything appended to `path` (created; fsynced) and resets the builder.
  std::optional<WrittenFile> write(const std::filesystem::path& path, const WriteOptions& options,
                                   util::Status* status);

 private:
  struct ColumnStats;
  std::vector<Column> columns_;
  std::vector<std::unique_ptr<arrow::ArrayBuilder>> builders_;
  std::vector<ColumnStats> stats_;
};

// What the audit needs from a written file, read back from the file itself.
struct DataFileScan {
  int64_t rows = 0;
  std::vector<int64_t> null_counts;  // per column of the file's schema, in order
  std::vector<std::string> column_names;
  // One entry per row: the values of the requested key columns, joined by '\x1f'.
  std::vector<std::string> keys;
};

std::optional<DataFileScan> scan_data_file(const std::filesystem::path& path,
                                           const std::vector<std::string>& key_columns,
                                           util::Status* status);

}  // namespace ocppgw::delta
