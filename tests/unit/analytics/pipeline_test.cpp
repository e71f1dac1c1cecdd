// tests/unit/analytics/pipeline_test.cpp: one test per session status, quality flag, quarantine
// reason and Gold rule, plus the quarantine workflow, reconciliation and the conservation alert.
#include "analytics/pipeline.hpp"

#include <cctype>

#include <gtest/gtest.h>

#include "tests/unit/analytics/test_support.hpp"

namespace ocppgw::analytics {
namespace {

using testing::dump_query;
using testing::make_event;
using testing::ts;
using testing::tx_event;

constexpr EventType kStart = EventType::StartTransaction;
constexpr EventType kMeter = EventType::MeterValues;
constexpr EventType kStop = EventType::StopTransaction;

class PipelineTest : public ::testing::Test {
 protected:
  void SetUp() override { p_ = testing::open_pipeline(dir_.file("analytics.db"), options_); }
  BatchReport feed(std::vector<Event> events) {
    BatchReport r = p_->ingest(events);
    EXPECT_TRUE(r.status.ok()) << r.status.message();
    EXPECT_TRUE(r.conservation_ok) << r.to_json().dump();
    return r;
  }
  BatchReport feed_raw(std::vector<RawInput> inputs) {
    BatchReport r = p_->ingest_raw(inputs, Source::File);
    EXPECT_TRUE(r.status.ok()) << r.status.message();
    return r;
  }
  std::string session(
      const std::string& tx,
      const char* columns = "session_status, energy_kwh, energy_is_final, quality_flags") {
    return dump_query(
        p_->db(),
        std::string("SELECT ") + columns +
            " FROM charging_sessions WHERE charge_point_id = 'CP-1' AND transaction_id = '" + tx +
            "'");
  }
  std::string sql(const std::string& q) { return dump_query(p_->db(), q); }
  // How the dedup registry stores its keys: "type<TAB>length" per row, sorted.
  std::string registry_keys() {
    return sql("SELECT typeof(event_id), length(event_id) FROM event_ids ORDER BY 1, 2");
  }
  // Feeds `events`, all in Silver already, once more: each is found as a technical duplicate.
  void expect_found_again(const std::vector<Event>& events) {
    BatchReport again = feed(events);
    EXPECT_EQ(again.technical_duplicates, static_cast<int64_t>(events.size()));
    EXPECT_EQ(sql("SELECT COUNT(*) FROM silver_events"), std::to_string(events.size()) + "\n");
  }

