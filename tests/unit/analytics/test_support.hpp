// tests/unit/analytics/test_support.hpp: helpers shared by the analytics tests: a temp
// directory, a pipeline on a fresh store, an event builder, a gateway event-log writer and
// canonical table dumps.
#pragma once

#include <filesystem>
#include <memory>
#include <random>
#include <span>
#include <string>

#include <gtest/gtest.h>

#include "analytics/event.hpp"
#include "analytics/pipeline.hpp"
#include "util/time.hpp"

namespace ocppgw::analytics::testing {

class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() /
            ("ocppgw_analytics_" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

inline std::unique_ptr<Pipeline> open_pipeline(const std::string& path,
                                               PipelineOptions options = {}) {
  options.path = path;
  options.durable = false;
  storage::Status s;
  auto p = Pipeline::open(options, &s);
  EXPECT_TRUE(s.ok()) << s.message();
  return p;
}

inline int64_t ts(const char* rfc3339) { return *util::parse_rfc3339_ms(rfc3339); }

// A valid event with the common fields set; callers fill the type-specific ones.
inline Event make_event(std::string id, std::string cp, EventType type, int64_t event_ts,
                        int64_t ingest_ts = 0) {
  Event e;
  e.event_id = std::move(id);
  e.charge_point_id = std::move(cp);
  e.event_type = type;
  e.ocpp_action = std::string(to_string(type));
  e.event_ts_ms = event_ts;
  e.ingest_ts_ms = ingest_ts ? ingest_ts : event_ts + 1000;
  e.ocpp_version = "1.6";
  e.gateway_node = "node-0";
  return e;
}

inline Event tx_event(std::string id, std::string cp, EventType type, std::string tx,
                      int64_t event_ts, std::optional<double> meter, int64_t ingest_ts = 0) {
  Event e = make_event(std::move(id), std::move(cp), type, event_ts, ingest_ts);
  e.transaction_id = std::move(tx);
  e.connector_id = 1;
  e.meter_wh = meter;
  return e;
}

// Appends `events` to a gateway event log (the `events` table as the event sink writes it) in
// one transaction; returns the seq of the last one.
inline int64_t append_to_event_log(storage::Db& db, std::span<const Event> events) {
  EXPECT_TRUE(db.begin_immediate().ok());
  for (const Event& e : events) {
    EXPECT_TRUE(db.cached("INSERT INTO events (event_id, charge_point_id, event_type, "
                          "ocpp_version, event_ts_ms, ingest_ts_ms, json) "
                          "VALUES (?, ?, ?, ?, ?, ?, ?)")
                    .bind(1, e.event_id)
                    .bind(2, e.charge_point_id)
                    .bind(3, to_string(e.event_type))
                    .bind(4, e.ocpp_version)
                    .bind(5, e.event_ts_ms)
                    .bind(6, e.ingest_ts_ms)
                    .bind(7, to_json_string(e))
                    .run()
                    .ok());
  }
  EXPECT_TRUE(db.commit().ok());
  return db.last_insert_rowid();
}

// Every row of every Gold table in key order, one line per row, values in a fixed format
// (updated_at, a wall-clock column, is left out). Equal strings = byte-identical Gold.
std::string dump_gold(storage::Db& db);
std::string dump_query(storage::Db& db, const std::string& sql);

}  // namespace ocppgw::analytics::testing
