// rpc/mapper_util.hpp: mapper helpers the 1.6 and 2.0.1 packages both need beyond
// event_builder.hpp: non-throwing member access, "everything not mapped goes to extra", the
// extra keys for what the CSMS decided about an id token, and the sampled-value loop. Both
// versions send meterValue entries {timestamp, sampledValue[]}; they differ only in how one
// sampled value spells its measurand, unit and number, which a version supplies as a
// SampledValueReader. Grouping by timestamp (one canonical event per instant,
// docs/event_contract.md) and the bookkeeping of what a column could not hold live here once. Pure
// functions; no state; safe from any thread.
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "analytics/event.hpp"
#include "rpc/action.hpp"
#include "util/json_tape.hpp"

namespace ocppgw::rpc {

// ---- reading payload members without throwing ----
// Mappers run after validation, but in lenient mode a member may still have the wrong type;
// these return nullopt/nullptr instead of throwing, so mapping never fails a frame. The
// templates read a tree (nlohmann::json) or a tape (util/json_tape.hpp) alike.

// The member, or a static null when absent. Unlike json::value() it returns a reference into
// `object`, so pointers taken from it (MeterValueGroupOf) stay valid while `object` lives.
const nlohmann::json& member_or_null(const nlohmann::json& object, std::string_view key);
// The same for a tape: an Absent value, which reads as null, when there is no such member.
inline util::JsonTape::Value member_or_null(const util::JsonTape::Value& object,
                                            std::string_view key) {
  return object.member(key);
}

template <typename Value>
std::optional<std::string_view> string_member(const Value& object, std::string_view key) {
  const auto& v = member_or_null(object, key);
  if (!v.is_string()) return std::nullopt;
  return util::json_string(v);
}

// An integer: JSON integers in int64 range, and floats with an integral value (a deterministic
// repair; anything else is not guessed). Never converts out of range: that is undefined
// behaviour, and lenient mode lets any number through (fuzz/regressions/dispatch201_fuzz).
template <typename Value>
std::optional<int64_t> as_integer(const Value& v) {
  if (v.is_number_unsigned()) {
    const uint64_t u = util::json_unsigned(v);
    if (u > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
    return static_cast<int64_t>(u);
  }
  if (v.is_number_integer()) return util::json_signed(v);
  if (v.is_number_float()) {
    const double d = util::json_number(v);
    // 2^63 is exactly representable; anything at or above it would overflow the cast.
    if (std::isfinite(d) && std::trunc(d) == d && d >= -9223372036854775808.0 &&
        d < 9223372036854775808.0)
      return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

template <typename Value>
std::optional<int64_t> int_member(const Value& object, std::string_view key) {
  const auto& v = member_or_null(object, key);
  return v.is_null() ? std::nullopt : as_integer(v);
}

// A member a handler cannot do without: throws json::out_of_range when it is missing (or
// `object` is not an object: json::type_error) and json::type_error when it has the wrong type,
// which rpc::dispatch turns into the CALLERROR the schema check named. On the tape road the
// schema has vouched for the frame, so these never throw there.
int64_t required_int_member(const nlohmann::json& object, std::string_view key);
int64_t required_int_member(const util::JsonTape::Value& object, std::string_view key);
const nlohmann::json& required_member(const nlohmann::json& object, std::string_view key);
util::JsonTape::Value required_member(const util::JsonTape::Value& object, std::string_view key);
std::string_view required_string(const nlohmann::json& object, std::string_view key);
std::string_view required_string(const util::JsonTape::Value& object, std::string_view key);
// A boolean member, `absent` when it is not there; throws json::type_error when it is there
// with another type (as json::value() does).
template <typename Value>
bool boolean_member_or(const Value& object, std::string_view key, bool absent) {
  if (!object.contains(key)) return absent;
  const auto& v = member_or_null(object, key);
  if (!v.is_boolean())
    throw nlohmann::json::type_error::create(302, "/" + std::string(key) + " must be a boolean",
                                             static_cast<const nlohmann::json*>(nullptr));
  return util::json_bool(v);
}

// Copies into e.extra everything in `payload` except the members a mapper turned into columns,
// named by slash paths ("transactionInfo/transactionId"). Nesting is kept, and objects left
// empty are dropped. When the frame broke its schema (lenient mode), the mapped members may not
// have had the type the columns need, so the whole payload is kept in extra.payload instead:
// nothing is ever lost to a type mismatch.
// `secret` names top-level members that are never kept, not even in extra.payload (an id token,
// which only ever appears as its hash).
template <typename Value>
void keep_unmapped(const CallContext& ctx, analytics::Event& e, const Value& payload,
                   std::initializer_list<std::string_view> mapped_paths,
                   std::initializer_list<std::string_view> secret = {});

// What the CSMS answered about an id token (1.6 idTagInfo, 2.0.1 idTokenInfo), under one set of
// extra keys for both versions: id_token_status, id_token_expiry and group_id_token_hash (the
// 1.6 parentIdTag or 2.0.1 groupIdToken.idToken; a token too, so only its hash is kept).
// Members that are not strings (absent: null) are left out.
void keep_id_token_info(const CallContext& ctx, analytics::Event& e, const nlohmann::json& status,
                        const nlohmann::json& expiry = nullptr,
                        const nlohmann::json& group_token = nullptr);

// One sampled value in version-neutral terms; the views point into the sampled value's JSON.
struct SampledReading {
  std::string_view measurand;   // "" means the OCPP default, Energy.Active.Import.Register
  std::string_view unit;        // "" means the measurand's base unit
  std::optional<double> value;  // already scaled by any multiplier; nullopt if not a number
};
template <typename Value>
using SampledValueReader = SampledReading (*)(const Value& sampled_value);

// The meterValue entries of one frame that share an instant, in order of first appearance.
// A group refers to the frame's values: pointers into a tree, handles into a tape.
template <typename Value>
struct MeterValueGroupOf {
  using Ref = std::conditional_t<std::is_same_v<Value, nlohmann::json>, const nlohmann::json*,
                                 util::JsonTape::Value>;
  Ref timestamp{};                      // the first entry's timestamp as sent
  std::optional<int64_t> timestamp_ms;  // nullopt if it does not parse
  std::vector<Ref> entries;             // elements of the meterValue array
};

// What a group's Ref refers to.
inline const nlohmann::json& referred(const nlohmann::json* v) { return *v; }
inline const util::JsonTape::Value& referred(const util::JsonTape::Value& v) { return v; }

// Entries are grouped by parsed instant ("...Z" and "+00:00" spellings of one instant merge);
// unparsable timestamps group by their exact text. A non-array yields no groups.
template <typename Value>
std::vector<MeterValueGroupOf<Value>> group_meter_values(const Value& meter_values);

// The group whose instant equals `timestamp_ms`, if any.
template <typename Group>
const Group* find_group(const std::vector<Group>& groups, std::optional<int64_t> timestamp_ms) {
  if (!timestamp_ms) return nullptr;
  for (const auto& g : groups)
    if (g.timestamp_ms == timestamp_ms) return &g;
  return nullptr;
}

// Applies every sampled value of the group's entries with apply_sampled_values; unknown members
// of an entry (and entries that are not objects) go to extra.meter_value_details. Does not
// touch event_ts: the caller decides whose time the event carries.
template <typename Value>
void apply_meter_value_group(analytics::Event& e, const MeterValueGroupOf<Value>& group,
                             SampledValueReader<Value> read);

// Applies each element of one sampledValue array with rpc::apply_sampled_value; elements that
// are not objects go to extra.sampled_values. What a column cannot hold is kept: the other
// members of a value that filled a column (context, location, format, signedMeterValue,
// customData) go to extra.sampled_value_attributes.<column> (e.g. .meter_wh). A non-array
// yields nothing: the caller decides where it is kept.
template <typename Value>
void apply_sampled_values(analytics::Event& e, const Value& sampled_values,
                          SampledValueReader<Value> read);

}  // namespace ocppgw::rpc
