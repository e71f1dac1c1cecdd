// tests/unit/ocpp201/mappers_test.cpp: 2.0.1 frames -> canonical events: the transaction
// lifecycle, seqNo and offline-replay cases, one event per meter timestamp, unit normalisation.
#include "ocpp201/mappers.hpp"

#include <algorithm>

#include <gtest/gtest.h>

#include "tests/unit/ocpp201/harness.hpp"
#include "util/time.hpp"

namespace ocppgw::ocpp201::test {
namespace {

using analytics::Event;
using analytics::EventType;
namespace flag = analytics::flag;

int64_t ms(const char* text) { return *util::parse_rfc3339_ms(text); }

json energy(double value, std::string_view unit = "Wh", const char* context = "Sample.Periodic") {
  return {{"value", value},
          {"context", context},
          {"measurand", "Energy.Active.Import.Register"},
          {"unitOfMeasure", {{"unit", unit}}}};
}

json meter_value(const char* timestamp, json sampled_values) {
  return {{"timestamp", timestamp}, {"sampledValue", std::move(sampled_values)}};
}

json tx_event(const char* event_type, int64_t seq_no, const char* timestamp, const char* trigger,
              std::string_view tx_id = "tx-0001") {
  return {{"eventType", event_type},
          {"timestamp", timestamp},
          {"triggerReason", trigger},
          {"seqNo", seq_no},
          {"transactionInfo", {{"transactionId", tx_id}}},
          {"evse", {{"id", 1}, {"connectorId", 1}}}};
}

class Ocpp201Transaction : public ::testing::Test {
 protected:
  Harness h;
  int n = 0;

  std::vector<Event> send(const json& payload) {
    const auto r = h.call("TransactionEvent", payload, "te-" + std::to_string(++n));
    result_payload(r, "TransactionEvent");
    return r.events;
  }
};

TEST_F(Ocpp201Transaction, LifecycleMapsToStartMeterValuesStop) {
  h.state.tokens["VID:04A2B3C4"] = rpc::IdTokenInfo{"Accepted", std::nullopt, std::nullopt};
  json started = tx_event("Started", 0, "2024-06-01T08:00:00Z", "Authorized");
  started["transactionInfo"]["chargingState"] = "EVConnected";
  started["idToken"] = {{"idToken", "VID:04A2B3C4"}, {"type", "MacAddress"}};
  started["meterValue"] = {
      meter_value("2024-06-01T08:00:00Z", {energy(1234.5, "Wh", "Transaction.Begin")})};
  auto events = send(started);
  ASSERT_EQ(events.size(), 1u);
  Event e = events[0];
  EXPECT_EQ(e.event_type, EventType::StartTransaction);
  EXPECT_EQ(e.ocpp_action, "TransactionEvent");
  EXPECT_EQ(e.transaction_id, "tx-0001");
  EXPECT_EQ(e.seq_no, 0);
  EXPECT_EQ(e.trigger_reason, "Authorized");
  EXPECT_EQ(e.evse_id, 1);
  EXPECT_EQ(e.connector_id, 1);
  EXPECT_EQ(e.id_token_hash, token_hash("VID:04A2B3C4"));
  EXPECT_EQ(e.meter_wh, 1234.5);
  EXPECT_EQ(e.event_ts_ms, ms("2024-06-01T08:00:00Z"));
  EXPECT_EQ(e.extra["transactionInfo"], json({{"chargingState", "EVConnected"}}));
  EXPECT_EQ(e.extra["sampled_value_attributes"]["meter_wh"]["context"], "Transaction.Begin");
  EXPECT_EQ(e.extra["id_token_type"], "MacAddress");
  EXPECT_EQ(e.extra["id_token_status"], "Accepted");
  EXPECT_FALSE(e.extra.contains("evse"));  // fully mapped
  EXPECT_TRUE(e.flags.empty());

  json periodic = tx_event("Updated", 1, "2024-06-01T08:15:00Z", "MeterValuePeriodic");
  periodic["meterValue"] = {meter_value("2024-06-01T08:15:00Z", {energy(4.5, "kWh")})};
  events = send(periodic);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].event_type, EventType::MeterValues);
  EXPECT_EQ(events[0].transaction_id, "tx-0001");
  EXPECT_EQ(events[0].seq_no, 1);
  EXPECT_EQ(events[0].meter_wh, 4500.0);
  EXPECT_EQ(events[0].event_ts_ms, ms("2024-06-01T08:15:00Z"));
  EXPECT_FALSE(events[0].id_token_hash.has_value());

