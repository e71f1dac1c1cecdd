// util/utf8.hpp: cutting UTF-8 text to a byte budget without splitting a character. Used where
// a hostile frame's text is kept only in part (Invalid events, the event log, log lines).
#pragma once

#include <algorithm>
#include <string_view>

namespace ocppgw::util {

// The longest prefix of `s` of at most `max` bytes that does not end inside a UTF-8 sequence.
inline std::string_view utf8_prefix(std::string_view s, size_t max) {
  size_t end = std::min(s.size(), max);
  if (end == s.size()) return s;
  size_t lead = end;
  while (lead > 0 && (static_cast<unsigned char>(s[lead - 1]) & 0xC0) == 0x80) --lead;
  if (lead > 0) {
    const auto b = static_cast<unsigned char>(s[lead - 1]);
    const size_t need = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
    if (end - (lead - 1) < need) end = lead - 1;
  }
  return s.substr(0, end);
}

}  // namespace ocppgw::util
