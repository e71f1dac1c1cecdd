// tests/unit/ocpp16/mappers_test.cpp: the canonical events of 1.6 frames: columns, units,
// per-timestamp meter events, what lands in extra, and that raw id tags never leave.
#include "ocpp16/actions.hpp"

#include "rpc/event_builder.hpp"
#include "tests/unit/ocpp16/ocpp16_fixture.hpp"
#include "util/time.hpp"

namespace ocppgw::ocpp16 {
namespace {

using analytics::Event;
using analytics::EventType;

int64_t ms(std::string_view text) { return *util::parse_rfc3339_ms(text); }

json sampled(std::string value, std::string measurand = "", std::string unit = "",
             std::string phase = "") {
  json sv = {{"value", std::move(value)}};
  if (!measurand.empty()) sv["measurand"] = measurand;
  if (!unit.empty()) sv["unit"] = unit;
  if (!phase.empty()) sv["phase"] = phase;
  return sv;
}

json meter_value(std::string ts, json sampled_values) {
  return {{"timestamp", std::move(ts)}, {"sampledValue", std::move(sampled_values)}};
}

TEST_F(Ocpp16Test, FullSessionYieldsTheExpectedEvents) {
  state.tokens["04E1F2A3B4"] = {"Accepted", std::nullopt, std::nullopt};
  std::vector<Event> events;
  auto run = [&](std::string_view action, const json& payload, const std::string& id) {
    const auto r = call(action, payload, id);
    result_of(r, action);
    EXPECT_TRUE(r.error.empty()) << action << ": " << r.error;
    events.insert(events.end(), r.events.begin(), r.events.end());
    return r;
  };
  run("BootNotification", {{"chargePointVendor", "Wallbox"}, {"chargePointModel", "Pulsar"}}, "1");
  run("StatusNotification",
      {{"connectorId", 1},
       {"errorCode", "NoError"},
       {"status", "Preparing"},
       {"timestamp", "2025-06-15T15:00:00Z"}},
      "2");
  run("Authorize", {{"idTag", "04E1F2A3B4"}}, "3");
  const auto start = run("StartTransaction",
                         {{"connectorId", 1},
                          {"idTag", "04E1F2A3B4"},
                          {"meterStart", 12000},
                          {"timestamp", "2025-06-15T15:00:05Z"}},
                         "4");
  const int64_t tx = json::parse(start.reply)[2]["transactionId"].get<int64_t>();
  for (int i = 0; i < 3; ++i) {
    const std::string minute = "2025-06-15T15:0" + std::to_string(i + 1);
    run("MeterValues",
        {{"connectorId", 1},
         {"transactionId", tx},
         {"meterValue",
          {meter_value(minute + ":00Z", {sampled(std::to_string(12000 + 1000 * (2 * i + 1)),
                                                 "Energy.Active.Import.Register", "Wh"),
                                         sampled("7200", "Power.Active.Import", "W"),
                                         sampled("55", "SoC", "Percent")}),
           meter_value(minute + ":30Z", {sampled(std::to_string(12000 + 1000 * (2 * i + 2)),
                                                 "Energy.Active.Import.Register", "Wh")})}}},
        "m" + std::to_string(i));
  }
  run("StopTransaction",
      {{"transactionId", tx},
       {"idTag", "04E1F2A3B4"},
       {"meterStop", 18500},
       {"timestamp", "2025-06-15T15:04:00Z"},
       {"transactionData",
        {meter_value("2025-06-15T15:00:05Z", {sampled("12000")}),
         meter_value("2025-06-15T15:04:00Z", {sampled("18.5", "", "kWh")})}}},
      "5");

  std::vector<EventType> types;
  for (const auto& e : events) types.push_back(e.event_type);
  using T = EventType;
  const std::vector<EventType> expected = {
      T::BootNotification, T::StatusNotification, T::Authorize,       T::StartTransaction,
      T::MeterValues,      T::MeterValues,        T::MeterValues,     T::MeterValues,
      T::MeterValues,      T::MeterValues,        T::StopTransaction, T::MeterValues,
      T::MeterValues};
  EXPECT_EQ(types, expected);

  const std::string tx_text = std::to_string(tx);
  std::vector<double> meters;
  for (const auto& e : events) {
    EXPECT_TRUE(e.flags.empty()) << to_json_string(e);
    if (e.event_type == T::MeterValues) {
      EXPECT_EQ(e.transaction_id, tx_text);
      ASSERT_TRUE(e.meter_wh);
      meters.push_back(*e.meter_wh);
    }
  }
  EXPECT_EQ(meters, (std::vector<double>{13000, 14000, 15000, 16000, 17000, 18000, 12000, 18500}));
  const Event& first_meter = events[4];
  EXPECT_EQ(first_meter.event_ts_ms, ms("2025-06-15T15:01:00Z"));
  EXPECT_EQ(first_meter.power_w, 7200);
  EXPECT_EQ(first_meter.soc_pct, 55);
  EXPECT_EQ(first_meter.connector_id, 1);
  EXPECT_EQ(events[5].event_ts_ms, ms("2025-06-15T15:01:30Z"));

  const Event& stop = events[10];
  EXPECT_EQ(stop.transaction_id, tx_text);
  EXPECT_EQ(stop.meter_wh, 18500);
  EXPECT_EQ(stop.stop_reason, "Local");
  EXPECT_EQ(stop.event_ts_ms, ms("2025-06-15T15:04:00Z"));
  EXPECT_EQ(stop.extra["id_token_status"], "Accepted");

  // Event ids are unique within the session.
  std::set<std::string> ids;
  for (const auto& e : events) ids.insert(e.event_id);
  EXPECT_EQ(ids.size(), events.size());
}

TEST_F(Ocpp16Test, RawIdTagsNeverAppearInEvents) {
  const std::string tag = "RAWTAG0123456789";
  const std::string parent = "RAWPARENT42";
  state.tokens[tag] = {"Accepted", std::nullopt, parent};
  std::vector<Event> events;
  for (const auto& [action, payload] :
       std::vector<std::pair<std::string, json>>{{"Authorize", {{"idTag", tag}}},
                                                 {"StartTransaction",
                                                  {{"connectorId", 1},
                                                   {"idTag", tag},
                                                   {"meterStart", 0},
                                                   {"timestamp", "2025-06-15T15:00:00Z"}}},
                                                 {"StopTransaction",
                                                  {{"transactionId", 1},
                                                   {"idTag", tag},
                                                   {"meterStop", 9},
                                                   {"timestamp", "2025-06-15T16:00:00Z"}}}}) {
    const auto r = call(action, payload);
    result_of(r, action);
    ASSERT_EQ(r.events.size(), 1u);
    const Event& e = r.events[0];
    EXPECT_EQ(e.id_token_hash, rpc::hash_token(rpc::make_context(policy, state), tag));
    const std::string text = to_json_string(e);
    EXPECT_EQ(text.find(tag), std::string::npos) << text;
    EXPECT_EQ(text.find(parent), std::string::npos) << text;
    events.push_back(e);
  }
  EXPECT_TRUE(events[0].extra.contains("group_id_token_hash"));
  EXPECT_EQ(events[0].extra["id_token_status"], "Accepted");
}

TEST_F(Ocpp16Test, MeterValuesYieldOneEventPerTimestamp) {
  const auto r = call("MeterValues", {{"connectorId", 2},
                                      {"meterValue",
                                       {meter_value("2025-06-15T15:00:00Z", {sampled("1")}),
                                        meter_value("2025-06-15T15:00:10+01:00", {sampled("2")}),
                                        meter_value("2025-06-15T15:00:20.5Z", {sampled("3")})}}});
  ASSERT_EQ(r.events.size(), 3u);
  EXPECT_EQ(r.events[0].event_ts_ms, ms("2025-06-15T15:00:00Z"));
  EXPECT_EQ(r.events[1].event_ts_ms, ms("2025-06-15T14:00:10Z"));
  EXPECT_EQ(r.events[2].event_ts_ms, ms("2025-06-15T15:00:20.500Z"));
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(r.events[i].meter_wh, static_cast<double>(i + 1));
    EXPECT_EQ(r.events[i].connector_id, 2);
    EXPECT_FALSE(r.events[i].transaction_id);
  }
}

TEST_F(Ocpp16Test, KilowattHoursAreNormalisedToWattHours) {
  const auto r = call(
      "MeterValues", {{"connectorId", 1},
                      {"meterValue",
                       {meter_value("2025-06-15T15:00:00Z",
                                    {sampled("12.345", "Energy.Active.Import.Register", "kWh"),
                                     sampled("7.4", "Power.Active.Import", "kW")}),
                        meter_value("2025-06-15T15:01:00Z",
                                    {sampled("1.005", "Energy.Active.Import.Register", "kWh")})}}});
  ASSERT_EQ(r.events.size(), 2u);
  EXPECT_EQ(r.events[0].meter_wh, 12345.0);
  EXPECT_EQ(r.events[0].power_w, 7400.0);
  EXPECT_EQ(r.events[1].meter_wh, 1005.0);  // exact, not 1004.9999999999999
}

TEST_F(Ocpp16Test, PhaseValuesAndUnknownMeasurandsAreKeptInExtra) {
  const json l1 = sampled("16.1", "Current.Import", "A", "L1");
  const json l2 = sampled("230.4", "Voltage", "V", "L2-N");
  const json temperature = sampled("41", "Temperature", "Celsius");
  const json total = {{"value", "32.2"},
                      {"measurand", "Current.Import"},
                      {"unit", "A"},
                      {"context", "Sample.Periodic"},
                      {"location", "Outlet"}};
  const auto r =
      call("MeterValues",
           {{"connectorId", 1},
            {"meterValue", {meter_value("2025-06-15T15:00:00Z", {l1, l2, temperature, total})}}});
  ASSERT_EQ(r.events.size(), 1u);
  const Event& e = r.events[0];
  EXPECT_EQ(e.current_a, 32.2);
  EXPECT_FALSE(e.voltage_v);  // only a phase reading was sent
  EXPECT_EQ(e.extra["sampled_values"], (json{l1, l2, temperature}));
  EXPECT_EQ(e.extra["sampled_value_attributes"]["current_a"],
            (json{{"context", "Sample.Periodic"}, {"location", "Outlet"}}));
}

TEST_F(Ocpp16Test, UnparsableAndSignedValuesAreKeptNotGuessed) {
  mode = rpc::ValidationMode::Lenient;
  const json text = sampled("12,5");  // decimal comma: ambiguous
  const json blank = sampled("");
  const json nan = sampled("nan");
  const json signed_value = {{"value", "1234"}, {"format", "SignedData"}};
  const json bad_unit = sampled("3", "Energy.Active.Import.Register", "MWh");
  const json mistyped_measurand = {{"value", "4"}, {"measurand", 17}};
  const auto r =
      call("MeterValues",
           {{"connectorId", 1},
            {"meterValue",
             {meter_value("2025-06-15T15:00:00Z", {text, blank, nan, signed_value, bad_unit,
                                                   mistyped_measurand, sampled(" 99 ")})}}});
  result_of(r, "MeterValues");
  ASSERT_EQ(r.events.size(), 1u);
  const Event& e = r.events[0];
  EXPECT_EQ(e.meter_wh, 99);  // surrounding blanks are the only repair
  EXPECT_EQ(e.extra["sampled_values"],
            (json{text, blank, nan, signed_value, bad_unit, mistyped_measurand}));
}

TEST_F(Ocpp16Test, LenientExtraMembersOfAColumnValueAreKeptBesideIt) {
  mode = rpc::ValidationMode::Lenient;
  const json value = {
      {"value", "11"}, {"unit", "kWh"}, {"context", "Sample.Clock"}, {"vendorNote", "calibrated"}};
  const auto r =
      call("MeterValues",
           {{"connectorId", 1}, {"meterValue", {meter_value("2025-06-15T15:00:00Z", {value})}}});
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].meter_wh, 11000);
  EXPECT_EQ(r.events[0].extra["sampled_value_attributes"]["meter_wh"],
            (json{{"context", "Sample.Clock"}, {"vendorNote", "calibrated"}}));
}

