// tests/unit/analytics/read_models_test.cpp: read models over a generated fleet, the rebuild
// command's replay of a real gateway event log, and the query plans behind the read models.
#include "analytics/read_models.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <sstream>

#include <sqlite3.h>

#include "analytics/batch.hpp"
#include "analytics/cli.hpp"
#include "storage/gateway_db.hpp"
#include "tests/unit/analytics/fleet_generator.hpp"
#include "tests/unit/analytics/test_support.hpp"

namespace ocppgw::analytics {
namespace {

using testing::dump_gold;
using testing::dump_query;

class ReadModelsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::FleetSpec spec;
    spec.charge_points = 10;
    fleet_ = testing::generate_fleet(spec);
    PipelineOptions o;
    o.gold.session_timeout_ms = 2 * 3600 * 1000;
    p_ = testing::open_pipeline(dir_.file("analytics.db"), o);
    for (size_t i = 0; i < fleet_.events.size(); i += 250)
      p_->ingest(
          std::span(fleet_.events.data() + i, std::min<size_t>(250, fleet_.events.size() - i)));
    storage::Status s;
    rm_ = ReadModels::open(dir_.file("analytics.db"), &s);
    ASSERT_TRUE(rm_) << s.message();
  }
  testing::TempDir dir_;
  testing::Fleet fleet_;
  std::unique_ptr<Pipeline> p_;
  std::unique_ptr<ReadModels> rm_;
};

TEST_F(ReadModelsTest, FleetOverviewCountsMatchTheTables) {
  nlohmann::json o = rm_->fleet_overview();
  int64_t cps = 0;
  for (auto& [k, v] : o["charge_points"].items()) cps += v.get<int64_t>();
  EXPECT_EQ(cps, 10);
  int64_t connectors = 0;  // connector 0 of a 1.6 charge point is the charge point itself
  for (auto& [k, v] : o["connectors"].items()) connectors += v.get<int64_t>();
  EXPECT_EQ(connectors, std::stoll(dump_query(p_->db(),
                                              "SELECT COUNT(*) FROM connector_current_status "
                                              "WHERE connector_id > 0")));
  EXPECT_TRUE(o["conservation"]["conservation_ok"].get<bool>());
  EXPECT_EQ(o["conservation"]["raw"], static_cast<int64_t>(fleet_.events.size()));
  EXPECT_EQ(
      o["open_sessions"].get<int64_t>(),
      std::stoll(dump_query(p_->db(), "SELECT COUNT(*) FROM charging_sessions WHERE is_open = 1")));
}

TEST_F(ReadModelsTest, SessionDetailListsItsSilverEventsInEventTimeOrder) {
  std::string id = dump_query(
      p_->db(),
      "SELECT session_id FROM charging_sessions WHERE session_status = 'COMPLETED' LIMIT 1");
  id.pop_back();
  nlohmann::json s = rm_->session_detail(id);
  ASSERT_TRUE(s.is_object());
  EXPECT_EQ(s["session_status"], "COMPLETED");
  EXPECT_TRUE(s["energy_is_final"].is_boolean());
  ASSERT_EQ(s["events"].size(), s["event_count"].get<size_t>());
  EXPECT_EQ(s["events"].front()["event_type"], "StartTransaction");
  EXPECT_EQ(s["events"].back()["event_type"], "StopTransaction");
  EXPECT_TRUE(rm_->session_detail("nope").is_null());
}

TEST_F(ReadModelsTest, LiveSessionsDailyStatsQuarantineAndQualityMetrics) {
  for (const auto& s : rm_->live_sessions()) EXPECT_NE(s["session_status"], "COMPLETED");
  nlohmann::json days = rm_->daily_stats(std::nullopt, "2026-01-01", "2026-12-31");
  ASSERT_FALSE(days.empty());
  EXPECT_GT(days[0]["sessions_total"].get<int64_t>(), 0);
  nlohmann::json one = rm_->daily_stats("CP-1", "2026-01-01", "2026-12-31");
  ASSERT_FALSE(one.empty());
  EXPECT_EQ(one[0]["charge_point_id"], "CP-1");
  nlohmann::json q = rm_->quarantine_list(std::string("NEW"), std::nullopt, 0, 5);
  ASSERT_FALSE(q.empty());
  EXPECT_GT(q[0]["quarantine_id"].get<int64_t>(), q.back()["quarantine_id"].get<int64_t>());
  nlohmann::json page2 = rm_->quarantine_list(std::string("NEW"), std::nullopt,
                                              q.back()["quarantine_id"].get<int64_t>(), 5);
  if (!page2.empty()) {
    EXPECT_LT(page2[0]["quarantine_id"].get<int64_t>(), q.back()["quarantine_id"].get<int64_t>());
  }
  nlohmann::json m = rm_->dq_metrics();
  EXPECT_GT(m["rates"]["technical_duplicates"].get<double>(), 0.0);
  EXPECT_GT(m["rates"]["quarantine_by_reason"]["CONFLICT"].get<double>(), 0.0);
  EXPECT_FALSE(m["late_arrival_lag"]["p99_ms_at_most"].is_null());
  EXPECT_EQ(m["clock_skew_top"][0]["charge_point_id"], "CP-0");
  EXPECT_FALSE(m["recent_batches"].empty());
}

