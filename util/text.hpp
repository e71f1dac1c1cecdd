// util/text.hpp: trimming and splitting the text of config options, header fields and event fields.
#pragma once

#include <cctype>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ocppgw::util {

// `s` without the whitespace (std::isspace in the C locale: space, \t, \n, \v, \f, \r) around it.
inline std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

// The items of `text` separated by `separator`, each trimmed as by trim(); empty items are left
// out ("a, ,b" is {"a", "b"}).
inline std::vector<std::string> split_list(std::string_view text, char separator = ',') {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(separator, start);
    if (end == std::string_view::npos) end = text.size();
    if (std::string item = trim(text.substr(start, end - start)); !item.empty())
      items.push_back(std::move(item));
    start = end + 1;
  }
  return items;
}

}  // namespace ocppgw::util
