// delta/checkpoint.cpp: DeltaLog::write_checkpoint. A checkpoint is one Parquet file holding
// the snapshot's actions, one per row, each row with exactly one non-null action column
// (the protocol's "Checkpoint Schema"; classic single-file naming, V1 spec).
#include <arrow/api.h>
#include <arrow/io/file.h>
#include <parquet/arrow/reader.h>
#include <parquet/arrow/writer.h>

#include "delta/fs.hpp"
#include "delta/log.hpp"

namespace ocppgw::delta {

namespace {

using arrow::field;

std::shared_ptr<arrow::DataType> string_map() { return arrow::map(arrow::utf8(), arrow::utf8()); }

std::shared_ptr<arrow::Schema> checkpoint_schema() {
  auto txn = arrow::struct_({field("appId", arrow::utf8()), field("version", arrow::int64()),
                             field("lastUpdated", arrow::int64())});
  auto add =
      arrow::struct_({field("path", arrow::utf8()), field("partitionValues", string_map()),
                      field("size", arrow::int64()), field("modificationTime", arrow::int64()),
                      field("dataChange", arrow::boolean()), field("stats", arrow::utf8()),
                      field("tags", string_map())});
  auto remove = arrow::struct_(
      {field("path", arrow::utf8()), field("deletionTimestamp", arrow::int64()),
       field("dataChange", arrow::boolean()), field("extendedFileMetadata", arrow::boolean()),
       field("partitionValues", string_map()), field("size", arrow::int64())});
  auto format = arrow::struct_({field("provider", arrow::utf8()), field("options", string_map())});
  auto metadata = arrow::struct_(
      {field("id", arrow::utf8()), field("name", arrow::utf8()),
       field("description", arrow::utf8()), field("format", format),
       field("schemaString", arrow::utf8()), field("partitionColumns", arrow::list(arrow::utf8())),
       field("configuration", string_map()), field("createdTime", arrow::int64())});
  auto protocol = arrow::struct_(
      {field("minReaderVersion", arrow::int32()), field("minWriterVersion", arrow::int32())});
  return arrow::schema({field("txn", txn), field("add", add), field("remove", remove),
                        field("metaData", metadata), field("protocol", protocol)});
}

// Builds one action column: Begin() starts a row whose action is in this column (children are
// filled through the typed accessors), Skip() a row whose action is in another column.
class ActionColumn {
 public:
  explicit ActionColumn(const std::shared_ptr<arrow::DataType>& type) {
    std::unique_ptr<arrow::ArrayBuilder> b;
    (void)arrow::MakeBuilder(arrow::default_memory_pool(), type, &b);
    builder_.reset(static_cast<arrow::StructBuilder*>(b.release()));
  }
  arrow::StructBuilder& Begin() {
    (void)builder_->Append();
    return *builder_;
  }
  void Skip() { (void)builder_->AppendNull(); }
  arrow::Status Finish(std::shared_ptr<arrow::Array>* out) { return builder_->Finish(out); }

