// tests/unit/analytics/walkthrough_test.cpp: a nine-row walkthrough of Silver and Gold as a
// golden test (analytics/README.md states each rule it exercises). Its expected outcomes fix
// the data:
// 9 rows, Silver = {e1, e2, e5, e4, e7, e8}, row 3 a technical duplicate of e2, row 4 a business
// duplicate of row 2, row 7 without charge point id, row 8 status-only, row 9 heartbeat-only,
// session 501 started at meter 1000, a late reading of 7200 Wh at 10:15 arriving after the stop.
//   row event           type               cp    tx   event_ts meter  ingest
//   1   e1              StartTransaction   CP-1  501  10:00    1000   10:00:01
//   2   e2              MeterValues        CP-1  501  10:05    2500   10:05:01
//   3   e2 (re-sent)    MeterValues        CP-1  501  10:05    2500   10:05:30  technical dup
//   4   e3              MeterValues        CP-1  501  10:05    2500   10:06:00  business dup
//   5   e5              StopTransaction    CP-1  501  10:20    7500   10:20:01
//   6   e4              MeterValues        CP-1  501  10:15    7200   10:25:00  late
//   7   e6              MeterValues        null  501  10:16    7300   10:16:01  no cp, no key
//   8   e7              StatusNotification CP-2  -    10:10    -      10:10:01  Available
//   9   e8              Heartbeat          CP-3  -    10:12    -      10:12:00
#include <gtest/gtest.h>

#include "analytics/pipeline.hpp"
#include "tests/unit/analytics/test_support.hpp"