TEST(Ocpp16SampledValue, ReadsDecimalStringsWithTheUnitBesideThem) {
  const json power = {{"value", " 7.5 "}, {"measurand", "Power.Active.Import"}, {"unit", "kW"}};
  const auto r = read_sampled_value(power);  // views into `power`
  EXPECT_EQ(r.measurand, "Power.Active.Import");
  EXPECT_EQ(r.unit, "kW");
  EXPECT_EQ(r.value, 7.5);
  EXPECT_FALSE(read_sampled_value(json{{"value", "7"}, {"unit", 3}}).value);  // mistyped unit
  EXPECT_FALSE(read_sampled_value(json{{"value", "7"}, {"format", "SignedData"}}).value);
  EXPECT_FALSE(read_sampled_value(json{{"value", "7e"}}).value);
}

TEST_F(Ocpp16Test, StartTransactionEventCarriesTheAssignedId) {
  state.next_transaction_id = 123456;
  const auto r = call("StartTransaction", {{"connectorId", 3},
                                           {"idTag", "T"},
                                           {"meterStart", 4711},
                                           {"reservationId", 9},
                                           {"timestamp", "2025-06-15T17:00:00+02:00"}});
  result_of(r, "StartTransaction");
  ASSERT_EQ(r.events.size(), 1u);
  const Event& e = r.events[0];
  EXPECT_EQ(e.event_type, EventType::StartTransaction);
  EXPECT_EQ(e.transaction_id, "123456");
  EXPECT_EQ(e.meter_wh, 4711);
  EXPECT_EQ(e.connector_id, 3);
  EXPECT_EQ(e.event_ts_ms, ms("2025-06-15T15:00:00Z"));
  EXPECT_EQ(e.extra["reservationId"], 9);
  EXPECT_EQ(e.extra["id_token_status"], "Invalid");
  EXPECT_TRUE(e.id_token_hash);
}