  json suspended = tx_event("Updated", 2, "2024-06-01T08:20:00Z", "ChargingStateChanged");
  suspended["transactionInfo"]["chargingState"] = "SuspendedEV";
  events = send(suspended);
  ASSERT_EQ(events.size(), 1u);  // no meter values: still one event, at the message time
  EXPECT_EQ(events[0].event_type, EventType::MeterValues);
  EXPECT_FALSE(events[0].meter_wh.has_value());
  EXPECT_EQ(events[0].trigger_reason, "ChargingStateChanged");
  EXPECT_EQ(events[0].extra["transactionInfo"]["chargingState"], "SuspendedEV");
  EXPECT_EQ(events[0].event_ts_ms, ms("2024-06-01T08:20:00Z"));

  json ended = tx_event("Ended", 3, "2024-06-01T09:00:00Z", "EVCommunicationLost");
  ended["transactionInfo"]["stoppedReason"] = "EVDisconnected";
  ended["meterValue"] = {
      meter_value("2024-06-01T09:00:00Z", {energy(9876.0, "Wh", "Transaction.End")})};
  events = send(ended);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].event_type, EventType::StopTransaction);
  EXPECT_EQ(events[0].stop_reason, "EVDisconnected");
  EXPECT_EQ(events[0].meter_wh, 9876.0);
  EXPECT_EQ(events[0].seq_no, 3);
  EXPECT_FALSE(events[0].extra.contains("transactionInfo"));  // id and reason are columns
  EXPECT_TRUE(events[0].flags.empty());

  const auto& tx = h.state.tx201.at({std::string(kChargePoint), "tx-0001"});
  EXPECT_TRUE(tx.started);
  EXPECT_TRUE(tx.ended);
  EXPECT_EQ(tx.last_seq_no, 3);
}

TEST_F(Ocpp201Transaction, UnknownTransactionIsAnsweredAndFlagged) {
  const auto events =
      send(tx_event("Updated", 5, "2024-06-01T08:15:00Z", "MeterValuePeriodic", "never-started"));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_TRUE(has_flag(events[0], flag::kUnknownTransaction));
  EXPECT_EQ(events[0].transaction_id, "never-started");
}

TEST_F(Ocpp201Transaction, EndedBeforeStartedIsAnsweredAndFlagged) {
  json ended = tx_event("Ended", 4, "2024-06-01T09:00:00Z", "StopAuthorized");
  ended["transactionInfo"]["stoppedReason"] = "Local";
  auto events = send(ended);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].event_type, EventType::StopTransaction);
  EXPECT_TRUE(has_flag(events[0], flag::kEndedBeforeStarted));
  // The late Started is still accepted and recorded.
  events = send(tx_event("Started", 0, "2024-06-01T08:00:00Z", "CablePluggedIn"));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].event_type, EventType::StartTransaction);
}

TEST_F(Ocpp201Transaction, RepeatedSeqNoIsAnsweredAndFlagged) {
  send(tx_event("Started", 0, "2024-06-01T08:00:00Z", "CablePluggedIn"));
  send(tx_event("Updated", 1, "2024-06-01T08:05:00Z", "MeterValuePeriodic"));
  const auto events = send(tx_event("Updated", 1, "2024-06-01T08:05:00Z", "MeterValuePeriodic"));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_TRUE(has_flag(events[0], flag::kSeqNoRepeated));
  EXPECT_FALSE(has_flag(events[0], flag::kSeqNoGap));
}

TEST_F(Ocpp201Transaction, SeqNoGapIsAnsweredAndFlagged) {
  send(tx_event("Started", 0, "2024-06-01T08:00:00Z", "CablePluggedIn"));
  const auto events = send(tx_event("Updated", 3, "2024-06-01T08:05:00Z", "MeterValuePeriodic"));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_TRUE(has_flag(events[0], flag::kSeqNoGap));
  EXPECT_EQ(events[0].seq_no, 3);
}