 private:
  std::unique_ptr<arrow::StructBuilder> builder_;
};

template <typename B>
B* child(arrow::ArrayBuilder& parent, int i) {
  return static_cast<B*>(parent.child_builder(i).get());
}

void put(arrow::ArrayBuilder& s, int i, const std::string& v) {
  (void)child<arrow::StringBuilder>(s, i)->Append(v);
}
void put(arrow::ArrayBuilder& s, int i, int64_t v) {
  (void)child<arrow::Int64Builder>(s, i)->Append(v);
}
void put_bool(arrow::ArrayBuilder& s, int i, bool v) {
  (void)child<arrow::BooleanBuilder>(s, i)->Append(v);
}
void put_null(arrow::ArrayBuilder& s, int i) { (void)s.child_builder(i)->AppendNull(); }

template <typename Map>
void put_map(arrow::ArrayBuilder& s, int i, const Map& values) {
  auto* m = child<arrow::MapBuilder>(s, i);
  (void)m->Append();
  auto* keys = static_cast<arrow::StringBuilder*>(m->key_builder());
  auto* items = static_cast<arrow::StringBuilder*>(m->item_builder());
  for (const auto& [k, v] : values) {
    (void)keys->Append(k);
    if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::optional<std::string>>) {
      if (v)
        (void)items->Append(*v);
      else
        (void)items->AppendNull();
    } else {
      (void)items->Append(v);
    }
  }
}

// One value of a checkpoint column as the JSON the same action has in a commit file, whatever
// the writer's column order or extra fields (Spark's checkpoints have more than ours).
nlohmann::json to_json(const arrow::Array& array, int64_t i) {
  using nlohmann::json;
  if (array.IsNull(i)) return nullptr;
  switch (array.type_id()) {
    case arrow::Type::STRUCT: {
      const auto& s = static_cast<const arrow::StructArray&>(array);
      json out = json::object();
      for (int f = 0; f < s.num_fields(); ++f)
        out[s.struct_type()->field(f)->name()] = to_json(*s.field(f), i);
      return out;
    }
    case arrow::Type::MAP: {
      const auto& m = static_cast<const arrow::MapArray&>(array);
      json out = json::object();
      for (int64_t k = m.value_offset(i); k < m.value_offset(i) + m.value_length(i); ++k)
        out[to_json(*m.keys(), k).get<std::string>()] = to_json(*m.items(), k);
      return out;
    }
    case arrow::Type::LIST: {
      const auto& l = static_cast<const arrow::ListArray&>(array);
      json out = json::array();
      for (int64_t k = l.value_offset(i); k < l.value_offset(i) + l.value_length(i); ++k)
        out.push_back(to_json(*l.values(), k));
      return out;
    }
    case arrow::Type::STRING:
      return std::string(static_cast<const arrow::StringArray&>(array).GetView(i));
    case arrow::Type::LARGE_STRING:
      return std::string(static_cast<const arrow::LargeStringArray&>(array).GetView(i));
    case arrow::Type::BOOL:
      return static_cast<const arrow::BooleanArray&>(array).Value(i);
    case arrow::Type::INT32:
      return static_cast<const arrow::Int32Array&>(array).Value(i);
    case arrow::Type::INT64:
      return static_cast<const arrow::Int64Array&>(array).Value(i);
    default:
      return nullptr;  // stats_parsed and other typed extras: not used by this writer
  }
}

}  // namespace

std::optional<Commit> DeltaLog::read_checkpoint(const std::vector<std::filesystem::path>& parts,
                                                util::Status* status) const {
  Commit actions;
  for (const auto& part : parts) {
    auto fail = [&](const arrow::Status& s) {
      *status = util::Status::error("reading checkpoint " + part.string() + ": " + s.ToString());
      return std::nullopt;
    };
    auto input = arrow::io::ReadableFile::Open(part.string());
    if (!input.ok()) return fail(input.status());
    auto reader = parquet::arrow::OpenFile(*input, arrow::default_memory_pool());
    if (!reader.ok()) return fail(reader.status());
    auto read = (*reader)->ReadTable();
    if (!read.ok()) return fail(read.status());
    const auto table = (*read)->CombineChunks();
    if (!table.ok()) return fail(table.status());
    try {
      for (const char* kind : {"protocol", "metaData", "txn", "add", "remove"}) {
        auto column = (*table)->GetColumnByName(kind);
        if (!column || column->num_chunks() == 0) continue;
        const arrow::Array& a = *column->chunk(0);
        for (int64_t i = 0; i < a.length(); ++i)
          if (!a.IsNull(i)) parse_action(kind, to_json(a, i), actions);
      }
    } catch (const nlohmann::json::exception& e) {
      *status = util::Status::error("reading checkpoint " + part.string() + ": " + e.what());
      return std::nullopt;
    }
  }
  return actions;
}

