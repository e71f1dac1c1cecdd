// csms/variable_batches.hpp: 2.0.1 GetVariables / SetVariables requests larger than the charge
// point accepts in one message, split into parts within its reported limits (device model
// DeviceDataCtrlr.ItemsPerMessage / BytesPerMessage, instance GetVariables or SetVariables),
// and the parts' results merged back into one response in request order. Pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace ocppgw::csms {

struct MessageLimits {
  std::optional<int64_t> items;  // ItemsPerMessage
  std::optional<int64_t> bytes;  // BytesPerMessage: the whole CALL frame
};

// Whether `action` is split at all: GetVariables and SetVariables.
bool splits_by_items(std::string_view action);

// The request payloads to send, in order. One part (the request unchanged) when the action is
// not split, no limit is known, or it already fits. A single item larger than the byte limit
// still goes alone: the charge point answers it (e.g. TooLargeElement) rather than the gateway
// dropping it.
std::vector<nlohmann::json> split_request(std::string_view action, const nlohmann::json& request,
                                          const MessageLimits& limits);

// The parts' responses (in the order sent) as one response.
nlohmann::json merge_responses(std::string_view action, const std::vector<nlohmann::json>& parts);

}  // namespace ocppgw::csms
