// util/hex.hpp: lower-case hexadecimal text of bytes and back. Used for ids derived from
// digests (event_id, row hashes), stored salts and keys, and generated secrets. Pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ocppgw::util {

// The value of one hexadecimal digit (either case), -1 for any other character.
constexpr int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string to_hex(const void* data, size_t size);
inline std::string to_hex(std::string_view bytes) { return to_hex(bytes.data(), bytes.size()); }
// nullopt for odd length or a non-hex digit; accepts either case.
std::optional<std::string> from_hex(std::string_view hex);
// `size` bytes from the system CSPRNG as hex; nullopt only when the RNG fails.
std::optional<std::string> random_hex(size_t size);

}  // namespace ocppgw::util
