// analytics/delta_tables.hpp: which analytics tables the Delta mirror writes, with their Delta
// schema, partitioning, primary key and the query that reads them (docs/delta.md has the list).
// Daily partitions where a table has a natural day (sessions by start day, events by event
// day, ...); small state tables are written whole.
#pragma once

#include <string>
#include <vector>

#include "delta/schema.hpp"

namespace ocppgw::analytics {

struct MirroredTable {
  std::string name;  // the Delta table's folder under the mirror root
  delta::TableSchema schema;
  // Selects the partition value (text; unused for a whole table) as column 0, then the data
  // columns in the order of schema.data_columns(), ordered by partition then key.
  std::string select_sql;
  std::vector<std::string> key_columns;  // unique per row: audited before every commit
};

const std::vector<MirroredTable>& mirrored_tables();

}  // namespace ocppgw::analytics
