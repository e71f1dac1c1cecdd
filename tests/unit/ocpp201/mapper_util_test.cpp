// tests/unit/ocpp201/mapper_util_test.cpp: the version-neutral mapper helpers in
// rpc/mapper_util, exercised with a 2.0.1-shaped and a 1.6-shaped reader.
#include "rpc/mapper_util.hpp"

#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "rpc/event_builder.hpp"
#include "tests/support/fake_csms_state.hpp"
#include "util/time.hpp"

namespace ocppgw::rpc {
namespace {

using nlohmann::json;

// 1.6 sends numbers as strings and the unit beside the value.
SampledReading read_v16(const json& sv) {
  SampledReading r;
  if (auto m = string_member(sv, "measurand")) r.measurand = *m;
  if (auto u = string_member(sv, "unit")) r.unit = *u;
  if (auto v = string_member(sv, "value")) r.value = std::stod(std::string(*v));
  return r;
}

TEST(RpcMapperUtil, GroupsEntriesByInstantInFirstSeenOrder) {
  const json mv = json::parse(R"([
    {"timestamp":"2024-06-01T09:05:00Z","sampledValue":[]},
    {"timestamp":"2024-06-01T09:00:00Z","sampledValue":[]},
    {"timestamp":"2024-06-01T11:05:00+02:00","sampledValue":[]},
    {"timestamp":"garbage","sampledValue":[]},
    {"timestamp":"garbage","sampledValue":[]}])");
  const auto groups = group_meter_values(mv);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].entries.size(), 2u);  // 09:05Z and 11:05+02:00 are one instant
  EXPECT_EQ(*groups[0].timestamp, "2024-06-01T09:05:00Z");
  EXPECT_EQ(groups[1].entries.size(), 1u);
  EXPECT_FALSE(groups[2].timestamp_ms.has_value());
  EXPECT_EQ(groups[2].entries.size(), 2u);
  EXPECT_EQ(find_group(groups, util::parse_rfc3339_ms("2024-06-01T09:00:00Z")), &groups[1]);
  EXPECT_EQ(find_group(groups, std::nullopt), nullptr);
  EXPECT_TRUE(group_meter_values(json("not an array")).empty());
}

TEST(RpcMapperUtil, AppliesAOneSixShapedGroupThroughItsReader) {
  const json mv = json::parse(R"([{"timestamp":"2024-06-01T09:00:00Z","sampledValue":[
      {"value":"12.5","unit":"kWh","measurand":"Energy.Active.Import.Register"},
      {"value":"00AB12","format":"SignedData","context":"Transaction.End"}]}])");
  analytics::Event e;
  apply_meter_value_group(e, group_meter_values(mv)[0], &read_v16);
  EXPECT_DOUBLE_EQ(*e.meter_wh, 12500.0);
  // Signed data is not a number: kept whole.
  ASSERT_EQ(e.extra["sampled_values"].size(), 1u);
  EXPECT_EQ(e.extra["sampled_values"][0]["format"], "SignedData");
  EXPECT_FALSE(e.extra.contains("sampled_value_attributes"));
}

TEST(RpcMapperUtil, KeepsTheAttributesOfAValueThatFilledAColumn) {
  const json mv = json::parse(R"([{"timestamp":"2024-06-01T09:00:00Z","sampledValue":[
      {"value":"7","unit":"kW","measurand":"Power.Active.Import","context":"Sample.Clock",
       "location":"Outlet"}]}])");
  analytics::Event e;
  apply_meter_value_group(e, group_meter_values(mv)[0], &read_v16);
  EXPECT_DOUBLE_EQ(*e.power_w, 7000.0);
  EXPECT_EQ(e.extra["sampled_value_attributes"],
            json::parse(R"({"power_w":{"context":"Sample.Clock","location":"Outlet"}})"));
}

TEST(RpcMapperUtil, KeepsEntryLevelCustomData) {
  const json mv = json::parse(R"([{"timestamp":"2024-06-01T09:00:00Z",
      "customData":{"vendorId":"x","meterSerial":"M1"},"sampledValue":[{"value":"1"}]}])");
  analytics::Event e;
  apply_meter_value_group(e, group_meter_values(mv)[0], &read_v16);
  EXPECT_EQ(e.extra["meter_value_details"][0]["customData"]["meterSerial"], "M1");
}

TEST(RpcMapperUtil, AppliesASampledValueArrayOnItsOwn) {
  const json values = json::parse(R"([{"value":"230","measurand":"Voltage","unit":"V",
      "location":"Inlet"},7])");
  analytics::Event e;
  apply_sampled_values(e, values, &read_v16);
  EXPECT_DOUBLE_EQ(*e.voltage_v, 230.0);
  EXPECT_EQ(e.extra["sampled_value_attributes"]["voltage_v"], (json{{"location", "Inlet"}}));
  EXPECT_EQ(e.extra["sampled_values"], (json{7}));

  analytics::Event untouched;
  apply_sampled_values(untouched, json("not an array"), &read_v16);
  EXPECT_TRUE(untouched.extra.empty());
}

