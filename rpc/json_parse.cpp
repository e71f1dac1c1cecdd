// rpc/json_parse.cpp
#include "rpc/json_parse.hpp"

#include <cstring>
#include <string>
#include <vector>

#include <simdjson.h>

namespace ocppgw::rpc {
namespace {

using nlohmann::json;
namespace dom = simdjson::dom;

// simdjson keeps "-0" as the integer 0 and loses the sign, where json::parse makes it a signed
// integer (and "-0.0" a double in both). A "-0" that starts a number and is not followed by a
// fraction or exponent is left to json::parse; inside strings this test is merely cautious.
bool has_negative_zero_integer(std::string_view text) {
  for (size_t at = text.find("-0"); at != std::string_view::npos; at = text.find("-0", at + 2)) {
    const bool starts_number = at == 0 || !(text[at - 1] >= '0' && text[at - 1] <= '9');
    const char next = at + 2 < text.size() ? text[at + 2] : '\0';
    if (starts_number && next != '.' && next != 'e' && next != 'E') return true;
  }
  return false;
}

// Copies one simdjson element into `out`; false where the tree could differ from json::parse's.
bool convert(dom::element element, json& out, size_t depth_left) {
  switch (element.type()) {
    case dom::element_type::ARRAY: {
      if (depth_left == 0) return false;
      out = json::array();
      auto& items = out.get_ref<json::array_t&>();
      // A copy, not a reference into the temporary simdjson_result (which a range-for over
      // value_unsafe() would read after its end).
      const dom::array array = element.get_array().value_unsafe();
      items.reserve(array.size());
      for (dom::element item : array)
        if (!convert(item, items.emplace_back(), depth_left - 1)) return false;
      return true;
    }
    case dom::element_type::OBJECT: {
      if (depth_left == 0) return false;
      out = json::object();
      auto& members = out.get_ref<json::object_t&>();
      const dom::object object = element.get_object().value_unsafe();  // a copy: see above
      for (dom::key_value_pair member : object) {
        // insert_or_assign: the last of duplicate keys wins, as in json::parse.
        json& value = members.insert_or_assign(std::string(member.key), json()).first->second;
        if (!convert(member.value, value, depth_left - 1)) return false;
      }
      return true;
    }
    case dom::element_type::INT64: {
      const int64_t value = element.get_int64().value_unsafe();
      // json::parse: an integer without a minus sign is unsigned, one with it signed.
      if (value >= 0)
        out = static_cast<uint64_t>(value);
      else
        out = value;
      return true;
    }
    case dom::element_type::UINT64:
      out = element.get_uint64().value_unsafe();
      return true;
    case dom::element_type::DOUBLE:
      out = element.get_double().value_unsafe();
      return true;
    case dom::element_type::STRING:
      out = std::string(element.get_string().value_unsafe());
      return true;
    case dom::element_type::BOOL:
      out = element.get_bool().value_unsafe();
      return true;
    case dom::element_type::NULL_VALUE:
      out = nullptr;
      return true;
  }
  return false;
}

}  // namespace

std::optional<json> try_parse_json(std::string_view text, size_t max_depth) {
  if (text.empty() || text.size() > kMaxFastParseBytes || has_negative_zero_integer(text))
    return std::nullopt;
  // One parser and one padded input buffer per thread, reused: simdjson reads up to
  // SIMDJSON_PADDING bytes past the end, and letting it copy the input itself costs an
  // allocation per frame.
  thread_local dom::parser parser;
  thread_local std::vector<char> padded;
  if (padded.size() < text.size() + simdjson::SIMDJSON_PADDING)
    padded.resize(text.size() + simdjson::SIMDJSON_PADDING);
  std::memcpy(padded.data(), text.data(), text.size());
  std::memset(padded.data() + text.size(), 0, simdjson::SIMDJSON_PADDING);
  const auto parsed = parser.parse(padded.data(), text.size(), /*realloc_if_needed=*/false);
  if (parsed.error()) return std::nullopt;
  json out;
  if (!convert(parsed.value_unsafe(), out, max_depth)) return std::nullopt;
  return out;
}

}  // namespace ocppgw::rpc
