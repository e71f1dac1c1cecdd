// fuzz/json_depth.hpp: the nesting depth of JSON text (brackets outside strings), so a target
// can leave documents deeper than rpc::kMaxNestingDepth to the parser that refuses them
// (parse_frame) instead of recursing through them itself.
#pragma once

#include <string_view>

namespace ocppgw::fuzz {

inline int json_depth(std::string_view text) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest) deepest = depth;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

}  // namespace ocppgw::fuzz