util::Status DeltaLog::write_checkpoint(const Snapshot& snap) const {
  if (snap.version < 0 || !snap.metadata)
    return util::Status::error("no table to checkpoint at " + root_.string());
  const auto schema = checkpoint_schema();
  ActionColumn txn(schema->field(0)->type()), add(schema->field(1)->type()),
      remove(schema->field(2)->type()), meta(schema->field(3)->type()),
      protocol(schema->field(4)->type());
  ActionColumn* columns[] = {&txn, &add, &remove, &meta, &protocol};
  int64_t rows = 0;
  auto row_in = [&](ActionColumn& used) -> arrow::StructBuilder& {
    for (ActionColumn* c : columns)
      if (c != &used) c->Skip();
    ++rows;
    return used.Begin();
  };

  {
    auto& p = row_in(protocol);
    (void)child<arrow::Int32Builder>(p, 0)->Append(snap.protocol.min_reader_version);
    (void)child<arrow::Int32Builder>(p, 1)->Append(snap.protocol.min_writer_version);
  }
  {
    const Metadata& m = *snap.metadata;
    auto& s = row_in(meta);
    put(s, 0, m.id);
    put(s, 1, m.name);
    put_null(s, 2);
    auto* format = child<arrow::StructBuilder>(s, 3);
    (void)format->Append();
    put(*format, 0, std::string("parquet"));
    put_map(*format, 1, std::map<std::string, std::string>{});
    put(s, 4, m.schema_string);
    auto* cols = child<arrow::ListBuilder>(s, 5);
    (void)cols->Append();
    for (const auto& c : m.partition_columns)
      (void)static_cast<arrow::StringBuilder*>(cols->value_builder())->Append(c);
    put_map(s, 6, m.configuration);
    put(s, 7, m.created_time);
  }
  for (const auto& [app, t] : snap.txns) {
    auto& s = row_in(txn);
    put(s, 0, t.app_id);
    put(s, 1, t.version);
    put(s, 2, t.last_updated);
  }
  for (const auto& [path, a] : snap.files) {
    auto& s = row_in(add);
    put(s, 0, a.path);
    put_map(s, 1, a.partition_values);
    put(s, 2, a.size);
    put(s, 3, a.modification_time);
    put_bool(s, 4, a.data_change);
    put(s, 5, a.stats);
    put_map(s, 6, a.tags);
  }
  // Tombstones are kept until vacuum can delete their files; readers use them only for that.
  for (const auto& [path, r] : snap.tombstones) {
    auto& s = row_in(remove);
    put(s, 0, r.path);
    put(s, 1, r.deletion_timestamp);
    put_bool(s, 2, r.data_change);
    put_bool(s, 3, true);
    put_map(s, 4, r.partition_values);
    put(s, 5, r.size);
  }

  arrow::ArrayVector arrays;
  for (ActionColumn* c : columns) {
    std::shared_ptr<arrow::Array> a;
    if (auto s = c->Finish(&a); !s.ok()) return util::Status::error("checkpoint: " + s.ToString());
    arrays.push_back(std::move(a));
  }
  auto table = arrow::Table::Make(schema, arrays, rows);

  // Written under a temporary name and renamed, so a reader never sees a partial checkpoint.
  const auto final_path = log_dir() / (version_name(snap.version) + ".checkpoint.parquet");
  const auto tmp_path = log_dir() / ("." + final_path.filename().string() + "." + random_uuid());
  {
    auto file = arrow::io::FileOutputStream::Open(tmp_path.string());
    if (!file.ok()) return util::Status::error("checkpoint: " + file.status().ToString());
    auto props = parquet::WriterProperties::Builder()
                     .compression(parquet::Compression::SNAPPY)
                     ->created_by("ocppgw delta writer")
                     ->build();
    if (auto s = parquet::arrow::WriteTable(*table, arrow::default_memory_pool(), *file,
                                            parquet::DEFAULT_MAX_ROW_GROUP_LENGTH, props);
        !s.ok())
      return util::Status::error("checkpoint: " + s.ToString());
    if (auto s = (*file)->Close(); !s.ok())
      return util::Status::error("checkpoint: " + s.ToString());
  }
  if (auto s = fsync_file(tmp_path); !s.ok()) return s;
  std::error_code ec;
  std::filesystem::rename(tmp_path, final_path, ec);
  if (ec) return util::Status::error("checkpoint rename: " + ec.message());
  fault_point("checkpoint_written");  // before _last_checkpoint points at it
  const auto bytes = std::filesystem::file_size(final_path, ec);
  const nlohmann::json last = {{"version", snap.version},
                               {"size", rows},
                               {"sizeInBytes", static_cast<int64_t>(bytes)},
                               {"numOfAddFiles", static_cast<int64_t>(snap.files.size())}};
  return replace_file(log_dir() / "_last_checkpoint", last.dump());
}

}  // namespace ocppgw::delta
