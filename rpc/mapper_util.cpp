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

template <typename Value>
bool same_instant(const MeterValueGroupOf<Value>& g, const Value& ts, std::optional<int64_t> ms) {
  if (g.timestamp_ms || ms) return g.timestamp_ms == ms;
  return util::to_tree(referred(g.timestamp)) == util::to_tree(ts);
}

// A group's reference to a value of the frame.
const json* ref_to(const json& v) { return &v; }
util::JsonTape::Value ref_to(const util::JsonTape::Value& v) { return v; }

// The members of `object` that `paths` (slash paths relative to it) do not name; an object left
// empty by that is dropped, as is an empty object a path reaches into. Copies only what is
// kept, so a mapped meterValue array is never copied just to be erased.
template <typename Value>
json without_paths(const Value& object, const std::vector<std::string_view>& paths) {
  json out = json::object();
  util::all_members(object, [&](std::string_view key, const Value& value) {
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
    if (whole) return true;
    if (nested.empty() || !value.is_object()) {
      out[std::string(key)] = util::to_tree(value);
      return true;
    }
    json rest = without_paths(value, nested);
    if (!rest.empty()) out[std::string(key)] = std::move(rest);
    return true;
  });
  return out;
}

}  // namespace

int64_t required_int_member(const json& object, std::string_view key) {
  const json& v = object.at(key);
  if (auto i = as_integer(v)) return *i;
  throw json::type_error::create(302, "/" + std::string(key) + " must be an integer", &v);
}

int64_t required_int_member(const util::JsonTape::Value& object, std::string_view key) {
  if (auto i = as_integer(required_member(object, key))) return *i;
  throw json::type_error::create(302, "/" + std::string(key) + " must be an integer",
                                 static_cast<const json*>(nullptr));
}

const json& required_member(const json& object, std::string_view key) { return object.at(key); }

util::JsonTape::Value required_member(const util::JsonTape::Value& object, std::string_view key) {
  const util::JsonTape::Value v = object.member(key);
  if (!v.exists())
    throw json::out_of_range::create(403, "key '" + std::string(key) + "' not found",
                                     static_cast<const json*>(nullptr));
  return v;
}

std::string_view required_string(const json& object, std::string_view key) {
  return object.at(key).get_ref<const std::string&>();
}

std::string_view required_string(const util::JsonTape::Value& object, std::string_view key) {
  const util::JsonTape::Value v = required_member(object, key);
  if (!v.is_string())
    throw json::type_error::create(302, "/" + std::string(key) + " must be a string",
                                   static_cast<const json*>(nullptr));
  return v.string();
}

const json& member_or_null(const json& object, std::string_view key) {
  static const json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it != object.end() ? *it : kNull;
}

template <typename Value>
void keep_unmapped(const CallContext& ctx, analytics::Event& e, const Value& payload,
                   std::initializer_list<std::string_view> mapped_paths,
                   std::initializer_list<std::string_view> secret) {
  if (!payload.is_object()) return;
  if (!ctx.violations.empty()) {
    e.extra["payload"] = without_paths(payload, std::vector<std::string_view>(secret));
    return;
  }
  std::vector<std::string_view> paths(mapped_paths);
  paths.insert(paths.end(), secret.begin(), secret.end());
  json rest = without_paths(payload, paths);
  for (auto it = rest.begin(); it != rest.end(); ++it) e.extra[it.key()] = std::move(it.value());
}
template void keep_unmapped(const CallContext&, analytics::Event&, const json&,
                            std::initializer_list<std::string_view>,
                            std::initializer_list<std::string_view>);
template void keep_unmapped(const CallContext&, analytics::Event&, const util::JsonTape::Value&,
                            std::initializer_list<std::string_view>,
                            std::initializer_list<std::string_view>);

void keep_id_token_info(const CallContext& ctx, analytics::Event& e, const json& status,
                        const json& expiry, const json& group_token) {
  if (status.is_string()) e.extra["id_token_status"] = status;
  if (expiry.is_string()) e.extra["id_token_expiry"] = expiry;
  if (group_token.is_string())
    e.extra["group_id_token_hash"] = hash_token(ctx, group_token.get_ref<const std::string&>());
}

template <typename Value>
std::vector<MeterValueGroupOf<Value>> group_meter_values(const Value& meter_values) {
  using Group = MeterValueGroupOf<Value>;
  std::vector<Group> groups;
  if (!meter_values.is_array()) return groups;
  util::all_elements(meter_values, [&](const Value& entry) {
    const auto& ts = member_or_null(entry, "timestamp");  // null when absent
    std::optional<int64_t> ms;
    if (ts.is_string()) ms = util::parse_rfc3339_ms(util::json_string(ts));
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const Group& g) { return same_instant(g, ts, ms); });
    if (it == groups.end()) it = groups.insert(groups.end(), Group{ref_to(ts), ms, {}});
    it->entries.push_back(ref_to(entry));
    return true;
  });
  return groups;
}

template <typename Value>
void apply_meter_value_group(analytics::Event& e, const MeterValueGroupOf<Value>& group,
                             SampledValueReader<Value> read) {
  for (const auto& ref : group.entries) {
    const Value& entry = referred(ref);
    if (!entry.is_object()) {
      e.extra["meter_value_details"].push_back(util::to_tree(entry));
      continue;
    }
    json unknown = json::object();
    util::all_members(entry, [&](std::string_view key, const Value& value) {
      const bool mapped = key == "timestamp" || (key == "sampledValue" && value.is_array());
      if (!mapped) unknown[std::string(key)] = util::to_tree(value);
      return true;
    });
    if (!unknown.empty()) e.extra["meter_value_details"].push_back(std::move(unknown));
    if (entry.contains("sampledValue"))
      apply_sampled_values(e, member_or_null(entry, "sampledValue"), read);
  }
}

template std::vector<MeterValueGroupOf<json>> group_meter_values(const json&);
template std::vector<MeterValueGroupOf<util::JsonTape::Value>> group_meter_values(
    const util::JsonTape::Value&);
template void apply_meter_value_group(analytics::Event&, const MeterValueGroupOf<json>&,
                                      SampledValueReader<json>);
template void apply_meter_value_group(analytics::Event&,
                                      const MeterValueGroupOf<util::JsonTape::Value>&,
                                      SampledValueReader<util::JsonTape::Value>);

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