TEST_F(ReadModelsTest, QueriesUseTheirIndexes) {
  auto plan = [&](const std::string& sql) {
    return dump_query(p_->db(), "EXPLAIN QUERY PLAN " + sql);
  };
  EXPECT_NE(
      plan("SELECT * FROM charging_sessions WHERE is_open = 1 ORDER BY last_event_ts DESC LIMIT 10")
          .find("sessions_open"),
      std::string::npos);
  const std::string session_rows = plan(
      "SELECT * FROM silver_events WHERE business_key IN ('a', 'b') OR "
      "(business_key >= 'c|' AND business_key < 'c}')");  // session_detail's shape
  EXPECT_NE(session_rows.find("silver_business_key"), std::string::npos) << session_rows;
  EXPECT_EQ(session_rows.find("SCAN"), std::string::npos) << session_rows;
  EXPECT_NE(plan("SELECT * FROM quarantine_events WHERE quarantine_id < 9 AND status = 'NEW' ORDER "
                 "BY quarantine_id DESC")
                .find("quarantine_status"),
            std::string::npos);
  EXPECT_NE(
      plan("SELECT * FROM charging_stats_daily WHERE day BETWEEN 'a' AND 'b'").find("daily_day"),
      std::string::npos);
  EXPECT_EQ(plan("SELECT MAX(event_ts) FROM silver_events WHERE charge_point_id = 'a' AND "
                 "event_type = 'Heartbeat'")
                .find("SCAN"),
            std::string::npos);
}

// Every statement the Gold recompute prepared to read one charge point's or one session's Silver
// rows seeks an index; silver_cp_type_ts is partial, so this fails for a reader that leaves out
// its condition (kOutsideSessions). Health's latest reading of a transaction comes from the
// sessions, and a session's rows come through their business keys.
TEST_F(ReadModelsTest, TheGoldRecomputeReadsSilverThroughItsIndexes) {
  std::vector<std::string> statements;
  sqlite3* db = p_->db().handle();
  for (sqlite3_stmt* st = sqlite3_next_stmt(db, nullptr); st; st = sqlite3_next_stmt(db, st))
    statements.emplace_back(sqlite3_sql(st));
  int by_charge_point = 0;
  for (const std::string& sql : statements) {
    if (sql.find("FROM main.silver_events WHERE charge_point_id = ?1") == std::string::npos &&
        sql.find("FROM main.silver_events WHERE business_key") == std::string::npos)
      continue;
    ++by_charge_point;
    const std::string plan = dump_query(p_->db(), "EXPLAIN QUERY PLAN " + sql);
    // A full scan shows as "SCAN silver_events", or for MAX() as "SEARCH silver_events" alone.
    std::istringstream lines(plan);
    for (std::string line; std::getline(lines, line);) {
      if (line.find("silver_events") != std::string::npos) {
        EXPECT_NE(line.find(" USING "), std::string::npos) << sql << "\n" << plan;
      }
    }
    if (sql.find("charging_sessions") != std::string::npos) {
      EXPECT_NE(plan.find("sessions_cp_last_event"), std::string::npos) << plan;
    }
  }
  EXPECT_GE(by_charge_point, 5);  // sessions, status, heartbeat, latest of a type, last seen
  const std::string connections = dump_query(
      p_->db(), std::string("EXPLAIN QUERY PLAN SELECT event_ts FROM silver_events WHERE "
                            "charge_point_id = 'CP-1' AND event_type = 'Connection' AND ") +
                    kOutsideSessions + " ORDER BY event_ts DESC");
  EXPECT_NE(connections.find("silver_cp_type_ts"), std::string::npos) << connections;
}

