// util/secret.hpp: a secret kept in a file of the data folder when none is configured (the
// id-token HMAC key). Created once with 32 random bytes, mode 0600, fsynced, and never
// overwritten: a second process racing to create it reads the winner's file instead. Also the
// comparison of a presented secret (a CSRF token) with the expected one.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "util/status.hpp"

namespace ocppgw::util {

// The first line of `path` (trimmed), creating the file when it is absent or empty. Sets
// *generated when this call created it, so the caller can warn that no secret was configured.
std::optional<std::string> load_or_create_secret(const std::string& path, bool* generated,
                                                 Status* status);

// a == b in time that depends on the lengths only, not on where the first difference is, so a
// client cannot find a secret byte by byte by timing the answers.
bool constant_time_equal(std::string_view a, std::string_view b);

}  // namespace ocppgw::util