namespace ocppgw::analytics {
namespace {

using testing::dump_query;
using testing::ts;
using testing::tx_event;

struct Row {
  RawInput input;
  const char* status;  // session 501 after the row
  double energy_kwh;
  bool final_energy;
};

std::vector<Row> walkthrough_rows(bool with_stop) {
  auto json_of = [](Event e) { return to_json_string(e); };
  Event e1 = tx_event("e1", "CP-1", EventType::StartTransaction, "501", ts("2026-03-01T10:00:00Z"),
                      1000, ts("2026-03-01T10:00:01Z"));
  Event e2 = tx_event("e2", "CP-1", EventType::MeterValues, "501", ts("2026-03-01T10:05:00Z"), 2500,
                      ts("2026-03-01T10:05:01Z"));
  Event e2_resent = e2;  // the broker redelivers the same message
  Event e3 = e2;
  e3.event_id = "e3";  // the charger re-sends the reading under a new message id
  e3.ingest_ts_ms = ts("2026-03-01T10:06:00Z");
  Event e5 = tx_event("e5", "CP-1", EventType::StopTransaction, "501", ts("2026-03-01T10:20:00Z"),
                      7500, ts("2026-03-01T10:20:01Z"));
  e5.stop_reason = "Local";
  Event e4 = tx_event("e4", "CP-1", EventType::MeterValues, "501", ts("2026-03-01T10:15:00Z"), 7200,
                      ts("2026-03-01T10:25:00Z"));
  nlohmann::json e6 =
      to_json(tx_event("e6", "", EventType::MeterValues, "501", ts("2026-03-01T10:16:00Z"), 7300,
                       ts("2026-03-01T10:16:01Z")));
  e6["charge_point_id"] = nullptr;
  Event e7 =
      testing::make_event("e7", "CP-2", EventType::StatusNotification, ts("2026-03-01T10:10:00Z"));
  e7.connector_id = 1;
  e7.connector_status = "Available";
  Event e8 = testing::make_event("e8", "CP-3", EventType::Heartbeat, ts("2026-03-01T10:12:00Z"),
                                 ts("2026-03-01T10:12:00Z"));
  std::vector<Row> rows = {
      {{json_of(e1), "CP-1"}, "IN_PROGRESS", 0.0, false},
      {{json_of(e2), "CP-1"}, "IN_PROGRESS", 1.5, false},
      {{json_of(e2_resent), "CP-1"}, "IN_PROGRESS", 1.5, false},
      {{json_of(e3), "CP-1"}, "IN_PROGRESS", 1.5, false},
      {{json_of(e5), "CP-1"}, "COMPLETED", 6.5, true},
      {{json_of(e4), "CP-1"}, "COMPLETED", 6.5, true},
      {{e6.dump(), std::nullopt}, "COMPLETED", 6.5, true},
      {{json_of(e7), "CP-2"}, "COMPLETED", 6.5, true},
      {{json_of(e8), "CP-3"}, "COMPLETED", 6.5, true},
  };
  if (!with_stop) {
    rows.erase(rows.begin() + 4);
    rows[4] = {rows[4].input, "IN_PROGRESS", 6.2,
               false};  // the late reading raises provisional energy
    for (size_t i = 5; i < rows.size(); ++i) rows[i] = {rows[i].input, "IN_PROGRESS", 6.2, false};
  }
  return rows;
}

TEST(AnalyticsWalkthrough, SeedSection12RowByRow) {
  testing::TempDir dir;
  auto p = testing::open_pipeline(dir.file("analytics.db"));
  auto rows = walkthrough_rows(true);
  for (size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE("row " + std::to_string(i + 1));
    BatchReport r = p->ingest_raw(std::span(&rows[i].input, 1), Source::Kafka);
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    EXPECT_TRUE(r.conservation_ok);
    storage::Statement st = p->db().prepare(
        "SELECT session_status, energy_kwh, energy_is_final FROM charging_sessions "
        "WHERE charge_point_id = 'CP-1' AND transaction_id = '501'");
    ASSERT_TRUE(st.step());
    EXPECT_EQ(st.text(0), rows[i].status);
    EXPECT_NEAR(st.real(1), rows[i].energy_kwh, 1e-9);
    EXPECT_EQ(st.int64(2) != 0, rows[i].final_energy);
    if (i == 2) {
      EXPECT_EQ(r.technical_duplicates, 1);
    }
    if (i == 3) {
      EXPECT_EQ(r.business_duplicates, 1);
    }
    if (i == 6) {
      EXPECT_EQ(r.quarantined_by_reason["MISSING_CHARGE_POINT_ID"], 1);
    }
  }
  // Conservation: 9 = 6 + 2 + 1.
  ConservationCounts c = p->counts();
  EXPECT_EQ(c.raw, 9);
  EXPECT_EQ(c.silver, 6);
  EXPECT_EQ(c.duplicates, 2);
  EXPECT_EQ(c.quarantine, 1);
  EXPECT_EQ(dump_query(p->db(), "SELECT event_id FROM silver_events ORDER BY silver_id"),
            "e1\ne2\ne5\ne4\ne7\ne8\n");
  EXPECT_EQ(
      dump_query(p->db(),
                 "SELECT event_id, duplicate_type, winner_event_id FROM duplicate_events_audit "
                 "ORDER BY audit_id"),
      "e2\tTECHNICAL\te2\ne3\tBUSINESS\te2\n");
  EXPECT_EQ(dump_query(p->db(), "SELECT reason, status FROM quarantine_events"),
            "MISSING_CHARGE_POINT_ID\tNEW\n");
  // The original payload is kept as received.
  EXPECT_EQ(dump_query(p->db(), "SELECT raw_payload FROM quarantine_events"),
            rows[6].input.text + "\n");
  // Session 501: four events (start, two readings, stop), final 6.5 kWh.
  EXPECT_EQ(
      dump_query(p->db(),
                 "SELECT meter_start_wh, meter_stop_wh, last_meter_wh, event_count, stop_reason, "
                 "duration_seconds, quality_flags FROM charging_sessions"),
      "1000\t7500\t7500\t4\tLOCAL\t1200\t[]\n");
  // Row 8 reached only the status tables, row 9 only the health table.
  EXPECT_EQ(
      dump_query(p->db(),
                 "SELECT charge_point_id, connector_id, status FROM connector_current_status"),
      "CP-2\t1\tAVAILABLE\n");
  EXPECT_EQ(
      dump_query(p->db(), "SELECT COUNT(*) FROM charging_sessions WHERE charge_point_id <> 'CP-1'"),
      "0\n");
  EXPECT_EQ(
      dump_query(p->db(),
                 "SELECT charge_point_id, last_heartbeat_ts IS NOT NULL FROM charge_point_health "
                 "ORDER BY charge_point_id"),
      "CP-1\t0\nCP-2\t0\nCP-3\t1\n");
  ReconcileReport rec = p->reconcile();
  EXPECT_TRUE(rec.status.ok()) << rec.status.message();
  EXPECT_TRUE(rec.gold_matches) << rec.to_json().dump();
  EXPECT_TRUE(rec.conservation_ok);
}

TEST(AnalyticsWalkthrough, WithoutTheStopTheLateReadingRaisesProvisionalEnergy) {
  testing::TempDir dir;
  auto p = testing::open_pipeline(dir.file("analytics.db"));
  auto rows = walkthrough_rows(false);
  for (size_t i = 0; i < rows.size(); ++i) {
    BatchReport r = p->ingest_raw(std::span(&rows[i].input, 1), Source::Kafka);
    ASSERT_TRUE(r.status.ok()) << r.status.message();
  }
  EXPECT_EQ(dump_query(p->db(),
                       "SELECT session_status, energy_kwh, energy_is_final, last_meter_wh FROM "
                       "charging_sessions"),
            "IN_PROGRESS\t6.2000000000000002\t0\t7200\n");
  ConservationCounts c = p->counts();
  EXPECT_EQ(c.raw, 8);
  EXPECT_EQ(c.silver + c.duplicates + c.quarantine, 8);
}

TEST(AnalyticsWalkthrough, KafkaKeyRecoversMissingChargePointId) {
  testing::TempDir dir;
  auto p = testing::open_pipeline(dir.file("analytics.db"));
  auto rows = walkthrough_rows(true);
  rows[6].input.kafka_key = "CP-1";
  std::vector<RawInput> inputs;
  for (auto& r : rows) inputs.push_back(r.input);
  BatchReport r = p->ingest_raw(inputs, Source::Kafka);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.quarantined, 0);
  EXPECT_EQ(r.silver, 7);
  EXPECT_EQ(
      dump_query(p->db(), "SELECT charge_point_id, flags FROM silver_events WHERE event_id = 'e6'"),
      "CP-1\t[\"RECOVERED_CHARGE_POINT_ID\"]\n");
}

}  // namespace
}  // namespace ocppgw::analytics
