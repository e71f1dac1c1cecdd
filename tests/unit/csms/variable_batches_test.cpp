#include "csms/variable_batches.hpp"

#include <gtest/gtest.h>

namespace ocppgw::csms {
namespace {

using nlohmann::json;

json get_request(int n) {
  json data = json::array();
  for (int i = 0; i < n; ++i)
    data.push_back(
        {{"component", {{"name", "C"}}}, {"variable", {{"name", "V" + std::to_string(i)}}}});
  return {{"getVariableData", data}};
}

std::vector<std::string> names(const std::vector<json>& parts) {
  std::vector<std::string> out;
  for (const json& p : parts) {
    std::string s;
    for (const json& d : p["getVariableData"]) s += d["variable"]["name"].get<std::string>() + ",";
    out.push_back(s);
  }
  return out;
}

TEST(VariableBatches, SplitsByItemsPerMessageInRequestOrder) {
  auto parts = split_request("GetVariables", get_request(5), {.items = 2, .bytes = std::nullopt});
  EXPECT_EQ(names(parts), (std::vector<std::string>{"V0,V1,", "V2,V3,", "V4,"}));
}

TEST(VariableBatches, WithoutLimitsOrWhenItFitsTheRequestGoesWhole) {
  const json request = get_request(5);
  EXPECT_EQ(split_request("GetVariables", request, {}), std::vector<json>{request});
  EXPECT_EQ(split_request("GetVariables", request, {.items = 5, .bytes = 100000}),
            std::vector<json>{request});
  EXPECT_EQ(split_request("Reset", {{"type", "Immediate"}}, {.items = 1, .bytes = 10}).size(), 1u);
}

TEST(VariableBatches, SplitsByBytesPerMessageAndAnOversizeItemGoesAlone) {
  const json request = get_request(4);
  const size_t one = json{{"getVariableData", {request["getVariableData"][0]}}}.dump().size();
  // Room for two items per frame, not three.
  const int64_t bytes = static_cast<int64_t>(45 + 12 + one * 2);
  auto parts = split_request("GetVariables", request, {.items = std::nullopt, .bytes = bytes});
  EXPECT_EQ(names(parts), (std::vector<std::string>{"V0,V1,", "V2,V3,"}));
  auto tiny = split_request("GetVariables", request, {.items = std::nullopt, .bytes = 10});
  EXPECT_EQ(tiny.size(), 4u);
}

TEST(VariableBatches, MergesResultsInOrder) {
  std::vector<json> parts = {
      {{"setVariableResult",
        {{{"attributeStatus", "Accepted"}}, {{"attributeStatus", "Rejected"}}}}},
      {{"setVariableResult", {{{"attributeStatus", "UnknownComponent"}}}}}};
  const json merged = merge_responses("SetVariables", parts);
  ASSERT_EQ(merged["setVariableResult"].size(), 3u);
  EXPECT_EQ(merged["setVariableResult"][1]["attributeStatus"], "Rejected");
  EXPECT_EQ(merged["setVariableResult"][2]["attributeStatus"], "UnknownComponent");
}

}  // namespace
}  // namespace ocppgw::csms
