// tests/unit/analytics/event_test.cpp: the canonical event's JSON form (the Kafka message value).
#include "analytics/event.hpp"

#include <gtest/gtest.h>

namespace ocppgw::analytics {
namespace {

using nlohmann::json;

Event full_event() {
  Event e;
  e.event_id = make_event_id("CP-1", "m1", "MeterValues", "{}", 0);
  e.charge_point_id = "CP-1";
  e.connector_id = 2;
  e.evse_id = 1;
  e.event_type = EventType::MeterValues;
  e.ocpp_action = "MeterValues";
  e.message_id = "m1";
  e.event_ts_ms = 1'735'689'600'123;
  e.ingest_ts_ms = 1'735'689'601'000;
  e.transaction_id = "42";
  e.seq_no = 3;
  e.trigger_reason = "MeterValuePeriodic";
  e.meter_wh = 1234.5;
  e.power_w = 7400;
  e.current_a = 32;
  e.voltage_v = 230.1;
  e.soc_pct = 55;
  e.connector_status = "CHARGING";
  e.error_code = "NoError";
  e.stop_reason = "Local";
  e.id_token_hash = hash_id_token("k", "TAG");
  e.ocpp_version = "1.6";
  e.gateway_node = "node-0";
  e.flags = {"SCHEMA_VIOLATION"};
  e.extra = {{"sampled_values", {{{"value", "1"}}}}};
  return e;
}

TEST(AnalyticsEvent, RoundTripsThroughJson) {
  const Event e = full_event();
  const auto back = from_json(json::parse(to_json_string(e)));
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, e);
  Event sparse;
  sparse.event_id = "x";
  sparse.charge_point_id = "CP";
  const auto sparse_back = from_json(to_json(sparse));
  ASSERT_TRUE(sparse_back);
  EXPECT_EQ(*sparse_back, sparse);
}

TEST(AnalyticsEvent, EveryContractFieldIsPresentAndNullWhenNotApplicable) {
  Event e;
  e.event_type = EventType::Heartbeat;
  const json j = to_json(e);
  for (const char* key :
       {"event_id",         "charge_point_id", "connector_id", "evse_id",        "event_type",
        "ocpp_action",      "event_ts",        "ingest_ts",    "transaction_id", "seq_no",
        "meter_wh",         "power_w",         "current_a",    "voltage_v",      "soc_pct",
        "connector_status", "error_code",      "stop_reason",  "id_token_hash",  "ocpp_version",
        "schema_version",   "gateway_node",    "extra"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_TRUE(j["connector_id"].is_null());
  EXPECT_EQ(j["event_type"], "Heartbeat");
  EXPECT_EQ(j["schema_version"], kSchemaVersion);
  EXPECT_EQ(j["event_ts"], "1970-01-01T00:00:00.000Z");
}

TEST(AnalyticsEvent, FromJsonRejectsWhatItCannotTrust) {
  json j = to_json(full_event());
  std::string error;
  json no_id = j;
  no_id.erase("event_id");
  EXPECT_FALSE(from_json(no_id, &error));
  EXPECT_NE(error.find("event_id"), std::string::npos);
  json bad_type = j;
  bad_type["event_type"] = "Teleport";
  EXPECT_FALSE(from_json(bad_type, &error));
  json bad_ts = j;
  bad_ts["event_ts"] = "2025-01-01 noon";
  EXPECT_FALSE(from_json(bad_ts, &error));
  json bad_meter = j;
  bad_meter["meter_wh"] = "1234";
  EXPECT_FALSE(from_json(bad_meter, &error));
  EXPECT_NE(error.find("meter_wh"), std::string::npos);
  EXPECT_FALSE(from_json(json::array()));
}

TEST(AnalyticsEvent, EventTypesRoundTrip) {
  for (int i = 0; i <= static_cast<int>(EventType::Invalid); ++i) {
    const auto t = static_cast<EventType>(i);
    EXPECT_EQ(parse_event_type(to_string(t)), t);
  }
  EXPECT_FALSE(parse_event_type("heartbeat"));
}

TEST(AnalyticsEvent, EventIdsSeparateTheirInputs) {
  EXPECT_EQ(make_event_id("a", "b", "c", "d", 0).size(), 32u);
  EXPECT_NE(make_event_id("ab", "c", "x", "{}", 0), make_event_id("a", "bc", "x", "{}", 0));
  EXPECT_NE(make_event_id("a", "b", "c", "d", 0), make_event_id("a", "b", "c", "d", 1));
}

// Golden values from the per-event hashing the ids were first defined by: consumers dedup on
// event_id, so hashing the frame once must not change a single byte.
TEST(AnalyticsEvent, EventIdsAreByteIdenticalToTheContract) {
  EXPECT_EQ(make_event_id("CP-1", "m1", "MeterValues", "{}", 0),
            "3a70858541e24e39be5a231d83075943");
  const EventIdHasher ids("CP-1", "m1", "MeterValues", R"({"a":1})");
  EXPECT_EQ(ids.id(3), "cbd81567ff6e3a3aaf561c430eadf605");
  EXPECT_EQ(ids.id(3), make_event_id("CP-1", "m1", "MeterValues", R"({"a":1})", 3));
  EXPECT_NE(ids.id(2), ids.id(3));
}

TEST(AnalyticsEvent, InvalidUtf8InExtraIsReplacedNotThrown) {
  Event e = full_event();
  e.extra["raw"] = std::string("\xff\xfe");
  EXPECT_NO_THROW(to_json_string(e));
}

}  // namespace
}  // namespace ocppgw::analytics