TEST(RpcMapperUtil, MemberAccessNeverThrowsOnWrongTypes) {
  const json j = {{"s", 1}, {"i", "1"}, {"o", json::array()}, {"ok", "text"}, {"n", 7}};
  EXPECT_FALSE(string_member(j, "s").has_value());
  EXPECT_FALSE(int_member(j, "i").has_value());
  EXPECT_FALSE(member_or_null(j, "o").is_object());
  EXPECT_TRUE(member_or_null(j, "absent").is_null());
  EXPECT_EQ(string_member(j, "ok"), "text");
  EXPECT_EQ(int_member(j, "n"), 7);
  EXPECT_FALSE(int_member(json::array(), "n").has_value());
  EXPECT_FALSE(int_member(json{{"f", 1.5}}, "f").has_value());
}

TEST(RpcMapperUtil, IntegersAreReadOnlyWhenTheyFitInt64) {
  EXPECT_EQ(as_integer(json(7.0)), 7);  // an integral float is repaired
  EXPECT_EQ(as_integer(json(-9223372036854775807LL - 1)), INT64_MIN);
  EXPECT_FALSE(as_integer(json(9223372036854775808ULL)).has_value());
  EXPECT_FALSE(as_integer(json(1e300)).has_value());  // converting it would be UB
  EXPECT_FALSE(as_integer(json(9223372036854775808.0)).has_value());
  EXPECT_FALSE(as_integer(json(std::nan(""))).has_value());
  EXPECT_FALSE(as_integer(json("7")).has_value());
  EXPECT_FALSE(int_member(json{{"big", 1e300}}, "big").has_value());
}

TEST(RpcMapperUtil, RequiredIntegerThrowsWhatTheDispatcherMapsToACallError) {
  EXPECT_EQ(required_int_member(json{{"n", 3}}, "n"), 3);
  EXPECT_THROW(required_int_member(json::object(), "n"), json::out_of_range);
  EXPECT_THROW(required_int_member(json{{"n", 1e300}}, "n"), json::type_error);
  EXPECT_THROW(required_int_member(json{{"n", "3"}}, "n"), json::type_error);
}

class KeepUnmapped : public ::testing::Test {
 protected:
  testing::FakeCsmsState state;
  Policy policy;
  CallContext ctx{.charge_point_id = "CP",
                  .version = OcppVersion::v201,
                  .message_id = "m",
                  .action = "TransactionEvent",
                  .ingest_ts_ms = 0,
                  .mode = ValidationMode::Strict,
                  .policy = policy,
                  .state = state,
                  .writes = nullptr,
                  .flags = {},
                  .violations = json::array()};
};

TEST_F(KeepUnmapped, RemovesMappedPathsAndKeepsNesting) {
  const json payload = json::parse(R"({"seqNo":1,"transactionInfo":{"transactionId":"t",
      "chargingState":"Charging"},"evse":{"id":1},"customData":{"vendorId":"v"}})");
  analytics::Event e;
  keep_unmapped(ctx, e, payload, {"seqNo", "transactionInfo/transactionId", "evse/id"});
  EXPECT_EQ(e.extra, json::parse(R"({"transactionInfo":{"chargingState":"Charging"},
      "customData":{"vendorId":"v"}})"));
}

TEST_F(KeepUnmapped, KeepsTheWholePayloadWhenTheFrameBrokeItsSchema) {
  ctx.violations.push_back({{"path", "/seqNo"}, {"message", "wrong type"}});
  const json payload = {{"seqNo", "1"}, {"evse", {{"id", 1}}}};
  analytics::Event e;
  keep_unmapped(ctx, e, payload, {"seqNo", "evse/id"});
  EXPECT_EQ(e.extra["payload"], payload);
}

// The same extra keys for the 1.6 idTagInfo and the 2.0.1 idTokenInfo.
using KeepIdTokenInfo = KeepUnmapped;

TEST_F(KeepIdTokenInfo, UsesOneNamingForBothVersionsAndHashesTheGroupToken) {
  analytics::Event e;
  keep_id_token_info(ctx, e, json("Accepted"), json("2025-01-01T00:00:00Z"), json("GROUP-7"));
  EXPECT_EQ(e.extra, (json{{"id_token_status", "Accepted"},
                           {"id_token_expiry", "2025-01-01T00:00:00Z"},
                           {"group_id_token_hash", hash_token(ctx, "GROUP-7")}}));
}

TEST_F(KeepIdTokenInfo, LeavesOutMembersThatAreNotStrings) {
  analytics::Event e;
  keep_id_token_info(ctx, e, json(3), nullptr, json::object());
  EXPECT_TRUE(e.extra.empty());
  keep_id_token_info(ctx, e, json("Blocked"));
  EXPECT_EQ(e.extra, (json{{"id_token_status", "Blocked"}}));
}

}  // namespace
}  // namespace ocppgw::rpc
