// util/hex.hpp: lower-case hexadecimal text of bytes and back. Used for ids derived from
// digests (event_id, row hashes), stored salts and keys, and generated secrets. Pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ocppgw::util {

std::string to_hex(const void* data, size_t size);
inline std::string to_hex(std::string_view bytes) { return to_hex(bytes.data(), bytes.size()); }
// nullopt for odd length or a non-hex digit; accepts either case.
std::optional<std::string> from_hex(std::string_view hex);
// `size` bytes from the system CSPRNG as hex; nullopt only when the RNG fails.
std::optional<std::string> random_hex(size_t size);

}  // namespace ocppgw::util