TEST_F(Ocpp16Test, StopTransactionKeepsReasonAndTransactionData) {
  const auto r = call(
      "StopTransaction",
      {{"transactionId", 8},
       {"meterStop", 2500},
       {"reason", "EmergencyStop"},
       {"timestamp", "2025-06-15T16:00:00Z"},
       {"transactionData", {meter_value("2025-06-15T15:30:00Z", {sampled("2.0", "", "kWh")})}}});
  ASSERT_EQ(r.events.size(), 2u);
  EXPECT_EQ(r.events[0].stop_reason, "EmergencyStop");
  EXPECT_FALSE(r.events[0].id_token_hash);
  EXPECT_FALSE(r.events[0].extra.contains("transactionData"));
  EXPECT_EQ(r.events[1].event_type, EventType::MeterValues);
  EXPECT_EQ(r.events[1].transaction_id, "8");
  EXPECT_EQ(r.events[1].meter_wh, 2000);
  EXPECT_EQ(r.events[1].event_ts_ms, ms("2025-06-15T15:30:00Z"));
}

TEST_F(Ocpp16Test, StatusNotificationIsNormalised) {
  const auto r = call("StatusNotification", {{"connectorId", 0},
                                             {"errorCode", "GroundFailure"},
                                             {"status", "SuspendedEVSE"},
                                             {"info", "RCD tripped"},
                                             {"vendorId", "com.alfen"},
                                             {"vendorErrorCode", "E42"},
                                             {"timestamp", "2025-06-15T15:00:00.250Z"}});
  ASSERT_EQ(r.events.size(), 1u);
  const Event& e = r.events[0];
  EXPECT_EQ(e.connector_id, 0);
  EXPECT_EQ(e.connector_status, "SUSPENDED_EVSE");
  EXPECT_EQ(e.error_code, "GroundFailure");
  EXPECT_EQ(e.event_ts_ms, ms("2025-06-15T15:00:00.250Z"));
  EXPECT_EQ(e.extra,
            (json{{"info", "RCD tripped"}, {"vendorId", "com.alfen"}, {"vendorErrorCode", "E42"}}));
}

