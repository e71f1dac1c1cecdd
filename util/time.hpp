// util/time.hpp: UTC timestamps as milliseconds since the Unix epoch, and their RFC 3339
// text form. Parsing accepts what charge points send (any offset, optional fraction, 'Z' or
// '+hh:mm', lower-case 't'/'z'); formatting always writes "YYYY-MM-DDTHH:MM:SS.mmmZ".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ocppgw::util {

std::optional<int64_t> parse_rfc3339_ms(std::string_view text);
std::string format_rfc3339_ms(int64_t ms_since_epoch);
int64_t now_ms();

}  // namespace ocppgw::util