  testing::TempDir dir_;
  PipelineOptions options_;
  std::unique_ptr<Pipeline> p_;
  const int64_t t0_ = ts("2026-03-01T10:00:00Z");
  static constexpr int64_t kMin = 60000;
};

TEST_F(PipelineTest, StartMissingUntilTheStartArrivesThenCompleted) {
  feed({tx_event("m1", "CP-1", kMeter, "7", t0_ + 5 * kMin, 3000),
        tx_event("s1", "CP-1", kStop, "7", t0_ + 10 * kMin, 4000)});
  EXPECT_EQ(session("7"), "START_MISSING\t1\t0\t[\"START_MISSING\"]\n");
  feed({tx_event("a1", "CP-1", kStart, "7", t0_, 1000)});
  EXPECT_EQ(session("7"), "COMPLETED\t3\t1\t[]\n");
}

TEST_F(PipelineTest, SweeperTimesOutOnTheDataClockAndALateStopCompletes) {
  feed({tx_event("a1", "CP-1", kStart, "8", t0_, 1000),
        tx_event("m1", "CP-1", kMeter, "8", t0_ + kMin, 1500)});
  EXPECT_EQ(session("8"), "IN_PROGRESS\t0.5\t0\t[]\n");
  // Another charger's traffic 25 h later moves the data clock; wall time plays no part.
  feed({make_event("h1", "CP-9", EventType::Heartbeat, t0_ + 25 * 3600000LL)});
  EXPECT_EQ(session("8"), "TIMED_OUT\t0.5\t0\t[\"STOP_MISSING\"]\n");
  EXPECT_EQ(
      sql("SELECT sessions_timed_out FROM charging_stats_daily WHERE charge_point_id = 'CP-1'"),
      "1\n");
  feed({tx_event("s1", "CP-1", kStop, "8", t0_ + 2 * kMin, 2500)});
  EXPECT_EQ(session("8"), "COMPLETED\t1.5\t1\t[]\n");
  EXPECT_EQ(sql("SELECT sessions_timed_out, sessions_completed, energy_kwh_final FROM "
                "charging_stats_daily "
                "WHERE charge_point_id = 'CP-1'"),
            "0\t1\t1.5\n");
}

TEST_F(PipelineTest, MeterResetIsAnAnomalyWithoutNegativeEnergy) {
  feed({tx_event("a", "CP-1", kStart, "9", t0_, 1000),
        tx_event("b", "CP-1", kMeter, "9", t0_ + kMin, 5000),
        tx_event("c", "CP-1", kMeter, "9", t0_ + 2 * kMin, 200),
        tx_event("d", "CP-1", kMeter, "9", t0_ + 3 * kMin, 900),
        tx_event("e", "CP-1", kStop, "9", t0_ + 4 * kMin, 900)});
  // Positive deltas only: 4000 + 700 Wh; never final with an anomaly.
  EXPECT_EQ(session("9"), "COMPLETED\t4.7000000000000002\t0\t[\"METER_ANOMALY\"]\n");
  EXPECT_EQ(sql("SELECT energy_kwh_final, energy_kwh_provisional FROM charging_stats_daily"),
            "0\t4.7000000000000002\n");
}

// Frames the gateway linked from transactionId -1 are ordinary frames of their session: same
// energy, same anomaly rule; the linking flags and the sent id change nothing.
TEST_F(PipelineTest, LinkedMinusOneFramesAreOrdinaryFramesOfTheirSession) {
  auto linked = [](Event e, std::string_view flag) {
    e.flags = {"OFFLINE_TRANSACTION", std::string(flag)};
    e.extra["sent_transaction_id"] = -1;
    return e;
  };
  feed({tx_event("a", "CP-1", kStart, "21", t0_, 1000),
        linked(tx_event("b", "CP-1", kMeter, "21", t0_ + kMin, 1800),
               flag::kTransactionLinkedByConnector),
        linked(tx_event("c", "CP-1", kStop, "21", t0_ + 2 * kMin, 2500),
               flag::kTransactionLinkedByIdTag)});
  EXPECT_EQ(session("21"), "COMPLETED\t1.5\t1\t[]\n");
  feed({tx_event("d", "CP-1", kStart, "22", t0_, 1000),
        linked(tx_event("e", "CP-1", kMeter, "22", t0_ + kMin, 5000),
               flag::kTransactionLinkedByConnector),
        linked(tx_event("f", "CP-1", kMeter, "22", t0_ + 2 * kMin, 200),
               flag::kTransactionLinkedByConnector),
        linked(tx_event("g", "CP-1", kStop, "22", t0_ + 3 * kMin, 900),
               flag::kTransactionLinkedOnlyOpen)});
  EXPECT_EQ(session("22"), "COMPLETED\t4.7000000000000002\t0\t[\"METER_ANOMALY\"]\n");
}

TEST_F(PipelineTest, ClockSkewIsFlaggedNotQuarantined) {
  Event a = tx_event("a", "CP-1", kStart, "10", t0_ + 11 * kMin, 1000, t0_);  // device 11 min ahead
  feed({a});
  EXPECT_EQ(session("10", "quality_flags"), "[\"CLOCK_SKEW\"]\n");
  EXPECT_EQ(sql("SELECT flags FROM silver_events"), "[\"CLOCK_SKEW\"]\n");
  EXPECT_EQ(sql("SELECT skewed_events, max_ahead_ms FROM dq_clock_skew"), "1\t660000\n");
}

TEST_F(PipelineTest, ConflictQuarantinesEveryReadingOfTheKeyWhateverTheOrder) {
  for (int order = 0; order < 2; ++order) {
    testing::TempDir dir;
    auto p = testing::open_pipeline(dir.file("c.db"));
    Event x = tx_event("x", "CP-1", kMeter, "11", t0_ + kMin, 2000);
    Event y = tx_event("y", "CP-1", kMeter, "11", t0_ + kMin, 2600, t0_ + 5 * kMin);
    Event x2 = x;  // business duplicate of x
    x2.event_id = "x2";
    x2.ingest_ts_ms += 1000;
    std::vector<Event> seq =
        order == 0 ? std::vector<Event>{x, x2, y} : std::vector<Event>{y, x2, x};
    p->ingest(std::vector<Event>{tx_event("a", "CP-1", kStart, "11", t0_, 1000)});
    for (const auto& e : seq) ASSERT_TRUE(p->ingest(std::vector<Event>{e}).conservation_ok);
    EXPECT_EQ(
        dump_query(p->db(), "SELECT event_id, reason FROM quarantine_events ORDER BY event_id"),
        "x\tCONFLICT\nx2\tCONFLICT\ny\tCONFLICT\n");
    EXPECT_EQ(dump_query(p->db(), "SELECT COUNT(*) FROM duplicate_events_audit"), "0\n");
    EXPECT_EQ(dump_query(p->db(), "SELECT quality_flags, event_count FROM charging_sessions"),
              "[\"CONFLICT\"]\t1\n");
  }
}

// Once with ids like the gateway's, which the registry packs into 16 bytes, and once with text
// ids: the replay must free the conflicted id's registry entry in either form.
TEST_F(PipelineTest, ResolvingAConflictByDiscardAndReplay) {
  for (const bool gateway_ids : {true, false}) {
    SCOPED_TRACE(gateway_ids ? "gateway ids" : "text ids");
    p_ = testing::open_pipeline(dir_.file(gateway_ids ? "gateway-ids.db" : "text-ids.db"));
    const std::string x = gateway_ids ? make_event_id("CP-1", "x", "MeterValues", "{}", 0) : "x";
    const std::string y = gateway_ids ? make_event_id("CP-1", "y", "MeterValues", "{}", 0) : "y";
    feed({tx_event("a", "CP-1", kStart, "12", t0_, 1000),
          tx_event(x, "CP-1", kMeter, "12", t0_ + kMin, 2000),
          tx_event(y, "CP-1", kMeter, "12", t0_ + kMin, 2600)});
    int64_t x_id =
        std::stoll(sql("SELECT quarantine_id FROM quarantine_events WHERE event_id = '" + x + "'"));
    int64_t y_id =
        std::stoll(sql("SELECT quarantine_id FROM quarantine_events WHERE event_id = '" + y + "'"));
    // Replaying one side while the other is still open puts it straight back.
    BatchReport again = p_->replay({x_id});
    EXPECT_TRUE(again.status.ok()) << again.status.message();
    EXPECT_EQ(again.quarantined_by_reason["CONFLICT"], 1);
    x_id = std::stoll(sql("SELECT quarantine_id FROM quarantine_events WHERE event_id = '" + x +
                          "' AND status = 'NEW'"));
    ASSERT_TRUE(p_->discard(y_id, "op").ok());
    // x is still unresolved in quarantine: the session keeps its CONFLICT flag until it is
    // replayed.
    EXPECT_EQ(session("12", "quality_flags"), "[\"CONFLICT\"]\n");
    BatchReport r = p_->replay({x_id});
    EXPECT_TRUE(r.status.ok()) << r.status.message();
    EXPECT_EQ(r.silver, 1);
    EXPECT_TRUE(r.conservation_ok);
    EXPECT_EQ(session("12", "last_meter_wh, event_count, quality_flags"), "2000\t2\t[]\n");
    EXPECT_EQ(sql("SELECT status, replay_outcome FROM quarantine_events WHERE quarantine_id = " +
                  std::to_string(x_id)),
              "REPLAYED\tsilver\n");
    EXPECT_FALSE(p_->replay({x_id}).status.ok()) << "a REPLAYED row cannot be replayed again";
    EXPECT_FALSE(p_->discard(y_id, "op").ok());
  }
}

TEST_F(PipelineTest, LaterArrivingEarlierEventBecomesTheBusinessWinner) {
  Event late = tx_event("late", "CP-1", kMeter, "13", t0_ + kMin, 2000, t0_ + 9 * kMin);
  Event early = late;
  early.event_id = "early";
  early.ingest_ts_ms = t0_ + kMin + 500;
  Event later = late;
  later.event_id = "later";
  later.ingest_ts_ms = t0_ + 20 * kMin;
  feed({late});
  feed({later});
  BatchReport r = feed({early});
  EXPECT_EQ(r.demoted_winners, 1);
  EXPECT_EQ(sql("SELECT event_id FROM silver_events"), "early\n");
  EXPECT_EQ(sql("SELECT event_id, duplicate_type, winner_event_id FROM duplicate_events_audit "
                "ORDER BY event_id"),
            "late\tBUSINESS\tearly\nlater\tBUSINESS\tearly\n");
}

TEST_F(PipelineTest, ALongSessionArrivingInOrderIsExtendedWithoutReadingItAgain) {
  feed({tx_event("a", "CP-1", kStart, "21", t0_, 1000)});
  for (int i = 1; i <= 40; ++i) {
    BatchReport r =
        feed({tx_event("m" + std::to_string(i), "CP-1", kMeter, "21", t0_ + i * kMin, 1000 + i)});
    EXPECT_EQ(r.sessions_recomputed, 1);
    EXPECT_EQ(r.sessions_read, 0) << "batch " << i << " re-read the session from Silver";
  }
  EXPECT_EQ(session("21"), "IN_PROGRESS\t0.040000000000000001\t0\t[]\n");
  // A reading that sorts before the last one seen: the session is read again.
  BatchReport late = feed({tx_event("late", "CP-1", kMeter, "21", t0_ + 90 * 1000, 1001)});
  EXPECT_EQ(late.sessions_read, 1);
  // A demoted business winner removes a Silver row: read again too.
  Event early = tx_event("m40-early", "CP-1", kMeter, "21", t0_ + 40 * kMin, 1040);
  early.ingest_ts_ms = t0_ + 40 * kMin + 500;  // earlier receipt: the new winner
  BatchReport demoted = feed({early});
  EXPECT_EQ(demoted.demoted_winners, 1);
  EXPECT_EQ(demoted.sessions_read, 1);
  BatchReport stop = feed({tx_event("z", "CP-1", kStop, "21", t0_ + 41 * kMin, 1041)});
  EXPECT_EQ(stop.sessions_read, 0);
  EXPECT_EQ(session("21"), "COMPLETED\t0.041000000000000002\t1\t[]\n");
  ReconcileReport rec = p_->reconcile();
  EXPECT_TRUE(rec.gold_matches) << rec.to_json().dump();
}

TEST_F(PipelineTest, EveryQuarantineReasonAndTheSchemaViolationRule) {
  auto raw = [](Event e) { return RawInput{to_json_string(e), std::nullopt}; };
  Event invalid = make_event("i1", "CP-1", EventType::Invalid, t0_);
  invalid.extra = {{"raw", "[2,\"1\",\"Boot"}, {"reason", "unparsable frame"}};
  Event bad_ts = make_event("i2", "CP-1", EventType::StatusNotification, t0_);
  bad_ts.connector_status = "Available";
  bad_ts.flags = {"INVALID_TIMESTAMP"};
  Event ancient = make_event("i3", "CP-1", EventType::Heartbeat, ts("1970-01-02T00:00:00Z"));
  Event negative = tx_event("i4", "CP-1", kMeter, "1", t0_, -10);
  Event no_tx = make_event("i5", "CP-1", kStart, t0_);
  Event future_schema = make_event("i6", "CP-1", EventType::Heartbeat, t0_);
  future_schema.schema_version = 2;
  Event odd_status = make_event("i7", "CP-1", EventType::StatusNotification, t0_);
  odd_status.connector_status = "Hovering";
  nlohmann::json unknown_type = to_json(make_event("i8", "CP-1", EventType::Heartbeat, t0_));
  unknown_type["event_type"] = "Teleport";
  nlohmann::json bad_text_ts = to_json(make_event("i9", "CP-1", EventType::Heartbeat, t0_));
  bad_text_ts["event_ts"] = "yesterday";
  Event lenient = make_event("k1", "CP-1", EventType::StatusNotification, t0_);
  lenient.connector_id = 2;
  lenient.connector_status = " suspendedEV ";
  lenient.flags = {"SCHEMA_VIOLATION"};
  BatchReport r = feed_raw({{"{not json", std::nullopt},
                            raw(invalid),
                            raw(bad_ts),
                            raw(ancient),
                            raw(negative),
                            raw(no_tx),
                            raw(future_schema),
                            raw(odd_status),
                            {unknown_type.dump(), std::nullopt},
                            {bad_text_ts.dump(), std::nullopt},
                            raw(lenient)});
  EXPECT_EQ(r.raw, 11);
  EXPECT_EQ(r.silver, 1);
  EXPECT_EQ(r.quarantined, 10);
  EXPECT_TRUE(r.conservation_ok);
  EXPECT_EQ(
      sql("SELECT COALESCE(event_id, '-'), reason FROM quarantine_events ORDER BY quarantine_id"),
      "-\tCORRUPT_PAYLOAD\ni1\tCORRUPT_PAYLOAD\ni2\tINVALID_TIMESTAMP\ni3\tINVALID_TIMESTAMP\n"
      "i4\tNEGATIVE_METER\ni5\tSCHEMA_MISMATCH\ni6\tSCHEMA_MISMATCH\ni7\tSCHEMA_MISMATCH\n"
      "i8\tUNKNOWN_EVENT_TYPE\ni9\tINVALID_TIMESTAMP\n");
  // SCHEMA_VIOLATION with valid core fields: kept, flagged, normalised.
  EXPECT_EQ(sql("SELECT event_id, connector_status, flags FROM silver_events"),
            "k1\tSUSPENDED_EV\t[\"SCHEMA_VIOLATION\"]\n");
  EXPECT_EQ(sql("SELECT value FROM dq_totals WHERE metric = 'quarantine:SCHEMA_MISMATCH'"), "3\n");
}

TEST_F(PipelineTest, RepairAndReplayGoesThroughSilverAndCannotDuplicate) {
  nlohmann::json broken = to_json(tx_event("r1", "CP-1", kStart, "14", t0_, 1000));
  broken["charge_point_id"] = nullptr;
  feed_raw({{broken.dump(), std::nullopt}});
  int64_t id = std::stoll(sql("SELECT quarantine_id FROM quarantine_events"));
  EXPECT_FALSE(p_->repair(id, "not json", "op").ok());
  broken["charge_point_id"] = "CP-1";
  ASSERT_TRUE(p_->repair(id, broken.dump(), "op").ok());
  EXPECT_EQ(sql("SELECT status, reviewed_by FROM quarantine_events"), "REPAIRED\top\n");
  BatchReport r = p_->replay({});  // all REPAIRED rows
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.raw, 0);
  EXPECT_EQ(r.silver, 1);
  EXPECT_TRUE(r.conservation_ok);
  EXPECT_EQ(session("14", "session_status"), "IN_PROGRESS\n");
  ConservationCounts c = p_->counts();
  EXPECT_EQ(c.raw, 1);
  EXPECT_EQ(c.silver, 1);
  EXPECT_EQ(c.quarantine, 0);
  // The same event arriving again (e.g. a Kafka replay with the key) is a technical duplicate.
  BatchReport again = p_->ingest_raw(std::vector<RawInput>{{broken.dump(), "CP-1"}}, Source::Kafka);
  EXPECT_EQ(again.technical_duplicates, 1);
  EXPECT_EQ(sql("SELECT COUNT(*) FROM silver_events"), "1\n");
}

TEST_F(PipelineTest, ReconcileFindsACorruptedGoldRowAndRepairsIt) {
  feed({tx_event("a", "CP-1", kStart, "15", t0_, 1000),
        tx_event("b", "CP-1", kStop, "15", t0_ + kMin, 4000)});
  EXPECT_TRUE(p_->reconcile().gold_matches);
  ASSERT_TRUE(
      p_->db()
          .exec("UPDATE charging_sessions SET energy_kwh = 99; DELETE FROM charge_point_health")
          .ok());
  ReconcileReport rec = p_->reconcile();
  ASSERT_TRUE(rec.status.ok()) << rec.status.message();
  EXPECT_FALSE(rec.gold_matches);
  EXPECT_EQ(rec.tables["charging_sessions"]["only_in_gold"], 1);
  EXPECT_EQ(rec.tables["charging_sessions"]["gold_samples"][0], "CP-1|15");
  EXPECT_EQ(rec.tables["charge_point_health"]["only_in_recomputed"], 1);
  EXPECT_EQ(sql("SELECT kind FROM dq_alerts"), "RECONCILE_MISMATCH\n");
  EXPECT_TRUE(p_->reconcile(true).repaired);
  EXPECT_TRUE(p_->reconcile().gold_matches);
  EXPECT_EQ(session("15", "energy_kwh"), "3\n");
}

TEST_F(PipelineTest, ConservationViolationRaisesARecordedAlert) {
  feed({make_event("h1", "CP-1", EventType::Heartbeat, t0_),
        make_event("h2", "CP-1", EventType::Heartbeat, t0_ + kMin)});
  ASSERT_TRUE(p_->db().exec("DELETE FROM silver_events WHERE event_id = 'h1'").ok());  // a lost row
  BatchReport r = p_->ingest(
      std::vector<Event>{make_event("h3", "CP-1", EventType::Heartbeat, t0_ + 2 * kMin)});
  EXPECT_TRUE(r.status.ok());
  EXPECT_FALSE(r.conservation_ok);
  EXPECT_EQ(sql("SELECT kind, batch_id FROM dq_alerts"),
            "CONSERVATION_VIOLATION\t" + std::to_string(r.batch_id) + "\n");
  EXPECT_EQ(sql("SELECT value FROM pipeline_state WHERE key = 'conservation_violations'"), "1\n");
  EXPECT_EQ(
      sql("SELECT conservation_ok FROM dq_batches WHERE batch_id = " + std::to_string(r.batch_id)),
      "0\n");
}

TEST_F(PipelineTest, ConnectorStatusNewerWinsAndOlderOnlyFillsHistory) {
  auto status = [&](const char* id, int64_t at, const char* s,
                    std::optional<int64_t> seq = std::nullopt) {
    Event e = make_event(id, "CP-1", EventType::StatusNotification, at);
    e.connector_id = 1;
    e.connector_status = s;
    e.seq_no = seq;
    return e;
  };
  feed({status("s2", t0_ + 10 * kMin, "Charging")});
  feed({status("s1", t0_ + 5 * kMin, "Preparing")});  // older: history only
  EXPECT_EQ(sql("SELECT status, status_since FROM connector_current_status"),
            "CHARGING\t" + std::to_string(t0_ + 10 * kMin) + "\n");
  EXPECT_EQ(
      sql("SELECT status, valid_from, valid_to FROM connector_status_history ORDER BY valid_from"),
      "PREPARING\t" + std::to_string(t0_ + 5 * kMin) + "\t" + std::to_string(t0_ + 10 * kMin) +
          "\nCHARGING\t" + std::to_string(t0_ + 10 * kMin) + "\tNULL\n");
  feed({status("s2", t0_ + 10 * kMin, "Charging")});  // duplicate: no change
  // Same timestamp: the 2.0.1 seq_no decides, whatever the arrival order.
  feed({status("s4", t0_ + 20 * kMin, "Finishing", 4),
        status("s3", t0_ + 20 * kMin, "SuspendedEV", 3)});
  EXPECT_EQ(sql("SELECT status FROM connector_current_status"), "FINISHING\n");
  EXPECT_EQ(sql("SELECT COUNT(*) FROM connector_status_history"), "4\n");
}

TEST_F(PipelineTest, HealthTracksHeartbeatsConnectionAndBootAndGoesOffline) {
  Event boot = make_event("b", "CP-1", EventType::BootNotification, t0_);
  boot.extra = {{"chargePointVendor", "Acme"},
                {"chargePointModel", "Volt"},
                {"firmwareVersion", "2.1"},
                {"interval", 60}};
  Event conn = make_event("c", "CP-1", EventType::Connection, t0_ - 1000);
  conn.extra = {{"state", "connected"}};
  feed({conn, boot, make_event("h", "CP-1", EventType::Heartbeat, t0_ + kMin)});
  EXPECT_EQ(sql("SELECT liveness, vendor, model, firmware_version, heartbeat_interval_s, "
                "connection_state, "
                "last_heartbeat_ts FROM charge_point_health"),
            "ONLINE\tAcme\tVolt\t2.1\t60\tconnected\t" + std::to_string(t0_ + kMin) + "\n");
  // Three missed 60 s heartbeats (data clock moved by another charger): OFFLINE.
  feed({make_event("o", "CP-2", EventType::Heartbeat, t0_ + 5 * kMin)});
  EXPECT_EQ(sql("SELECT liveness FROM charge_point_health WHERE charge_point_id = 'CP-1'"),
            "OFFLINE\n");
  Event gone = make_event("d", "CP-2", EventType::Connection, t0_ + 6 * kMin);
  gone.extra = {{"state", "disconnected"}};
  feed({gone});
  EXPECT_EQ(sql("SELECT liveness FROM charge_point_health WHERE charge_point_id = 'CP-2'"),
            "DISCONNECTED\n");
}

// last_seen_ts reads most types through silver_cp_type_ts, which leaves out the meter readings
// of transactions, and those through the sessions' last_event_ts: each kind must count, and a
// reading that leaves Silver must stop counting.
TEST_F(PipelineTest, LastSeenCountsReadingsInAndOutOfTransactionsUntilTheyLeaveSilver) {
  auto last_seen = [&] {
    return sql("SELECT last_seen_ts FROM charge_point_health WHERE charge_point_id = 'CP-1'");
  };
  feed({make_event("h", "CP-1", EventType::Heartbeat, t0_),
        tx_event("s", "CP-1", kStart, "7", t0_ + kMin, 1000),
        tx_event("m1", "CP-1", kMeter, "7", t0_ + 5 * kMin, 1500)});
  EXPECT_EQ(last_seen(), std::to_string(t0_ + 5 * kMin) + "\n");
  Event idle = make_event("m2", "CP-1", kMeter, t0_ + 7 * kMin);  // no transaction
  idle.connector_id = 1;
  idle.meter_wh = 1600;
  feed({idle});
  EXPECT_EQ(last_seen(), std::to_string(t0_ + 7 * kMin) + "\n");
  feed({tx_event("m3", "CP-1", kMeter, "7", t0_ + 9 * kMin, 1700)});
  EXPECT_EQ(last_seen(), std::to_string(t0_ + 9 * kMin) + "\n");
  // Another reading of the same instant with a different value: both leave Silver (CONFLICT).
  feed({tx_event("m3b", "CP-1", kMeter, "7", t0_ + 9 * kMin, 1750)});
  EXPECT_EQ(sql("SELECT COUNT(*) FROM quarantine_events WHERE reason = 'CONFLICT'"), "2\n");
  EXPECT_EQ(last_seen(), std::to_string(t0_ + 7 * kMin) + "\n");
  EXPECT_TRUE(p_->reconcile().gold_matches);
}

// A session's rows are read through the range of its business keys; transaction ids that
// extend one another, or hold the keys' separator, must each keep only their own readings.
TEST_F(PipelineTest, SessionsWhoseIdsShareAPrefixReadOnlyTheirOwnRows) {
  std::vector<Event> events;
  int n = 0;
  for (const std::string tx : {"1", "10", "1|0", "1%7C0"}) {
    events.push_back(tx_event("s" + tx, "CP-1", kStart, tx, t0_, 1000));
    for (int r = 1; r <= static_cast<int>(tx.size()); ++r)
      events.push_back(
          tx_event("m" + std::to_string(++n), "CP-1", kMeter, tx, t0_ + r * kMin, 1000 + 10 * r));
  }
  feed(events);
  EXPECT_EQ(sql("SELECT transaction_id, event_count FROM charging_sessions ORDER BY 1"),
            "1\t2\n1%7C0\t6\n10\t3\n1|0\t4\n");
  EXPECT_TRUE(p_->reconcile().gold_matches);  // reconcile reads every session from Silver
}

// The registry keeps the gateway's ids (32 lower-case hex digits) as 16 bytes and every other
// id as text (analytics/event_id_key.hpp). Ids that differ only in case, or are one digit short,
// are other events; a copy of any of them is a technical duplicate.
TEST_F(PipelineTest, TechnicalDedupHoldsForPackedAndTextIds) {
  const std::string hex = make_event_id("CP-1", "m1", "MeterValues", "{}", 0);
  ASSERT_EQ(hex.size(), 32u);
  std::string upper = hex;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  ASSERT_NE(upper, hex);  // the id has a letter
  const std::vector<std::string> ids = {hex, upper, hex.substr(1), "ev-1-2"};
  std::vector<Event> events;
  for (size_t i = 0; i < ids.size(); ++i)
    events.push_back(tx_event(ids[i], "CP-1", kMeter, "7", t0_ + static_cast<int64_t>(i) * kMin,
                              1000.0 + static_cast<double>(i)));
  BatchReport first = feed(events);
  EXPECT_EQ(first.silver, 4);
  EXPECT_EQ(first.technical_duplicates, 0);
  EXPECT_EQ(registry_keys(), "blob\t16\ntext\t6\ntext\t31\ntext\t32\n");
  expect_found_again(events);
}

// A store written before migration 0005 holds its ids as text; after the migration a copy of
// one of those events is still found.
TEST_F(PipelineTest, RegistryKeysWrittenAsTextAreFoundAfterTheMigration) {
  const std::string hex = make_event_id("CP-1", "m2", "MeterValues", "{}", 0);
  const std::vector<Event> events = {tx_event(hex, "CP-1", kMeter, "7", t0_, 1000.0),
                                     tx_event("ev-9", "CP-1", kMeter, "7", t0_ + kMin, 1001.0)};
  feed(events);
  // Back to the old layout: the table as 0001 made it, the same rows with text keys.
  ASSERT_TRUE(p_->db()
                  .exec("CREATE TABLE old_ids (event_id TEXT PRIMARY KEY, place TEXT NOT NULL) "
                        "WITHOUT ROWID; "
                        "INSERT INTO old_ids SELECT CASE typeof(event_id) WHEN 'blob' THEN "
                        "lower(hex(event_id)) ELSE event_id END, place FROM event_ids; "
                        "DROP TABLE event_ids; ALTER TABLE old_ids RENAME TO event_ids; "
                        "DELETE FROM schema_migrations WHERE name LIKE '0005%'")
                  .ok());
  ASSERT_EQ(registry_keys(), "text\t4\ntext\t32\n");
  p_.reset();
  p_ = testing::open_pipeline(dir_.file("analytics.db"), options_);
  ASSERT_NE(p_, nullptr);
  EXPECT_EQ(registry_keys(), "blob\t16\ntext\t4\n");
  expect_found_again(events);
}

TEST(PipelineDays, SessionBelongsToTheDayOfItsStartInTheConfiguredOffset) {
  testing::TempDir dir;
  PipelineOptions o;
  o.gold.day_offset_minutes = 120;
  auto p = testing::open_pipeline(dir.file("d.db"), o);
  const int64_t t = ts("2026-03-01T23:00:00Z");
  p->ingest(std::vector<Event>{tx_event("a", "CP-1", kStart, "1", t, 0),
                               tx_event("b", "CP-1", kStop, "1", t + 3600000, 2000),
                               tx_event("c", "CP-1", kStart, "2", t + 7200000, 0),
                               tx_event("d", "CP-1", kMeter, "2", t + 7300000, 500)});
  EXPECT_EQ(
      dump_query(
          p->db(),
          "SELECT day, sessions_total, sessions_completed, sessions_in_progress, energy_kwh_final, "
          "energy_kwh_provisional, avg_duration_seconds FROM charging_stats_daily"),
      "2026-03-02\t2\t1\t1\t2\t0.5\t3600\n");
}

}  // namespace
}  // namespace ocppgw::analytics