TEST_F(Ocpp16Test, StatusNotificationWithoutTimestampUsesIngestTime) {
  const auto r = call("StatusNotification",
                      {{"connectorId", 1}, {"errorCode", "NoError"}, {"status", "Available"}});
  EXPECT_EQ(r.events.at(0).event_ts_ms, kNow);
}

TEST_F(Ocpp16Test, BootAndDataTransferDetailsLandInExtra) {
  const auto boot = call("BootNotification", {{"chargePointVendor", "Alfen BV"},
                                              {"chargePointModel", "NG920"},
                                              {"chargePointSerialNumber", "S1"},
                                              {"chargeBoxSerialNumber", "B1"},
                                              {"firmwareVersion", "6.1"},
                                              {"imsi", "204080000000001"}});
  const json& extra = boot.events.at(0).extra;
  EXPECT_EQ(extra["chargePointVendor"], "Alfen BV");
  EXPECT_EQ(extra["chargePointModel"], "NG920");
  EXPECT_EQ(extra["chargePointSerialNumber"], "S1");
  EXPECT_EQ(extra["chargeBoxSerialNumber"], "B1");
  EXPECT_EQ(extra["firmwareVersion"], "6.1");
  EXPECT_EQ(extra["imsi"], "204080000000001");
  EXPECT_EQ(extra["registration_status"], "Accepted");
  EXPECT_EQ(extra["interval"], 300);

  const auto dt = call("DataTransfer", {{"vendorId", "com.x"}, {"messageId", "m"}, {"data", "d"}});
  EXPECT_EQ(dt.events.at(0).extra, (json{{"vendorId", "com.x"},
                                         {"messageId", "m"},
                                         {"data", "d"},
                                         {"response_status", "UnknownVendorId"}}));
}

