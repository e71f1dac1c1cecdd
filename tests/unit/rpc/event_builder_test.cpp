// tests/unit/rpc/event_builder_test.cpp: the helpers every mapper shares.
#include "rpc/event_builder.hpp"

#include <gtest/gtest.h>

#include "tests/support/fake_csms_state.hpp"
#include "tests/unit/rpc/context.hpp"
#include "util/time.hpp"

namespace ocppgw::rpc {
namespace {

using analytics::Event;
using nlohmann::json;

TEST(RpcEventBuilder, FillsCommonFieldsAndNumbersEvents) {
  testing::FakeCsmsState state;
  Policy policy{.id_token_secret = "s", .gateway_node = "n-1"};
  CallContext ctx =
      make_context(policy, state, "CP", ValidationMode::Strict, 77, OcppVersion::v201);
  ctx.message_id = "m";
  ctx.action = "TransactionEvent";
  ctx.flags.emplace_back("X");
  EventBuilder b(ctx, "{}");
  b.add(analytics::EventType::StartTransaction).flags.emplace_back("X");
  b.add(analytics::EventType::MeterValues);
  const auto events = std::move(b).finish();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].ocpp_version, "2.0.1");
  EXPECT_EQ(events[0].gateway_node, "n-1");
  EXPECT_EQ(events[0].event_ts_ms, 77);
  EXPECT_EQ(events[0].flags, std::vector<std::string>{"X"});  // not duplicated
  EXPECT_EQ(events[1].flags, std::vector<std::string>{"X"});
  EXPECT_EQ(events[0].event_id, analytics::make_event_id("CP", "m", "TransactionEvent", "{}", 0));
  EXPECT_EQ(events[1].event_id, analytics::make_event_id("CP", "m", "TransactionEvent", "{}", 1));
}

TEST(RpcEventBuilder, DeviceTimeIsParsedOrKeptAndFlagged) {
  Event e;
  e.event_ts_ms = 1;
  set_device_time(e, json());
  EXPECT_EQ(e.event_ts_ms, 1);
  EXPECT_TRUE(e.flags.empty());
  set_device_time(e, json("2025-01-01T01:00:00+01:00"));
  EXPECT_EQ(e.event_ts_ms, *util::parse_rfc3339_ms("2025-01-01T00:00:00Z"));
  Event bad;
  set_device_time(bad, json("2025-02-30T00:00:00Z"));
  EXPECT_EQ(bad.extra["raw_timestamp"], "2025-02-30T00:00:00Z");
  EXPECT_EQ(bad.flags, std::vector<std::string>{"INVALID_TIMESTAMP"});
  Event number;
  set_device_time(number, json(1735689600));
  EXPECT_EQ(number.extra["raw_timestamp"], 1735689600);
  EXPECT_EQ(number.flags, std::vector<std::string>{"INVALID_TIMESTAMP"});
}

TEST(RpcEventBuilder, SampledValuesAreNormalisedOrKept) {
  Event e;
  apply_sampled_value(e, "", "", 10.0, json{{"value", "10"}});
  EXPECT_EQ(e.meter_wh, 10.0);
  apply_sampled_value(e, "Energy.Active.Import.Register", "kWh", 2.0, json{{"value", "2"}});
  EXPECT_EQ(e.meter_wh, 10.0);  // first reading wins; the second is kept
  EXPECT_EQ(e.extra["sampled_values"].size(), 1u);
  apply_sampled_value(e, "Power.Active.Import", "kW", 11.0, json{{"value", "11"}});
  EXPECT_EQ(e.power_w, 11000.0);
  apply_sampled_value(e, "Voltage", "V", 230.0, json{{"value", "230"}, {"phase", "L1-N"}});
  EXPECT_FALSE(e.voltage_v);
  apply_sampled_value(e, "SoC", "Percent", 80.0, json{{"value", "80"}});
  EXPECT_EQ(e.soc_pct, 80.0);
  apply_sampled_value(e, "Current.Import", "mA", 5.0, json{{"value", "5"}});
  EXPECT_FALSE(e.current_a);  // unknown unit: never guessed
  EXPECT_EQ(e.extra["sampled_values"].size(), 3u);
}

TEST(RpcEventBuilder, StatusesAreNormalised) {
  EXPECT_EQ(normalize_status("SuspendedEV"), "SUSPENDED_EV");
  EXPECT_EQ(normalize_status("SuspendedEVSE"), "SUSPENDED_EVSE");
  EXPECT_EQ(normalize_status("Available"), "AVAILABLE");
  EXPECT_EQ(normalize_status("available"), "AVAILABLE");
  EXPECT_EQ(normalize_status(" Faulted "), "FAULTED");
  EXPECT_EQ(normalize_status("SUSPENDED_EV"), "SUSPENDED_EV");
}

TEST(RpcEventBuilder, UnknownFieldsAreKept) {
  Event e;
  keep_unknown_fields(e, json{{"a", 1}, {"b", {{"c", 2}}}, {"known", 3}}, {"known"});
  EXPECT_EQ(e.extra, (json{{"a", 1}, {"b", {{"c", 2}}}}));
}

TEST(RpcEventBuilder, TokensAreHashedWithTheConfiguredSecret) {
  testing::FakeCsmsState state;
  Policy one{.id_token_secret = "one"};
  Policy two{.id_token_secret = "two"};
  const CallContext a = make_context(one, state);
  const CallContext b = make_context(two, state);
  EXPECT_EQ(hash_token(a, "TAG").size(), 64u);
  EXPECT_EQ(hash_token(a, "TAG"), hash_token(a, "TAG"));
  EXPECT_NE(hash_token(a, "TAG"), hash_token(b, "TAG"));
  EXPECT_EQ(hash_token(a, "TAG").find("TAG"), std::string::npos);
}

}  // namespace
}  // namespace ocppgw::rpc
