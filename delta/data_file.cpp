// delta/data_file.cpp
#include "delta/data_file.hpp"

#include <cmath>

#include <arrow/api.h>
#include <arrow/io/file.h>
#include <parquet/arrow/reader.h>
#include <parquet/arrow/writer.h>
#include <parquet/properties.h>

#include "delta/fs.hpp"
#include "util/time.hpp"

namespace ocppgw::delta {

namespace {

// Delta readers compare string statistics by prefix; long values are cut at a code point
// boundary. A cut value is still a valid lower bound, but not an upper one (see max below).
constexpr size_t kStringStatsPrefix = 32;

std::string utf8_prefix(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return std::string(s);
  size_t end = max_bytes;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
  return std::string(s.substr(0, end));
}

std::string date_text(int32_t days) {
  // civil_from_days (Howard Hinnant's algorithm, public domain description).
  int64_t z = static_cast<int64_t>(days) + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t y = yoe + era * 400;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const int64_t m = mp < 10 ? mp + 3 : mp - 9;
  if (m <= 2) ++y;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04lld-%02lld-%02lld", static_cast<long long>(y),
                static_cast<long long>(m), static_cast<long long>(d));
  return buf;
}

util::Status arrow_error(const std::string& what, const arrow::Status& s) {
  return util::Status::error(what + ": " + s.ToString());
}

// Appends one value of a key column as text ('\x1e' for null). The key column types get a
// direct read; any other type goes through Arrow's scalar formatting (slower, same result).
void append_key_value(const arrow::Array& a, int64_t i, std::string* out) {
  if (a.IsNull(i)) {
    *out += '\x1e';
    return;
  }
  switch (a.type_id()) {
    case arrow::Type::STRING:
      *out += static_cast<const arrow::StringArray&>(a).GetView(i);
      return;
    case arrow::Type::INT64:
      *out += std::to_string(static_cast<const arrow::Int64Array&>(a).Value(i));
      return;
    case arrow::Type::TIMESTAMP:
      *out += std::to_string(static_cast<const arrow::TimestampArray&>(a).Value(i));
      return;
    default: {
      auto scalar = a.GetScalar(i);
      *out += scalar.ok() ? (*scalar)->ToString() : std::string("\x1e");
    }
  }
}

}  // namespace

// Running min/max/null count of one column; min/max are kept as the typed value and turned
// into Delta's JSON form when the file is written.
struct DataFileBuilder::ColumnStats {
  int64_t nulls = 0;
  bool any = false;
  int64_t min_i = 0, max_i = 0;  // long, timestamp (ms), date (days)
  double min_d = 0, max_d = 0;
  std::string min_s, max_s;
  bool max_s_exact = true;  // false once the longest value exceeds the stats prefix

  void reset() { *this = ColumnStats{}; }
  void integer(int64_t v) {
    if (!any || v < min_i) min_i = v;
    if (!any || v > max_i) max_i = v;
    any = true;
  }
  void real(double v) {
    if (std::isnan(v)) return;  // NaN has no order; the bounds describe the other values
    if (!any || v < min_d) min_d = v;
    if (!any || v > max_d) max_d = v;
    any = true;
  }
  void text(std::string_view v) {
    if (!any || v < min_s) min_s = std::string(v);
    if (!any || v > max_s) max_s = std::string(v);
    any = true;
  }
};

DataFileBuilder::DataFileBuilder(std::vector<Column> columns) : columns_(std::move(columns)) {
  TableSchema schema{columns_, {}};
  auto arrow_schema = schema.arrow_data_schema();
  for (const auto& field : arrow_schema->fields()) {
    std::unique_ptr<arrow::ArrayBuilder> b;
    // Cannot fail for the primitive types of schema.cpp.
    (void)arrow::MakeBuilder(arrow::default_memory_pool(), field->type(), &b);
    builders_.push_back(std::move(b));
  }
  stats_.resize(columns_.size());
}

DataFileBuilder::~DataFileBuilder() = default;

// The appends below cannot fail except on allocation failure, which Arrow reports as a Status;
// an out-of-memory process is not recoverable here, so those statuses are not propagated.
void DataFileBuilder::append_null(size_t c) {
  (void)builders_[c]->AppendNull();
  ++stats_[c].nulls;
}
void DataFileBuilder::append_long(size_t c, int64_t v) {
  (void)static_cast<arrow::Int64Builder*>(builders_[c].get())->Append(v);
  stats_[c].integer(v);
}
void DataFileBuilder::append_double(size_t c, double v) {
  (void)static_cast<arrow::DoubleBuilder*>(builders_[c].get())->Append(v);
  stats_[c].real(v);
}
void DataFileBuilder::append_string(size_t c, std::string_view v) {
  (void)static_cast<arrow::StringBuilder*>(builders_[c].get())->Append(v);
  stats_[c].text(v);
}
void DataFileBuilder::append_bool(size_t c, bool v) {
  (void)static_cast<arrow::BooleanBuilder*>(builders_[c].get())->Append(v);
}
void DataFileBuilder::append_timestamp_ms(size_t c, int64_t ms) {
  (void)static_cast<arrow::TimestampBuilder*>(builders_[c].get())->Append(ms * 1000);
  stats_[c].integer(ms);
}
void DataFileBuilder::append_date(size_t c, int32_t days) {
  (void)static_cast<arrow::Date32Builder*>(builders_[c].get())->Append(days);
  stats_[c].integer(days);
}

int64_t DataFileBuilder::rows() const { return builders_.empty() ? 0 : builders_[0]->length(); }

