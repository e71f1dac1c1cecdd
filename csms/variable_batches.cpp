// csms/variable_batches.cpp: see variable_batches.hpp.
#include "csms/variable_batches.hpp"

namespace ocppgw::csms {
namespace {

using nlohmann::json;

// [2,"<message id>","<action>",<payload>]: the message id is a UUID (36) at most; quotes,
// commas and brackets add 9.
constexpr size_t kFrameOverhead = 36 + 9;

const char* list_key(std::string_view action, bool response) {
  if (action == "GetVariables") return response ? "getVariableResult" : "getVariableData";
  if (action == "SetVariables") return response ? "setVariableResult" : "setVariableData";
  return nullptr;
}

size_t frame_bytes(std::string_view action, const json& payload) {
  return kFrameOverhead + action.size() + payload.dump().size();
}

}  // namespace

bool splits_by_items(std::string_view action) { return list_key(action, false) != nullptr; }

std::vector<json> split_request(std::string_view action, const json& request,
                                const MessageLimits& limits) {
  const char* key = list_key(action, false);
  if (!key || !request.contains(key) || !request.at(key).is_array()) return {request};
  const json& items = request.at(key);
  const size_t max_items =
      limits.items && *limits.items > 0 ? static_cast<size_t>(*limits.items) : items.size();
  const auto fits = [&](const json& part) {
    return !limits.bytes || frame_bytes(action, part) <= static_cast<size_t>(*limits.bytes);
  };
  if (items.size() <= max_items && fits(request)) return {request};

  std::vector<json> parts;
  json part = request;
  part[key] = json::array();
  for (const json& item : items) {
    json grown = part;
    grown[key].push_back(item);
    const bool full = part[key].size() >= max_items || !fits(grown);
    if (full && !part[key].empty()) {
      parts.push_back(std::move(part));
      part = request;
      part[key] = json::array({item});
    } else {
      part = std::move(grown);
    }
  }
  if (!part[key].empty()) parts.push_back(std::move(part));
  return parts;
}

json merge_responses(std::string_view action, const std::vector<json>& parts) {
  const char* key = list_key(action, true);
  if (parts.size() == 1 || !key) return parts.empty() ? json::object() : parts.front();
  json merged = parts.front();
  merged[key] = json::array();
  for (const json& part : parts)
    for (const json& r : part.value(key, json::array())) merged[key].push_back(r);
  return merged;
}

}  // namespace ocppgw::csms