TEST_F(Ocpp16Test, LenientMetersWithoutEntriesStillYieldOneEvent) {
  mode = rpc::ValidationMode::Lenient;
  const auto r = call(
      "MeterValues", {{"connectorId", "1"}, {"meterValue", json::array()}, {"firmwareHint", true}});
  result_of(r, "MeterValues");
  ASSERT_EQ(r.events.size(), 1u);
  const Event& e = r.events[0];
  EXPECT_EQ(e.event_type, EventType::MeterValues);
  EXPECT_FALSE(e.connector_id);
  EXPECT_EQ(e.extra["connectorId"], "1");  // mistyped: kept as sent, not guessed
  EXPECT_EQ(e.extra["meterValue"], json::array());
  EXPECT_EQ(e.extra["firmwareHint"], true);
  EXPECT_TRUE(has_flag(e, analytics::flag::kSchemaViolation));
}

TEST_F(Ocpp16Test, MappersCopeWithArbitraryShapesInLenientMode) {
  mode = rpc::ValidationMode::Lenient;
  const std::vector<json> odd = {json::object(),
                                 json{{"meterValue", 5}},
                                 json{{"meterValue", {1, "x", nullptr}}},
                                 json{{"meterValue", {{{"sampledValue", "v"}}}}},
                                 json{{"meterValue", {{{"sampledValue", {1, json::array()}}}}}},
                                 json{{"transactionData", {{{"timestamp", 3}}}}}};
  for (const auto& action : {"MeterValues", "StopTransaction", "StatusNotification", "Authorize",
                             "BootNotification", "StartTransaction"}) {
    for (const auto& payload : odd) {
      const auto r = call(action, payload);
      EXPECT_FALSE(r.reply.empty()) << action << payload;
      EXPECT_FALSE(r.events.empty()) << action << payload;
    }
  }
}

}  // namespace
}  // namespace ocppgw::ocpp16
