// delta/schema.cpp
#include "delta/schema.hpp"

#include <algorithm>

#include <arrow/api.h>
#include <nlohmann/json.hpp>

namespace ocppgw::delta {

const char* delta_type_name(ColumnType type) {
  switch (type) {
    case ColumnType::kLong:
      return "long";
    case ColumnType::kDouble:
      return "double";
    case ColumnType::kString:
      return "string";
    case ColumnType::kBoolean:
      return "boolean";
    case ColumnType::kTimestamp:
      return "timestamp";
    case ColumnType::kDate:
      return "date";
  }
  return "string";
}

namespace {
std::shared_ptr<arrow::DataType> arrow_type(ColumnType type) {
  switch (type) {
    case ColumnType::kLong:
      return arrow::int64();
    case ColumnType::kDouble:
      return arrow::float64();
    case ColumnType::kString:
      return arrow::utf8();
    case ColumnType::kBoolean:
      return arrow::boolean();
    case ColumnType::kTimestamp:
      return arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");
    case ColumnType::kDate:
      return arrow::date32();
  }
  return arrow::utf8();
}
}  // namespace

const Column* TableSchema::find(const std::string& name) const {
  auto it =
      std::find_if(columns.begin(), columns.end(), [&](const Column& c) { return c.name == name; });
  return it == columns.end() ? nullptr : &*it;
}

bool TableSchema::is_partition_column(const std::string& name) const {
  return std::find(partition_columns.begin(), partition_columns.end(), name) !=
         partition_columns.end();
}

std::string TableSchema::delta_schema_string() const {
  nlohmann::json fields = nlohmann::json::array();
  for (const Column& c : columns)
    fields.push_back({{"name", c.name},
                      {"type", delta_type_name(c.type)},
                      {"nullable", c.nullable},
                      {"metadata", nlohmann::json::object()}});
  return nlohmann::json{{"type", "struct"}, {"fields", fields}}.dump();
}

std::vector<Column> TableSchema::data_columns() const {
  std::vector<Column> out;
  for (const Column& c : columns)
    if (!is_partition_column(c.name)) out.push_back(c);
  return out;
}

std::shared_ptr<arrow::Schema> TableSchema::arrow_data_schema() const {
  arrow::FieldVector fields;
  for (const Column& c : data_columns())
    fields.push_back(arrow::field(c.name, arrow_type(c.type), c.nullable));
  return arrow::schema(std::move(fields));
}

}  // namespace ocppgw::delta
