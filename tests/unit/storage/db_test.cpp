#include "storage/db.hpp"

#include <gtest/gtest.h>

#include "storage/event_log.hpp"
#include "storage/gateway_db.hpp"
#include "tests/unit/storage/temp_dir.hpp"

namespace ocppgw::storage {
namespace {

std::unique_ptr<Db> open_db(const std::string& path) {
  Status s;
  auto db = Db::open(path, OpenOptions{}, &s);
  EXPECT_TRUE(s.ok()) << s.message();
  return db;
}

int64_t count(Db& db, const std::string& sql) {
  Statement& st = db.cached(sql);
  EXPECT_TRUE(st.step()) << st.status().message();
  int64_t n = st.int64(0);
  st.reset();
  return n;
}

TEST(StorageMigrate, AppliesInNameOrderOnce) {
  testing::TempDir dir;
  auto db = open_db(dir.file("m.db"));
  std::map<std::string_view, std::string_view> migrations = {
      {"0002_b", "INSERT INTO t VALUES (2)"},
      {"0001_a", "CREATE TABLE t (x INTEGER)"},
  };
  ASSERT_TRUE(migrate(*db, migrations).ok());
  ASSERT_TRUE(migrate(*db, migrations).ok());  // idempotent: 0002 would insert a second row
  EXPECT_EQ(count(*db, "SELECT count(*) FROM t"), 1);
  EXPECT_EQ(count(*db, "SELECT count(*) FROM schema_migrations"), 2);
}

TEST(StorageMigrate, FailedMigrationRollsBackAndNamesIt) {
  testing::TempDir dir;
  auto db = open_db(dir.file("m.db"));
  std::map<std::string_view, std::string_view> migrations = {
      {"0001_a", "CREATE TABLE t (x INTEGER)"},
      {"0002_bad", "CREATE TABLE u (y INTEGER); INSERT INTO nowhere VALUES (1)"},
  };
  Status s = migrate(*db, migrations);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("0002_bad"), std::string::npos) << s.message();
  EXPECT_EQ(count(*db, "SELECT count(*) FROM schema_migrations"), 1);
  // u was created inside the failed migration's transaction: rolled back with it.
  EXPECT_EQ(count(*db, "SELECT count(*) FROM sqlite_master WHERE name = 'u'"), 0);
}

TEST(StorageMigrate, GatewaySchemaReopensIdempotently) {
  testing::TempDir dir;
  {
    Status s;
    auto db = open_gateway_db(dir.file("g.db"), &s);
    ASSERT_TRUE(db) << s.message();
  }
  Status s;
  auto db = open_gateway_db(dir.file("g.db"), &s);
  ASSERT_TRUE(db) << s.message();
  EXPECT_EQ(count(*db, "SELECT count(*) FROM schema_migrations"),
            static_cast<int64_t>(gateway_migrations().size()));
  for (const char* table :
       {"frames", "events", "outbox", "charge_points", "id_tokens", "transactions16",
        "tx_id_reservations", "transactions201", "device_reports"}) {
    EXPECT_EQ(count(*db, std::string("SELECT count(*) FROM sqlite_master WHERE type = 'table' "
                                     "AND name = '") +
                             table + "'"),
              1)
        << table;
  }
  Statement& mode = db->cached("PRAGMA journal_mode");
  ASSERT_TRUE(mode.step());
  EXPECT_EQ(mode.text(0), "wal");
  mode.reset();
}

TEST(StorageDb, CachedReportsPrepareErrors) {
  testing::TempDir dir;
  auto db = open_db(dir.file("x.db"));
  Status s;
  EXPECT_EQ(db->cached("SELECT * FROM missing_table", &s), nullptr);
  EXPECT_NE(s.message().find("missing_table"), std::string::npos) << s.message();
  Statement& st = db->cached("SELECT * FROM missing_table");
  EXPECT_FALSE(st.step());
  EXPECT_NE(st.status().message().find("missing_table"), std::string::npos);
}

// SQLite allocates through storage's counting allocator: the total follows a page cache as it
// fills and falls back when the connection closes.
TEST(StorageDb, SqliteMemoryUsedFollowsThePageCache) {
  testing::TempDir dir;
  auto db = open_db(dir.file("m.db"));
  ASSERT_TRUE(db->exec("PRAGMA cache_size=-8192; CREATE TABLE t(x TEXT)").ok());
  const int64_t before = sqlite_memory_used();
  EXPECT_GT(before, 0);
  ASSERT_TRUE(db->exec("BEGIN").ok());
  for (int i = 0; i < 2000; ++i)
    ASSERT_TRUE(db->cached("INSERT INTO t VALUES(?1)").bind(1, std::string(1000, 'x')).run().ok());
  ASSERT_TRUE(db->exec("COMMIT").ok());
  const int64_t filled = sqlite_memory_used();
  EXPECT_GT(filled, before + 2'000'000);  // ~2 MB of rows held in the page cache
  db.reset();
  EXPECT_LT(sqlite_memory_used(), filled - 2'000'000);
}

// bind() hands SQLite a copy; bind_borrowed() lets it read the caller's bytes when the
// statement runs, so a change between the two is what gets stored. An empty optional binds NULL.
TEST(StorageDb, BorrowedTextIsReadWhenTheStatementRuns) {
  testing::TempDir dir;
  auto db = open_db(dir.file("b.db"));
  ASSERT_TRUE(db->exec("CREATE TABLE t(id INTEGER PRIMARY KEY, copied TEXT, borrowed TEXT)").ok());
  std::string text = "before";
  const std::optional<std::string> none;
  Statement& ins = db->cached("INSERT INTO t(id, copied, borrowed) VALUES(?1, ?2, ?3)");
  ins.bind(1, 1).bind(2, text).bind_borrowed(3, text);
  text = "after!";  // same length: the borrowed bytes change in place
  ASSERT_TRUE(ins.run().ok());
  ASSERT_TRUE(ins.bind(1, 2).bind(2, "x").bind_borrowed(3, none).run().ok());
  Statement& sel = db->cached("SELECT copied, borrowed FROM t ORDER BY id");
  ASSERT_TRUE(sel.step());
  EXPECT_EQ(sel.text(0), "before");
  EXPECT_EQ(sel.text(1), "after!");
  ASSERT_TRUE(sel.step());
  EXPECT_TRUE(sel.is_null(1));
  sel.reset();
}

TEST(StorageEventLog, ReadsAfterSeqInOrder) {
  testing::TempDir dir;
  Status s;
  auto db = open_gateway_db(dir.file("g.db"), &s);
  ASSERT_TRUE(db) << s.message();
  for (int i = 1; i <= 5; ++i) {
    ASSERT_TRUE(db->cached("INSERT INTO events (event_id, charge_point_id, event_type, "
                           "ocpp_version, event_ts_ms, ingest_ts_ms, json) "
                           "VALUES (?, 'CP1', 'Heartbeat', '1.6', 0, 0, '{}')")
                    .bind(1, "e" + std::to_string(i))
                    .run()
                    .ok());
  }
  EXPECT_EQ(event_log_count(*db), 5);
  auto rows = read_event_log(*db, 2, 2, &s);
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].seq, 3);
  EXPECT_EQ(rows[0].event_id, "e3");
  EXPECT_EQ(rows[1].seq, 4);
}

}  // namespace
}  // namespace ocppgw::storage
