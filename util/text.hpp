// util/text.hpp: splitting the comma-separated lists of config options and header fields.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ocppgw::util {

// The items of `text` separated by `separator`, each without the spaces and tabs around it;
// empty items are left out ("a, ,b" is {"a", "b"}).
inline std::vector<std::string> split_list(std::string_view text, char separator = ',') {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(separator, start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view item = text.substr(start, end - start);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
    if (!item.empty()) items.emplace_back(item);
    start = end + 1;
  }
  return items;
}

}  // namespace ocppgw::util