TEST(AnalyticsRebuild, ReplayingTheGatewayEventLogGivesTheSameGold) {
  testing::TempDir dir;
  testing::FleetSpec spec;
  spec.charge_points = 8;
  testing::Fleet fleet = testing::generate_fleet(spec);
  storage::Status s;
  auto gw = storage::open_gateway_db(dir.file("ocppgw.db"), &s);
  ASSERT_TRUE(gw) << s.message();
  testing::append_to_event_log(*gw, fleet.events);
  auto live = testing::open_pipeline(dir.file("live.db"));
  for (size_t i = 0; i < fleet.events.size(); i += 100)
    live->ingest(
        std::span(fleet.events.data() + i, std::min<size_t>(100, fleet.events.size() - i)));
  auto rebuilt = testing::open_pipeline(dir.file("rebuilt.db"));
  rebuilt->ingest(std::span(fleet.events.data(), 10));  // stale content that rebuild must drop
  nlohmann::json summary = rebuild_from_event_log(*rebuilt, *gw, 333, &s);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(summary["conservation_ok"].get<bool>());
  EXPECT_EQ(summary["events"], static_cast<int64_t>(fleet.events.size()));
  EXPECT_EQ(dump_gold(rebuilt->db()), dump_gold(live->db()));
  EXPECT_EQ(rebuilt->counts().raw, live->counts().raw);

  // The same through the command line.
  CLI::App app;
  add_analytics_commands(app, [&] {
    AnalyticsCliEnv env;
    env.gateway_db_path = dir.file("ocppgw.db");
    env.analytics.path = dir.file("cli.db");
    env.analytics.durable = false;
    return env;
  });
  const char* argv[] = {"ocppgw", "rebuild", "--batch", "500"};
  ASSERT_NO_THROW(app.parse(4, const_cast<char**>(argv)));
  auto cli = testing::open_pipeline(dir.file("cli.db"));
  EXPECT_EQ(dump_gold(cli->db()), dump_gold(live->db()));
  const char* reconcile[] = {"ocppgw", "reconcile"};
  EXPECT_NO_THROW(app.parse(2, const_cast<char**>(reconcile)));
}

}  // namespace
}  // namespace ocppgw::analytics

namespace ocppgw::analytics {
namespace {

// Walks a paged list to its end; every item's `key` must come exactly once.
std::vector<std::string> walk(const std::function<PageResult(const PageRequest&)>& query,
                              const std::string& key, size_t limit) {
  std::vector<std::string> seen;
  PageRequest page{"", limit};
  for (int guard = 0; guard < 10000; ++guard) {
    PageResult r = query(page);
    EXPECT_TRUE(r.invalid.empty()) << r.invalid;
    EXPECT_TRUE(r.status.ok()) << r.status.message();
    if (!r.invalid.empty() || !r.status.ok()) break;
    EXPECT_LE(r.body["items"].size(), limit);
    for (const auto& item : r.body["items"]) seen.push_back(item[key].dump());
    if (r.body["next_cursor"].is_null()) break;
    page.cursor = r.body["next_cursor"].get<std::string>();
  }
  return seen;
}

TEST_F(ReadModelsTest, SessionPagesHoldEverySessionExactlyOnce) {
  const int64_t total = std::stoll(dump_query(p_->db(), "SELECT COUNT(*) FROM charging_sessions"));
  ASSERT_GT(total, 7);
  auto seen = walk([&](const PageRequest& p) { return rm_->sessions({}, p); }, "session_id", 7);
  EXPECT_EQ(static_cast<int64_t>(seen.size()), total);
  EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()).size(), seen.size());
  // A filter narrows every page the same way.
  const std::string cp = rm_->sessions({}, {"", 1}).body["items"][0]["charge_point_id"];
  auto mine =
      walk([&](const PageRequest& p) { return rm_->sessions({cp}, p); }, "charge_point_id", 3);
  ASSERT_FALSE(mine.empty());
  for (const auto& c : mine) EXPECT_EQ(c, nlohmann::json(cp).dump());
}

TEST_F(ReadModelsTest, CursorsAndFiltersAreChecked) {
  PageResult first = rm_->sessions({}, {"", 1});
  ASSERT_TRUE(first.body["next_cursor"].is_string());
  const std::string cursor = first.body["next_cursor"];
  // A sessions cursor is no duplicates cursor, and garbage is no cursor at all.
  EXPECT_FALSE(rm_->duplicates({}, {}, {cursor, 5}).invalid.empty());
  EXPECT_FALSE(rm_->sessions({}, {"zz-not-hex", 5}).invalid.empty());
  EXPECT_FALSE(rm_->sessions({}, {encode_cursor({"sessions", 1}), 5}).invalid.empty());
  EXPECT_FALSE(rm_->sessions({.status = "DONE"}, {"", 5}).invalid.empty());
  EXPECT_FALSE(rm_->sessions({.day = "2026-13-01"}, {"", 5}).invalid.empty());
  EXPECT_TRUE(rm_->sessions({.status = "COMPLETED"}, {cursor, 5}).invalid.empty());
}

TEST_F(ReadModelsTest, DailyStatsAndDuplicatesPage) {
  auto days = walk(
      [&](const PageRequest& p) {
        return rm_->daily_stats_page({}, "2000-01-01", "2100-01-01", p);
      },
      "day", 1);
  EXPECT_EQ(
      static_cast<int64_t>(days.size()),
      std::stoll(dump_query(p_->db(), "SELECT COUNT(DISTINCT day) FROM charging_stats_daily")));
  auto dups = walk([&](const PageRequest& p) { return rm_->duplicates({}, {}, p); }, "audit_id", 4);
  EXPECT_EQ(static_cast<int64_t>(dups.size()),
            std::stoll(dump_query(p_->db(), "SELECT COUNT(*) FROM duplicate_events_audit")));
}

}  // namespace
}  // namespace ocppgw::analytics