TEST_F(Ocpp201Transaction, OfflineReplayKeepsDeviceTimesOutOfOrder) {
  // The station lost its connection at 08:00, queued a whole session, and replays it after
  // reconnecting at 10:00 (ingest time), not in seqNo order.
  const char* times[] = {"2024-06-01T08:01:00Z", "2024-06-01T08:31:00Z", "2024-06-01T09:01:00Z"};
  json started = tx_event("Started", 0, times[0], "CablePluggedIn", "offline-tx");
  json updated = tx_event("Updated", 1, times[1], "MeterValuePeriodic", "offline-tx");
  updated["meterValue"] = {meter_value(times[1], {energy(5000)})};
  json ended = tx_event("Ended", 2, times[2], "EVCommunicationLost", "offline-tx");
  ended["transactionInfo"]["stoppedReason"] = "EVDisconnected";
  for (json* p : {&started, &updated, &ended}) (*p)["offline"] = true;

  const auto e_started = send(started);
  const auto e_ended = send(ended);
  const auto e_updated = send(updated);
  for (const auto* events : {&e_started, &e_ended, &e_updated}) {
    ASSERT_EQ(events->size(), 1u);
    EXPECT_TRUE(has_flag(events->front(), flag::kOfflineReplay));
    EXPECT_EQ(events->front().ingest_ts_ms, kIngestMs);
    EXPECT_EQ(events->front().transaction_id, "offline-tx");
    EXPECT_FALSE(events->front().extra.contains("offline"));  // it is the flag
  }
  EXPECT_EQ(e_started[0].event_ts_ms, ms(times[0]));
  EXPECT_EQ(e_ended[0].event_ts_ms, ms(times[2]));
  EXPECT_EQ(e_updated[0].event_ts_ms, ms(times[1]));
  EXPECT_EQ(e_updated[0].meter_wh, 5000.0);
  EXPECT_EQ(e_ended[0].event_type, EventType::StopTransaction);
  EXPECT_TRUE(has_flag(e_ended[0], flag::kSeqNoGap));         // 0 then 2
  EXPECT_TRUE(has_flag(e_updated[0], flag::kSeqNoRepeated));  // 1 after 2
}

TEST_F(Ocpp201Transaction, LiveEventsAreNotMarkedOffline) {
  json live = tx_event("Started", 0, "2024-06-01T09:59:59Z", "CablePluggedIn");
  live["offline"] = false;
  const auto events = send(live);
  EXPECT_FALSE(has_flag(events[0], flag::kOfflineReplay));
}

// ---- one event per meter timestamp ----

TEST_F(Ocpp201Transaction, EndedWithSeveralTimestampsGivesStopPlusMeterValues) {
  send(tx_event("Started", 0, "2024-06-01T08:00:00Z", "CablePluggedIn"));
  json ended = tx_event("Ended", 1, "2024-06-01T09:00:00Z", "StopAuthorized");
  ended["transactionInfo"]["stoppedReason"] = "Local";
  ended["meterValue"] = {
      meter_value("2024-06-01T08:30:00Z", {energy(3000)}),
      meter_value("2024-06-01T08:45:00Z", {energy(4000)}),
      meter_value("2024-06-01T09:00:00Z", {energy(5.2, "kWh", "Transaction.End")})};
  const auto events = send(ended);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].event_type, EventType::StopTransaction);
  EXPECT_EQ(events[0].meter_wh, 5200.0);
  EXPECT_EQ(events[0].event_ts_ms, ms("2024-06-01T09:00:00Z"));
  EXPECT_EQ(events[0].stop_reason, "Local");
  for (size_t i = 1; i < 3; ++i) {
    EXPECT_EQ(events[i].event_type, EventType::MeterValues);
    EXPECT_EQ(events[i].transaction_id, "tx-0001");
    EXPECT_EQ(events[i].seq_no, 1);
    EXPECT_EQ(events[i].trigger_reason, "StopAuthorized");
    EXPECT_FALSE(events[i].stop_reason.has_value());
    EXPECT_NE(events[i].event_id, events[0].event_id);
  }
  EXPECT_EQ(events[1].meter_wh, 3000.0);
  EXPECT_EQ(events[1].event_ts_ms, ms("2024-06-01T08:30:00Z"));
  EXPECT_EQ(events[2].meter_wh, 4000.0);
  EXPECT_EQ(events[2].event_ts_ms, ms("2024-06-01T08:45:00Z"));
}

TEST_F(Ocpp201Transaction, StartedWithoutAReadingAtItsTimestampKeepsTheReadingSeparate) {
  json started = tx_event("Started", 0, "2024-06-01T08:00:05Z", "Authorized");
  started["meterValue"] = {
      meter_value("2024-06-01T08:00:00Z", {energy(100, "Wh", "Transaction.Begin")})};
  const auto events = send(started);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event_type, EventType::StartTransaction);
  EXPECT_FALSE(events[0].meter_wh.has_value());
  EXPECT_EQ(events[0].event_ts_ms, ms("2024-06-01T08:00:05Z"));
  EXPECT_EQ(events[1].event_type, EventType::MeterValues);
  EXPECT_EQ(events[1].meter_wh, 100.0);
  EXPECT_EQ(events[1].event_ts_ms, ms("2024-06-01T08:00:00Z"));
}

