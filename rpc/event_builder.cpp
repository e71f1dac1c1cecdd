// rpc/event_builder.cpp
#include "rpc/event_builder.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "util/time.hpp"

namespace ocppgw::rpc {

using analytics::Event;
using nlohmann::json;

EventBuilder::EventBuilder(const CallContext& ctx, std::string payload_bytes)
    : ctx_(ctx), payload_bytes_(std::move(payload_bytes)) {}

Event& EventBuilder::add(analytics::EventType type) {
  Event& e = events_.emplace_back();
  e.charge_point_id = std::string(ctx_.charge_point_id);
  e.event_type = type;
  e.ocpp_action = std::string(ctx_.action);
  if (!ctx_.message_id.empty()) e.message_id = std::string(ctx_.message_id);
  e.event_ts_ms = ctx_.ingest_ts_ms;
  e.ingest_ts_ms = ctx_.ingest_ts_ms;
  e.ocpp_version = std::string(to_string(ctx_.version));
  e.gateway_node = ctx_.policy.gateway_node;
  return e;
}

std::vector<Event> EventBuilder::finish() && {
  // The payload is hashed once per frame, not once per event: per-event hashing made a frame
  // of n meterValue entries cost n passes over n entries.
  const analytics::EventIdHasher ids(ctx_.charge_point_id, ctx_.message_id, ctx_.action,
                                     payload_bytes_);
  for (size_t i = 0; i < events_.size(); ++i) {
    Event& e = events_[i];
    e.event_id = ids.id(i);
    for (const auto& f : ctx_.flags) {
      if (std::find(e.flags.begin(), e.flags.end(), f) == e.flags.end()) e.flags.push_back(f);
    }
    if (!ctx_.violations.empty()) e.extra["schema_violations"] = ctx_.violations;
  }
  return std::move(events_);
}

template <typename Value>
void set_device_time(Event& e, const Value& timestamp) {
  if (timestamp.is_null()) return;  // the message has no device time
  if (timestamp.is_string()) {
    if (auto ms = util::parse_rfc3339_ms(util::json_string(timestamp))) {
      e.event_ts_ms = *ms;
      return;
    }
  }
  e.extra["raw_timestamp"] = util::to_tree(timestamp);
  if (std::find(e.flags.begin(), e.flags.end(), "INVALID_TIMESTAMP") == e.flags.end())
    e.flags.emplace_back("INVALID_TIMESTAMP");
}

std::string hash_token(const CallContext& ctx, std::string_view token) {
  return analytics::hash_id_token(ctx.policy.id_token_secret, token);
}

template <typename Value>
void apply_sampled_value(Event& e, std::string_view measurand, std::string_view unit,
                         std::optional<double> value, const Value& raw) {
  const bool total = !raw.contains("phase");
  auto scaled = [&](std::string_view base, std::string_view kilo) -> std::optional<double> {
    if (!value) return std::nullopt;
    if (unit.empty() || unit == base) return *value;
    // Rounded to micro-units so that "1.005" kWh is 1005 Wh, not 1004.9999999999999.
    if (unit == kilo) return std::round(*value * 1e9) / 1e6;
    return std::nullopt;  // unknown unit: never guess
  };
  std::optional<double>* column = nullptr;
  std::optional<double> normalised;
  if (total && value) {
    if (measurand.empty() || measurand == "Energy.Active.Import.Register") {
      column = &e.meter_wh;
      normalised = scaled("Wh", "kWh");
    } else if (measurand == "Power.Active.Import") {
      column = &e.power_w;
      normalised = scaled("W", "kW");
    } else if (measurand == "Current.Import") {
      column = &e.current_a;
      normalised = (unit.empty() || unit == "A") ? value : std::nullopt;
    } else if (measurand == "Voltage") {
      column = &e.voltage_v;
      normalised = (unit.empty() || unit == "V") ? value : std::nullopt;
    } else if (measurand == "SoC") {
      column = &e.soc_pct;
      normalised = (unit.empty() || unit == "Percent") ? value : std::nullopt;
    }
  }
  // A reading scaled beyond double range (a 2.0.1 multiplier, kWh -> Wh) is infinite, which
  // JSON can only write as null: keep the value as sent instead and say why it has no column.
  if ((value && !std::isfinite(*value)) || (normalised && !std::isfinite(*normalised))) {
    if (std::find(e.flags.begin(), e.flags.end(), analytics::flag::kValueOutOfRange) ==
        e.flags.end())
      e.flags.emplace_back(analytics::flag::kValueOutOfRange);
    column = nullptr;
  }
  if (column && normalised && !column->has_value()) {
    *column = normalised;
    return;
  }
  e.extra["sampled_values"].push_back(util::to_tree(raw));
}

template <typename Value>
void keep_unknown_fields(Event& e, const Value& payload,
                         std::initializer_list<std::string_view> known) {
  util::all_members(payload, [&](std::string_view key, const Value& value) {
    if (std::find(known.begin(), known.end(), key) == known.end())
      e.extra[std::string(key)] = util::to_tree(value);
    return true;
  });
}

// The two representations a frame is read into (util/json_tape.hpp).
template void set_device_time(Event&, const json&);
template void set_device_time(Event&, const util::JsonTape::Value&);
template void apply_sampled_value(Event&, std::string_view, std::string_view, std::optional<double>,
                                  const json&);
template void apply_sampled_value(Event&, std::string_view, std::string_view, std::optional<double>,
                                  const util::JsonTape::Value&);
template void keep_unknown_fields(Event&, const json&, std::initializer_list<std::string_view>);
template void keep_unknown_fields(Event&, const util::JsonTape::Value&,
                                  std::initializer_list<std::string_view>);

std::string normalize_status(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool upper = std::isupper(static_cast<unsigned char>(c));
    // A word starts at an upper-case letter that follows a lower-case one ("SuspendedEV"
    // -> SUSPENDED_EV), keeping acronyms ("EV", "EVSE") together.
    if (i > 0 && upper && std::islower(static_cast<unsigned char>(s[i - 1]))) out += '_';
    if (c == ' ' || c == '-') {
      out += '_';
      continue;
    }
    out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace ocppgw::rpc
