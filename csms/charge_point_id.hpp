// csms/charge_point_id.hpp: what a charge point id may be: 1 to 48 printable ASCII characters
// without space or '/', and not "." or "..". It is the last segment of the WebSocket URL, the
// Kafka message key and part of file names in tools, so the upgrade (gateway/) and the
// management commands check the same rule here.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ocppgw::csms {

inline constexpr size_t kMaxChargePointIdLength = 48;

// Why `id` is not a valid charge point id; empty: valid.
inline std::string charge_point_id_error(std::string_view id) {
  if (id.empty()) return "charge point id is empty";
  if (id.size() > kMaxChargePointIdLength) return "charge point id is longer than 48 characters";
  for (char ch : id) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x21 || c > 0x7E || ch == '/')
      return "charge point id must be printable ASCII without spaces or '/'";
  }
  // Path segments that mean "this" and "parent" to URL normalisers and file systems.
  if (id == "." || id == "..") return "charge point id must not be '.' or '..'";
  return {};
}

}  // namespace ocppgw::csms
