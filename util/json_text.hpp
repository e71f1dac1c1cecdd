// util/json_text.hpp: JSON text written straight into a string, byte for byte what nlohmann's
// compact dump gives (dump(-1, ' ', false, error_handler_t::replace)), at a fraction of its cost:
// the canonical event's text (analytics/event.cpp) and the payload bytes its event ids hash
// (rpc/dispatcher.cpp) are written on every frame. tests/unit/util/json_text_test.cpp compares
// the two on every kind of value.
#pragma once

#include <array>
#include <charconv>
#include <concepts>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ocppgw::util {

// A JSON string literal. Printable ASCII other than '"' and '\\' is copied as it is; anything
// else (escapes, UTF-8 validation, U+FFFD for invalid bytes) goes through nlohmann's own
// escaping, so those rules live in one place.
void append_json_string(std::string& out, std::string_view s);

// nlohmann prints integers as plain decimal, as std::to_chars does.
template <std::integral T>
void append_json_integer(std::string& out, T v) {
  std::array<char, 24> buf;  // int64 min and uint64 max: 20 characters
  const auto end = std::to_chars(buf.data(), buf.data() + buf.size(), v).ptr;
  out.append(buf.data(), end);
}

// nlohmann's own number format (its Grisu2 digits); NaN and infinities as null.
void append_json_double(std::string& out, double v);

// Any value, objects in nlohmann's (sorted) member order.
void append_json(std::string& out, const nlohmann::json& v);

inline std::string to_json_text(const nlohmann::json& v) {
  std::string out;
  append_json(out, v);
  return out;
}

}  // namespace ocppgw::util
