#include "storage/outbox.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "storage/gateway_db.hpp"
#include "tests/unit/storage/temp_dir.hpp"

namespace ocppgw::storage {
namespace {

TEST(StorageOutbox, PeekRemoveDepthOldest) {
  testing::TempDir dir;
  Status s;
  auto db = open_gateway_db(dir.file("g.db"), &s);
  ASSERT_TRUE(db) << s.message();
  Outbox outbox(*db);
  EXPECT_EQ(outbox.depth(), 0);
  EXPECT_FALSE(outbox.oldest_ingest_ms());
  for (int i = 1; i <= 4; ++i) {
    ASSERT_TRUE(db->cached("INSERT INTO events (event_id, charge_point_id, event_type, "
                           "ocpp_version, event_ts_ms, ingest_ts_ms, json) "
                           "VALUES ('e', ?, 'Heartbeat', '1.6', 0, ?, ?)")
                    .bind(1, "CP" + std::to_string(i))
                    .bind(2, int64_t{100} * i)
                    .bind(3, "{\"n\":" + std::to_string(i) + "}")
                    .run()
                    .ok());
    ASSERT_TRUE(
        db->cached("INSERT INTO outbox VALUES (?)").bind(1, db->last_insert_rowid()).run().ok());
  }
  EXPECT_EQ(outbox.depth(), 4);
  EXPECT_EQ(outbox.oldest_ingest_ms(), 100);
  auto rows = outbox.peek(1, 2, &s);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].seq, 2);
  EXPECT_EQ(rows[0].charge_point_id, "CP2");
  EXPECT_EQ(rows[0].event_type, "Heartbeat");
  EXPECT_EQ(rows[0].ocpp_version, "1.6");
  EXPECT_EQ(rows[0].ingest_ts_ms, 200);
  EXPECT_EQ(rows[0].json, "{\"n\":2}");
  std::vector<int64_t> done = {1, 2};
  ASSERT_TRUE(outbox.remove(done).ok());
  EXPECT_EQ(outbox.depth(), 2);
  EXPECT_EQ(outbox.oldest_ingest_ms(), 300);
  EXPECT_EQ(outbox.peek(0, 10).front().seq, 3);
}

}  // namespace
}  // namespace ocppgw::storage
