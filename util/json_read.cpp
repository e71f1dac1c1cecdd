// util/json_read.cpp
#include "util/json_read.hpp"

#include <charconv>
#include <cstdint>

namespace ocppgw::util {

using nlohmann::json;

bool JsonReader::literal(std::string_view word) {
  if (static_cast<size_t>(end_ - at_) < word.size() || std::string_view(at_, word.size()) != word)
    return false;
  at_ += word.size();
  return true;
}

bool JsonReader::value(json& out, size_t depth_left) {
  if (at_ == end_) return false;
  switch (*at_) {
    case '{':
      return object(out, depth_left);
    case '[':
      return array(out, depth_left);
    case '"': {
      std::string s;
      if (!string(s)) return false;
      out = std::move(s);
      return true;
    }
    case 't':
      out = true;
      return literal("true");
    case 'f':
      out = false;
      return literal("false");
    case 'n':
      out = nullptr;
      return literal("null");
    default:
      return number(out);
  }
}

bool JsonReader::object(json& out, size_t depth_left) {
  if (depth_left == 0) return false;
  ++at_;
  out = json::object();
  auto& members = out.get_ref<json::object_t&>();
  skip_blanks();
  if (consume('}')) return true;
  for (;;) {
    std::string key;
    skip_blanks();
    if (!string(key)) return false;
    skip_blanks();
    if (!consume(':')) return false;
    skip_blanks();
    // insert_or_assign: the last of duplicate keys wins, as in json::parse.
    json& member = members.insert_or_assign(std::move(key), json()).first->second;
    if (!value(member, depth_left - 1)) return false;
    skip_blanks();
    if (consume('}')) return true;
    if (!consume(',')) return false;
  }
}

bool JsonReader::array(json& out, size_t depth_left) {
  if (depth_left == 0) return false;
  ++at_;
  out = json::array();
  auto& items = out.get_ref<json::array_t&>();
  skip_blanks();
  if (consume(']')) return true;
  for (;;) {
    skip_blanks();
    if (!value(items.emplace_back(), depth_left - 1)) return false;
    skip_blanks();
    if (consume(']')) return true;
    if (!consume(',')) return false;
  }
}

// Printable ASCII and the two-character escapes only. Bytes above 0x7F (UTF-8, whose validation
// rules json::parse owns) and \u escapes (surrogate pairs) are handed over, as are control
// characters, which JSON refuses.
bool JsonReader::string(std::string& out, std::string_view* plain) {
  if (!consume('"')) return false;
  const char* start = at_;
  for (;;) {
    const char* run = at_;
    while (at_ != end_ && *at_ != '"' && *at_ != '\\' && static_cast<unsigned char>(*at_) >= 0x20 &&
           static_cast<unsigned char>(*at_) < 0x80)
      ++at_;
    if (at_ == end_) return false;
    if (*at_ == '"' && plain && run == start) {
      *plain = std::string_view(start, static_cast<size_t>(at_ - start));
      ++at_;
      return true;
    }
    out.append(run, at_);
    if (*at_ == '"') {
      ++at_;
      return true;
    }
    if (*at_ != '\\' || end_ - at_ < 2) return false;
    char escaped;
    switch (at_[1]) {
      case '"':
      case '\\':
      case '/':
        escaped = at_[1];
        break;
      case 'b':
        escaped = '\b';
        break;
      case 'f':
        escaped = '\f';
        break;
      case 'n':
        escaped = '\n';
        break;
      case 'r':
        escaped = '\r';
        break;
      case 't':
        escaped = '\t';
        break;
      default:
        return false;
    }
    out += escaped;
    at_ += 2;
  }
}

namespace {
bool is_digit(char c) { return c >= '0' && c <= '9'; }
}  // namespace

// JSON's number grammar, then json::parse's types: an integer without a minus is unsigned, one
// with it (even -0) signed, anything with a fraction or exponent a double. Integers beyond 64 bits
// (json::parse makes them doubles) and doubles out of range are handed over.
bool JsonReader::number(Number& out) {
  const char* start = at_;
  const bool negative = consume('-');
  if (at_ == end_ || !is_digit(*at_)) return false;
  if (*at_ == '0')
    ++at_;
  else
    while (at_ != end_ && is_digit(*at_)) ++at_;
  bool integral = true;
  if (at_ != end_ && *at_ == '.') {
    integral = false;
    ++at_;
    if (at_ == end_ || !is_digit(*at_)) return false;
    while (at_ != end_ && is_digit(*at_)) ++at_;
  }
  if (at_ != end_ && (*at_ == 'e' || *at_ == 'E')) {
    integral = false;
    ++at_;
    if (at_ != end_ && (*at_ == '+' || *at_ == '-')) ++at_;
    if (at_ == end_ || !is_digit(*at_)) return false;
    while (at_ != end_ && is_digit(*at_)) ++at_;
  }
  if (integral && negative) {
    out.kind = Number::Kind::Signed;
    return std::from_chars(start, at_, out.i).ec == std::errc();
  }
  if (integral) {
    out.kind = Number::Kind::Unsigned;
    return std::from_chars(start, at_, out.u).ec == std::errc();
  }
  out.kind = Number::Kind::Float;
  return std::from_chars(start, at_, out.d).ec == std::errc();
}

bool JsonReader::number(json& out) {
  Number n;
  if (!number(n)) return false;
  switch (n.kind) {
    case Number::Kind::Signed:
      out = n.i;
      break;
    case Number::Kind::Unsigned:
      out = n.u;
      break;
    case Number::Kind::Float:
      out = n.d;
      break;
  }
  return true;
}

std::optional<json> try_parse_json(std::string_view text, size_t max_depth) {
  JsonReader reader(text);
  json out;
  reader.skip_blanks();
  if (!reader.value(out, max_depth)) return std::nullopt;
  reader.skip_blanks();
  if (!reader.at_end()) return std::nullopt;  // trailing text: json::parse names the error
  return out;
}

}  // namespace ocppgw::util