TEST_F(Ocpp201Transaction, UpdatedWithSeveralTimestampsGivesOneEventEachAndExtraOnce) {
  send(tx_event("Started", 0, "2024-06-01T08:00:00Z", "CablePluggedIn"));
  json updated = tx_event("Updated", 1, "2024-06-01T08:30:00Z", "MeterValuePeriodic");
  updated["transactionInfo"]["chargingState"] = "Charging";
  updated["meterValue"] = {meter_value("2024-06-01T08:10:00Z", {energy(1000)}),
                           meter_value("2024-06-01T08:20:00Z", {energy(2000)})};
  const auto events = send(updated);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].meter_wh, 1000.0);
  EXPECT_EQ(events[1].meter_wh, 2000.0);
  EXPECT_EQ(events[0].extra["transactionInfo"]["chargingState"], "Charging");
  EXPECT_FALSE(events[1].extra.contains("transactionInfo"));
}

TEST(Ocpp201MeterValues, OneEventPerTimestampWithEntriesOfOneInstantMerged) {
  Harness h;
  const json req = {
      {"evseId", 2},
      {"meterValue",
       {meter_value("2024-06-01T09:00:00Z", {energy(10.0, "kWh")}),
        meter_value("2024-06-01T09:00:00.000+00:00", {{{"value", 11.0},
                                                       {"measurand", "Power.Active.Import"},
                                                       {"unitOfMeasure", {{"unit", "kW"}}}}}),
        meter_value("2024-06-01T09:05:00Z", {energy(10.9, "kWh")})}}};
  const auto r = h.call("MeterValues", req);
  result_payload(r, "MeterValues");
  ASSERT_EQ(r.events.size(), 2u);
  EXPECT_EQ(r.events[0].evse_id, 2);
  EXPECT_EQ(r.events[0].meter_wh, 10000.0);
  EXPECT_EQ(r.events[0].power_w, 11000.0);
  EXPECT_EQ(r.events[0].event_ts_ms, ms("2024-06-01T09:00:00Z"));
  EXPECT_EQ(r.events[1].evse_id, 2);
  EXPECT_DOUBLE_EQ(*r.events[1].meter_wh, 10900.0);
  EXPECT_EQ(r.events[1].event_ts_ms, ms("2024-06-01T09:05:00Z"));
  EXPECT_FALSE(r.events[1].transaction_id.has_value());
}

// ---- units ----

TEST(Ocpp201MeterValues, UnitsAndMultipliersAreNormalised) {
  Harness h;
  const json sampled = json::array({
      {{"value", 125},
       {"unitOfMeasure", {{"unit", "Wh"}, {"multiplier", 2}}}},  // default measurand
      {{"value", 7.4}, {"measurand", "Power.Active.Import"}, {"unitOfMeasure", {{"unit", "kW"}}}},
      {{"value", 160},
       {"measurand", "Current.Import"},
       {"unitOfMeasure", {{"unit", "A"}, {"multiplier", -1}}}},
      {{"value", 231}, {"measurand", "Voltage"}, {"unitOfMeasure", {{"unit", "V"}}}},
      {{"value", 64}, {"measurand", "SoC"}, {"unitOfMeasure", {{"unit", "Percent"}}}},
      {{"value", 230},
       {"measurand", "Voltage"},
       {"phase", "L1-N"},
       {"unitOfMeasure", {{"unit", "V"}}}},
      {{"value", 12},
       {"measurand", "Energy.Reactive.Import.Register"},
       {"unitOfMeasure", {{"unit", "kvarh"}}}},
  });
  const auto r =
      h.call("MeterValues",
             {{"evseId", 1}, {"meterValue", {meter_value("2024-06-01T09:00:00Z", sampled)}}});
  result_payload(r, "MeterValues");
  ASSERT_EQ(r.events.size(), 1u);
  const Event& e = r.events[0];
  EXPECT_DOUBLE_EQ(*e.meter_wh, 12500.0);
  EXPECT_DOUBLE_EQ(*e.power_w, 7400.0);
  EXPECT_DOUBLE_EQ(*e.current_a, 16.0);
  EXPECT_DOUBLE_EQ(*e.voltage_v, 231.0);
  EXPECT_DOUBLE_EQ(*e.soc_pct, 64.0);
  // Phase readings and measurands without a column are kept as sent.
  ASSERT_EQ(e.extra["sampled_values"].size(), 2u);
  EXPECT_EQ(e.extra["sampled_values"][0], sampled[5]);
  EXPECT_EQ(e.extra["sampled_values"][1], sampled[6]);
}

