// util/json_text.cpp
#include "util/json_text.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace ocppgw::util {

using nlohmann::json;

// Anything but printable ASCII (escapes, UTF-8, raw text kept from bad frames) is rare in frames
// and event fields alike.
void append_json_string(std::string& out, std::string_view s) {
  const bool verbatim = std::all_of(s.begin(), s.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte >= 0x20 && byte <= 0x7e && byte != '"' && byte != '\\';
  });
  if (verbatim) {
    out += '"';
    out += s;
    out += '"';
  } else {
    out += json(std::string(s)).dump(-1, ' ', false, json::error_handler_t::replace);
  }
}

// nlohmann prints doubles with its own Grisu2, whose digits are not always the shortest ones
// std::to_chars picks (the last digit differs for ~1 in 700 random bit patterns and ~3 in 10,000
// meter-like readings), so the writer calls the formatter json::dump itself uses. It is in
// nlohmann's detail namespace: a release that moves it breaks the build, not the bytes. NaN and
// infinities dump as null, as in dump.
void append_json_double(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  std::array<char, 64> buf;  // the size of the serializer's own number buffer
  char* end = nlohmann::detail::to_chars(buf.data(), buf.data() + buf.size(), v);
  out.append(buf.data(), end);
}

// Kinds a parsed document never holds (binary, discarded) are left to nlohmann.
void append_json(std::string& out, const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      out += "null";
      return;
    case json::value_t::boolean:
      out += v.get<bool>() ? "true" : "false";
      return;
    case json::value_t::number_integer:
      append_json_integer(out, v.get<json::number_integer_t>());
      return;
    case json::value_t::number_unsigned:
      append_json_integer(out, v.get<json::number_unsigned_t>());
      return;
    case json::value_t::number_float:
      append_json_double(out, v.get<double>());
      return;
    case json::value_t::string:
      append_json_string(out, v.get_ref<const std::string&>());
      return;
    case json::value_t::array:
      out += '[';
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (it != v.begin()) out += ',';
        append_json(out, *it);
      }
      out += ']';
      return;
    case json::value_t::object:
      out += '{';
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (it != v.begin()) out += ',';
        append_json_string(out, it.key());
        out += ':';
        append_json(out, it.value());
      }
      out += '}';
      return;
    default:
      out += v.dump(-1, ' ', false, json::error_handler_t::replace);
      return;
  }
}

}  // namespace ocppgw::util
