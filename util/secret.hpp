// util/secret.hpp: a secret kept in a file of the data folder when none is configured (the
// id-token HMAC key). Created once with 32 random bytes, mode 0600, fsynced, and never
// overwritten: a second process racing to create it reads the winner's file instead.
#pragma once

#include <optional>
#include <string>

#include "util/status.hpp"

namespace ocppgw::util {

// The first line of `path` (trimmed), creating the file when it is absent or empty. Sets
// *generated when this call created it, so the caller can warn that no secret was configured.
std::optional<std::string> load_or_create_secret(const std::string& path, bool* generated,
                                                 Status* status);

}  // namespace ocppgw::util