TEST(Ocpp201MeterValues, KiloWattHoursWithMultiplierAndUnknownUnitsAreNotGuessed) {
  Harness h;
  json sampled = json::array({
      {{"value", 1.5},
       {"measurand", "Energy.Active.Import.Register"},
       {"unitOfMeasure", {{"unit", "kWh"}, {"multiplier", 1}}}},
      {{"value", 3}, {"measurand", "Power.Active.Import"}, {"unitOfMeasure", {{"unit", "MW"}}}},
  });
  const auto r =
      h.call("MeterValues",
             {{"evseId", 1}, {"meterValue", {meter_value("2024-06-01T09:00:00Z", sampled)}}});
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_DOUBLE_EQ(*r.events[0].meter_wh, 15000.0);
  EXPECT_FALSE(r.events[0].power_w.has_value());
  EXPECT_EQ(r.events[0].extra["sampled_values"][0], sampled[1]);
}

TEST(Ocpp201MeterValues, AValueBeyondDoubleRangeOnceScaledIsKeptAndFlagged) {
  Harness h;
  const json sampled = json::array({
      {{"value", 1e300}, {"unitOfMeasure", {{"unit", "Wh"}, {"multiplier", 10}}}},
      {{"value", 1.7e308},
       {"measurand", "Power.Active.Import"},
       {"unitOfMeasure", {{"unit", "kW"}}}},
      {{"value", 231}, {"measurand", "Voltage"}, {"unitOfMeasure", {{"unit", "V"}}}},
  });
  const auto r =
      h.call("MeterValues",
             {{"evseId", 1}, {"meterValue", {meter_value("2024-06-01T09:00:00Z", sampled)}}});
  result_payload(r, "MeterValues");
  ASSERT_EQ(r.events.size(), 1u);
  const Event& e = r.events[0];
  // Not an infinite column (which JSON would write as null), but the values as sent.
  EXPECT_FALSE(e.meter_wh.has_value());
  EXPECT_FALSE(e.power_w.has_value());
  EXPECT_TRUE(has_flag(e, flag::kValueOutOfRange));
  EXPECT_EQ(std::count(e.flags.begin(), e.flags.end(), flag::kValueOutOfRange), 1);
  ASSERT_EQ(e.extra["sampled_values"].size(), 2u);
  EXPECT_EQ(e.extra["sampled_values"][0], sampled[0]);
  EXPECT_EQ(e.extra["sampled_values"][1], sampled[1]);
  EXPECT_DOUBLE_EQ(*e.voltage_v, 231.0);  // the rest of the frame maps as usual

  // In range: no flag.
  const auto ok = h.call(
      "MeterValues",
      {{"evseId", 1}, {"meterValue", {meter_value("2024-06-01T09:00:00Z", {energy(1e300)})}}});
  ASSERT_EQ(ok.events.size(), 1u);
  EXPECT_DOUBLE_EQ(*ok.events[0].meter_wh, 1e300);
  EXPECT_FALSE(has_flag(ok.events[0], flag::kValueOutOfRange));
}

TEST(Ocpp201MeterValues, ANumberBeyondDoubleRangeInTheFrameIsRefusedWithItsId) {
  Harness h;
  const auto r = h.send_text(
      R"([2,"te-big","TransactionEvent",{"eventType":"Updated","timestamp":"2024-06-01T09:00:00Z",)"
      R"("triggerReason":"MeterValuePeriodic","seqNo":1,"transactionInfo":{"transactionId":"t"},)"
      R"("meterValue":[{"timestamp":"2024-06-01T09:00:00Z","sampledValue":[{"value":1e400}]}]}])");
  const json reply = json::parse(r.reply);
  EXPECT_EQ(reply[1], "te-big");
  EXPECT_EQ(call_error(r).first, "FormatViolation");  // the 2.0.1 spelling
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].event_type, EventType::Invalid);
}

