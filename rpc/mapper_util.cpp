// rpc/mapper_util.cpp
#include "rpc/mapper_util.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "rpc/event_builder.hpp"
#include "util/time.hpp"

namespace ocppgw::rpc {
namespace {

using nlohmann::json;

// Members of a sampled value (either version) that the columns themselves express; every other
// member of a value that went into a column (context, location, format, signedMeterValue,
// customData) is kept beside it.
constexpr std::array<std::string_view, 5> kColumnMembers = {"value", "measurand", "unit",
                                                            "unitOfMeasure", "phase"};

struct Column {
  std::string_view name;
  std::optional<double> analytics::Event::*field;
};
constexpr Column kColumns[] = {{"meter_wh", &analytics::Event::meter_wh},
                               {"power_w", &analytics::Event::power_w},
                               {"current_a", &analytics::Event::current_a},
                               {"voltage_v", &analytics::Event::voltage_v},
                               {"soc_pct", &analytics::Event::soc_pct}};

bool same_instant(const MeterValueGroup& g, const json& ts, std::optional<int64_t> ms) {
  if (g.timestamp_ms || ms) return g.timestamp_ms == ms;
  return *g.timestamp == ts;
}

// Removes the member at `path` (slash-separated) and any object it leaves empty.
// The members of `object` that `paths` (slash paths relative to it) do not name; an object left
// empty by that is dropped, as is an empty object a path reaches into. Copies only what is
// kept, so a mapped meterValue array is never copied just to be erased.
json without_paths(const json& object, const std::vector<std::string_view>& paths) {
  json out = json::object();
  for (auto it = object.begin(); it != object.end(); ++it) {
    const std::string& key = it.key();
    bool whole = false;
    std::vector<std::string_view> nested;
    for (std::string_view p : paths) {
      if (p == key) {
        whole = true;
        break;
      }
      if (p.size() > key.size() && p.starts_with(key) && p[key.size()] == '/')
        nested.push_back(p.substr(key.size() + 1));
    }
    if (whole) continue;
    if (nested.empty() || !it->is_object()) {
      out[key] = *it;
      continue;
    }
    json rest = without_paths(*it, nested);
    if (!rest.empty()) out[key] = std::move(rest);
  }
  return out;
}

}  // namespace

int64_t required_int_member(const json& object, std::string_view key) {
  const json& v = object.at(key);
  if (auto i = as_integer(v)) return *i;
  throw json::type_error::create(302, "/" + std::string(key) + " must be an integer", &v);
}

const json* object_member(const json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it != object.end() && it->is_object() ? &*it : nullptr;
}

const json& member_or_null(const json& object, std::string_view key) {
  static const json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it != object.end() ? *it : kNull;
}

void keep_unmapped(const CallContext& ctx, analytics::Event& e, const json& payload,
                   std::initializer_list<std::string_view> mapped_paths) {
  if (!payload.is_object()) return;
  if (!ctx.violations.empty()) {
    e.extra["payload"] = payload;
    return;
  }
  json rest = without_paths(payload, std::vector<std::string_view>(mapped_paths));
  for (auto it = rest.begin(); it != rest.end(); ++it) e.extra[it.key()] = std::move(it.value());
}

void keep_id_token_info(const CallContext& ctx, analytics::Event& e, const json& status,
                        const json& expiry, const json& group_token) {
  if (status.is_string()) e.extra["id_token_status"] = status;
  if (expiry.is_string()) e.extra["id_token_expiry"] = expiry;
  if (group_token.is_string())
    e.extra["group_id_token_hash"] = hash_token(ctx, group_token.get_ref<const std::string&>());
}

std::vector<MeterValueGroup> group_meter_values(const json& meter_values) {
  std::vector<MeterValueGroup> groups;
  if (!meter_values.is_array()) return groups;
  static const json kNoTimestamp;
  for (const json& entry : meter_values) {
    const json* ts = &kNoTimestamp;
    if (entry.is_object()) {
      if (auto it = entry.find("timestamp"); it != entry.end()) ts = &*it;
    }
    std::optional<int64_t> ms;
    if (ts->is_string()) ms = util::parse_rfc3339_ms(ts->get_ref<const std::string&>());
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const MeterValueGroup& g) { return same_instant(g, *ts, ms); });
    if (it == groups.end()) it = groups.insert(groups.end(), MeterValueGroup{ts, ms, {}});
    it->entries.push_back(&entry);
  }
  return groups;
}

const MeterValueGroup* find_group(const std::vector<MeterValueGroup>& groups,
                                  std::optional<int64_t> timestamp_ms) {
  if (!timestamp_ms) return nullptr;
  for (const auto& g : groups)
    if (g.timestamp_ms == timestamp_ms) return &g;
  return nullptr;
}

void apply_meter_value_group(analytics::Event& e, const MeterValueGroup& group,
                             SampledValueReader<json> read) {
  for (const json* entry : group.entries) {
    if (!entry->is_object()) {
      e.extra["meter_value_details"].push_back(*entry);
      continue;
    }
    json unknown = json::object();
    for (auto it = entry->begin(); it != entry->end(); ++it) {
      const bool mapped =
          it.key() == "timestamp" || (it.key() == "sampledValue" && it.value().is_array());
      if (!mapped) unknown[it.key()] = it.value();
    }
    if (!unknown.empty()) e.extra["meter_value_details"].push_back(std::move(unknown));

    if (auto values = entry->find("sampledValue"); values != entry->end())
      apply_sampled_values(e, *values, read);
  }
}

template <typename Value>
void apply_sampled_values(analytics::Event& e, const Value& sampled_values,
                          SampledValueReader<Value> read) {
  if (!sampled_values.is_array()) return;
  util::all_elements(sampled_values, [&](const Value& sv) {
    if (!sv.is_object()) {
      e.extra["sampled_values"].push_back(util::to_tree(sv));
      return true;
    }
    const SampledReading r = read(sv);
    bool was_set[std::size(kColumns)];
    for (size_t i = 0; i < std::size(kColumns); ++i)
      was_set[i] = (e.*kColumns[i].field).has_value();
    apply_sampled_value(e, r.measurand, r.unit, r.value, sv);
    for (size_t i = 0; i < std::size(kColumns); ++i) {
      if (was_set[i] || !(e.*kColumns[i].field)) continue;
      json attributes = json::object();
      util::all_members(sv, [&](std::string_view key, const Value& member) {
        if (std::find(kColumnMembers.begin(), kColumnMembers.end(), key) == kColumnMembers.end())
          attributes[std::string(key)] = util::to_tree(member);
        return true;
      });
      if (!attributes.empty())
        e.extra["sampled_value_attributes"][std::string(kColumns[i].name)] = std::move(attributes);
    }
    return true;
  });
}

template void apply_sampled_values(analytics::Event&, const json&, SampledValueReader<json>);
template void apply_sampled_values(analytics::Event&, const util::JsonTape::Value&,
                                   SampledValueReader<util::JsonTape::Value>);

}  // namespace ocppgw::rpc