std::optional<WrittenFile> DataFileBuilder::write(const std::filesystem::path& path,
                                                  const WriteOptions& options,
                                                  util::Status* status) {
  WrittenFile out;
  out.rows = rows();
  nlohmann::json mins = nlohmann::json::object(), maxs = nlohmann::json::object(),
                 nulls = nlohmann::json::object();
  arrow::ArrayVector arrays;
  for (size_t c = 0; c < columns_.size(); ++c) {
    if (builders_[c]->length() != out.rows) {
      *status = util::Status::error("column " + columns_[c].name + " has " +
                                    std::to_string(builders_[c]->length()) + " values, not " +
                                    std::to_string(out.rows));
      return std::nullopt;
    }
    std::shared_ptr<arrow::Array> array;
    if (auto s = builders_[c]->Finish(&array); !s.ok()) {
      *status = arrow_error("finishing column " + columns_[c].name, s);
      return std::nullopt;
    }
    arrays.push_back(std::move(array));
    const ColumnStats& st = stats_[c];
    const std::string& name = columns_[c].name;
    nulls[name] = st.nulls;
    if (!st.any) continue;
    switch (columns_[c].type) {
      case ColumnType::kLong:
        mins[name] = st.min_i;
        maxs[name] = st.max_i;
        break;
      case ColumnType::kDouble:
        mins[name] = st.min_d;
        maxs[name] = st.max_d;
        break;
      case ColumnType::kString:
        mins[name] = utf8_prefix(st.min_s, kStringStatsPrefix);
        // A cut maximum would be below the real one, so readers could skip a file that
        // holds a match: a long maximum is left out instead.
        if (st.max_s.size() <= kStringStatsPrefix) maxs[name] = st.max_s;
        break;
      case ColumnType::kTimestamp:
        mins[name] = util::format_rfc3339_ms(st.min_i);
        maxs[name] = util::format_rfc3339_ms(st.max_i);
        break;
      case ColumnType::kDate:
        mins[name] = date_text(static_cast<int32_t>(st.min_i));
        maxs[name] = date_text(static_cast<int32_t>(st.max_i));
        break;
      case ColumnType::kBoolean:
        break;  // Delta keeps no bounds for booleans
    }
  }
  for (auto& st : stats_) st.reset();
  out.stats = {
      {"numRecords", out.rows}, {"minValues", mins}, {"maxValues", maxs}, {"nullCount", nulls}};

  TableSchema schema{columns_, {}};
  auto table = arrow::Table::Make(schema.arrow_data_schema(), arrays, out.rows);
  auto file = arrow::io::FileOutputStream::Open(path.string());
  if (!file.ok()) {
    *status = arrow_error("creating " + path.string(), file.status());
    return std::nullopt;
  }
  auto props = parquet::WriterProperties::Builder()
                   .compression(parquet::Compression::ZSTD)
                   ->max_row_group_length(options.rows_per_row_group)
                   ->created_by("ocppgw delta writer")
                   ->build();
  if (auto s = parquet::arrow::WriteTable(*table, arrow::default_memory_pool(), *file,
                                          options.rows_per_row_group, props);
      !s.ok()) {
    *status = arrow_error("writing " + path.string(), s);
    return std::nullopt;
  }
  if (auto s = (*file)->Close(); !s.ok()) {
    *status = arrow_error("closing " + path.string(), s);
    return std::nullopt;
  }
  if (auto s = fsync_file(path); !s.ok()) {
    *status = s;
    return std::nullopt;
  }
  std::error_code ec;
  out.size = static_cast<int64_t>(std::filesystem::file_size(path, ec));
  if (ec) {
    *status = util::Status::error("size of " + path.string() + ": " + ec.message());
    return std::nullopt;
  }
  return out;
}

std::optional<DataFileScan> scan_data_file(const std::filesystem::path& path,
                                           const std::vector<std::string>& key_columns,
                                           util::Status* status) {
  auto input = arrow::io::ReadableFile::Open(path.string());
  if (!input.ok()) {
    *status = arrow_error("opening " + path.string(), input.status());
    return std::nullopt;
  }
  auto reader = parquet::arrow::OpenFile(*input, arrow::default_memory_pool());
  if (!reader.ok()) {
    *status = arrow_error("reading " + path.string(), reader.status());
    return std::nullopt;
  }
  auto read = (*reader)->ReadTable();
  if (!read.ok()) {
    *status = arrow_error("reading " + path.string(), read.status());
    return std::nullopt;
  }
  const std::shared_ptr<arrow::Table> table = *read;
  DataFileScan scan;
  scan.rows = table->num_rows();
  for (int i = 0; i < table->num_columns(); ++i) {
    scan.column_names.push_back(table->field(i)->name());
    scan.null_counts.push_back(table->column(i)->null_count());
  }
  if (key_columns.empty()) return scan;
  scan.keys.assign(static_cast<size_t>(scan.rows), std::string());
  for (size_t k = 0; k < key_columns.size(); ++k) {
    auto column = table->GetColumnByName(key_columns[k]);
    if (!column) {
      *status = util::Status::error(path.string() + " has no key column " + key_columns[k]);
      return std::nullopt;
    }
    size_t row = 0;
    for (const auto& chunk : column->chunks())
      for (int64_t i = 0; i < chunk->length(); ++i, ++row) {
        if (k > 0) scan.keys[row] += '\x1f';
        append_key_value(*chunk, i, &scan.keys[row]);
      }
  }
  return scan;
}

}  // namespace ocppgw::delta