TEST(Ocpp201MeterValues, SignedMeterValueIsKeptInExtra) {
  Harness h;
  const json signed_value = {{"signedMeterData", "AP///wAAAAAAAAAAAA=="},
                             {"signingMethod", "ECDSA-secp256r1-SHA256"},
                             {"encodingMethod", "OCMF"},
                             {"publicKey", "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE"}};
  json sv = energy(4321.0, "Wh", "Transaction.End");
  sv["signedMeterValue"] = signed_value;
  const auto r = h.call(
      "MeterValues", {{"evseId", 1}, {"meterValue", {meter_value("2024-06-01T09:00:00Z", {sv})}}});
  result_payload(r, "MeterValues");
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].meter_wh, 4321.0);
  const json& attributes = r.events[0].extra["sampled_value_attributes"]["meter_wh"];
  EXPECT_EQ(attributes["signedMeterValue"], signed_value);
  EXPECT_EQ(attributes["context"], "Transaction.End");
}

TEST(Ocpp201MeterValues, ReaderScalesByPowersOfTen) {
  const json sv = {{"value", 2.5},
                   {"measurand", "Energy.Active.Import.Register"},
                   {"unitOfMeasure", {{"unit", "kWh"}, {"multiplier", 3}}}};
  const auto r = read_sampled_value(sv);  // views into sv
  EXPECT_EQ(r.measurand, "Energy.Active.Import.Register");
  EXPECT_EQ(r.unit, "kWh");
  EXPECT_DOUBLE_EQ(*r.value, 2500.0);
  EXPECT_FALSE(read_sampled_value(json{{"value", "12"}}).value.has_value());
}

// ---- status, ids ----

TEST(Ocpp201Status, ConnectorStatusesAreNormalised) {
  const std::pair<const char*, const char*> cases[] = {{"Available", "AVAILABLE"},
                                                       {"Occupied", "OCCUPIED"},
                                                       {"Reserved", "RESERVED"},
                                                       {"Unavailable", "UNAVAILABLE"},
                                                       {"Faulted", "FAULTED"}};
  for (const auto& [status, normalised] : cases) {
    Harness h;
    const auto r = h.call("StatusNotification", {{"timestamp", "2024-06-01T09:59:58.120Z"},
                                                 {"connectorStatus", status},
                                                 {"evseId", 2},
                                                 {"connectorId", 1}});
    result_payload(r, "StatusNotification");
    ASSERT_EQ(r.events.size(), 1u);
    EXPECT_EQ(r.events[0].connector_status, normalised);
    EXPECT_EQ(r.events[0].evse_id, 2);
    EXPECT_EQ(r.events[0].connector_id, 1);
    EXPECT_EQ(r.events[0].event_ts_ms, ms("2024-06-01T09:59:58.120Z"));
    EXPECT_TRUE(r.events[0].extra.empty());
  }
}

TEST(Ocpp201Events, AnExactResendGivesTheSameEventIds) {
  Harness h;
  json ended = tx_event("Ended", 1, "2024-06-01T09:00:00Z", "StopAuthorized");
  ended["meterValue"] = {meter_value("2024-06-01T08:30:00Z", {energy(3000)}),
                         meter_value("2024-06-01T09:00:00Z", {energy(5000)})};
  const auto first = h.call("TransactionEvent", ended, "same-id");
  const auto again = h.call("TransactionEvent", ended, "same-id");
  ASSERT_EQ(first.events.size(), 2u);
  ASSERT_EQ(again.events.size(), 2u);
  EXPECT_EQ(first.events[0].event_id, again.events[0].event_id);
  EXPECT_EQ(first.events[1].event_id, again.events[1].event_id);
  // A reused message id with other bytes does not collide.
  ended["seqNo"] = 2;
  const auto other = h.call("TransactionEvent", ended, "same-id");
  EXPECT_NE(other.events[0].event_id, first.events[0].event_id);
}

TEST(Ocpp201Events, InvalidDeviceTimestampKeepsIngestTimeAndIsFlagged) {
  Harness h;
  h.mode = rpc::ValidationMode::Lenient;  // valijson does not check "format": date-time
  const auto r = h.call("SecurityEventNotification",
                        {{"type", "TamperDetectionActivated"}, {"timestamp", "yesterday"}});
  result_payload(r, "SecurityEventNotification");
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].event_ts_ms, kIngestMs);
  EXPECT_TRUE(has_flag(r.events[0], "INVALID_TIMESTAMP"));
  EXPECT_EQ(r.events[0].extra["raw_timestamp"], "yesterday");
}

}  // namespace
}  // namespace ocppgw::ocpp201::test
