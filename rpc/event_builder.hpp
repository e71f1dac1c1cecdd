// rpc/event_builder.hpp: builds the canonical events of one frame. Mappers call add()
// and fill only what their message carries; the builder sets the common fields, numbers the
// events and derives their stable ids, so no mapper repeats that.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analytics/event.hpp"
#include "rpc/action.hpp"
#include "util/json_tape.hpp"

namespace ocppgw::rpc {

class EventBuilder {
 public:
  // `payload_bytes` is what the event ids hash: the CALL payload as serialised, or the raw
  // text of a frame that could not be parsed.
  EventBuilder(const CallContext& ctx, std::string payload_bytes);

  // A new event with charge point, action, message id, version, node and timestamps set
  // (event_ts = ingest time until the mapper sets the device time).
  analytics::Event& add(analytics::EventType type);

  // Events in order, each with event_id and the context's flags/violations applied.
  std::vector<analytics::Event> finish() &&;

 private:
  const CallContext& ctx_;
  std::string payload_bytes_;
  std::vector<analytics::Event> events_;
};

// ---- helpers shared by the 1.6 and 2.0.1 mappers ----

// Sets event_ts from a device timestamp (null: none sent). An unparsable or non-string value
// keeps the ingest time, is stored in extra.raw_timestamp and flags INVALID_TIMESTAMP so
// analytics can quarantine it.
// Value: a tree (nlohmann::json) or a tape (util/json_tape.hpp), as in the helpers below.
template <typename Value>
void set_device_time(analytics::Event& e, const Value& timestamp);

// HMAC of an id token with the configured secret.
std::string hash_token(const CallContext& ctx, std::string_view token);

// Applies one sampled value. Energy.Active.Import.Register (Wh or kWh) -> meter_wh,
// Power.Active.Import (W/kW) -> power_w, Current.Import -> current_a, Voltage -> voltage_v,
// SoC -> soc_pct; only phase-less (total) readings fill those columns. Everything else,
// including phase readings and signed data, is appended to extra.sampled_values unchanged.
// A value that is not finite once scaled fills no column either: it is kept the same way and
// flags VALUE_OUT_OF_RANGE.
template <typename Value>
void apply_sampled_value(analytics::Event& e, std::string_view measurand, std::string_view unit,
                         std::optional<double> value, const Value& raw_sampled_value);

// Copies the members of `payload` whose names are not in `known` into e.extra.
template <typename Value>
void keep_unknown_fields(analytics::Event& e, const Value& payload,
                         std::initializer_list<std::string_view> known);

// Normalised connector status: upper snake case of the OCPP enum ("SuspendedEV" ->
// "SUSPENDED_EV", "Occupied" -> "OCCUPIED"). Unknown text is upper-cased as is.
std::string normalize_status(std::string_view ocpp_status);

}  // namespace ocppgw::rpc
