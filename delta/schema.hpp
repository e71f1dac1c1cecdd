// delta/schema.hpp: the columns of a Delta table, as Delta's schema JSON (the metaData
// action's schemaString) and as the Arrow schema its Parquet data files are written with.
// Only the types the mirrored tables need; docs/delta.md lists how each maps.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace arrow {
class Schema;
}

namespace ocppgw::delta {

enum class ColumnType {
  kLong,       // int64
  kDouble,     // float64
  kString,     // UTF-8
  kBoolean,    //
  kTimestamp,  // UTC, microseconds (Delta "timestamp": adjusted to UTC)
  kDate,       // days since the epoch (Delta "date")
};

struct Column {
  std::string name;
  ColumnType type;
  bool nullable = true;
};

struct TableSchema {
  std::vector<Column> columns;
  // Partition columns by name, in order; each is also in `columns`. Delta keeps partition
  // values in the log, not in the data files, so the data files hold the other columns only.
  std::vector<std::string> partition_columns;

  const Column* find(const std::string& name) const;
  bool is_partition_column(const std::string& name) const;
  // Delta's schemaString: {"type":"struct","fields":[{"name","type","nullable","metadata"}]}.
  std::string delta_schema_string() const;
  // The columns stored in the data files (all but the partition columns).
  std::vector<Column> data_columns() const;
  std::shared_ptr<arrow::Schema> arrow_data_schema() const;
};

// Delta's primitive type name ("long", "timestamp", ...).
const char* delta_type_name(ColumnType type);

}  // namespace ocppgw::delta
