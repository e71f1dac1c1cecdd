// util/json_tape.cpp
#include "util/json_tape.hpp"

#include <algorithm>
#include <charconv>
#include <limits>

#include "util/json_text.hpp"

namespace ocppgw::util {

using nlohmann::json;

// The grammar and the typing of util::JsonReader (util/json_read.cpp), emitting nodes instead of
// tree values. Each read returns false at the first thing it does not handle.
class JsonTape::Reader {
 public:
  static constexpr size_t kSmallObject = 16;

  Reader(JsonTape& tape, std::string_view text)
      : tape_(tape), begin_(text.data()), at_(text.data()), end_(text.data() + text.size()) {}

  bool document(size_t max_depth) {
    skip_blanks();
    if (!value(max_depth)) return false;
    skip_blanks();
    // Every index fits a Node's 32-bit fields: a frame is far below 4 G nodes.
    return at_ == end_ && tape_.nodes_.size() < std::numeric_limits<uint32_t>::max();
  }

 private:
  void skip_blanks() {
    while (at_ != end_ && (*at_ == ' ' || *at_ == '\n' || *at_ == '\r' || *at_ == '\t')) ++at_;
  }
  bool consume(char c) {
    if (at_ == end_ || *at_ != c) return false;
    ++at_;
    return true;
  }
  bool literal(std::string_view word) {
    if (static_cast<size_t>(end_ - at_) < word.size() || std::string_view(at_, word.size()) != word)
      return false;
    at_ += word.size();
    return true;
  }
  Node& add(Kind kind) {
    Node& n = tape_.nodes_.emplace_back();
    n.kind = kind;
    n.end = static_cast<uint32_t>(tape_.nodes_.size());
    return n;
  }

  bool value(size_t depth_left) {
    if (at_ == end_) return false;
    switch (*at_) {
      case '{':
        return object(depth_left);
      case '[':
        return array(depth_left);
      case '"':
        return string();
      case 't':
        add(Kind::Boolean).boolean = true;
        return literal("true");
      case 'f':
        add(Kind::Boolean).boolean = false;
        return literal("false");
      case 'n':
        add(Kind::Null);
        return literal("null");
      default:
        return number();
    }
  }

  // Containers: the node first, its children after it; length and end are set at the close.
  bool object(size_t depth_left) {
    if (depth_left == 0) return false;
    ++at_;
    const size_t self = tape_.nodes_.size();
    add(Kind::Object);
    uint32_t members = 0;
    skip_blanks();
    if (!consume('}')) {
      for (;;) {
        skip_blanks();
        if (at_ == end_ || *at_ != '"' || !string()) return false;
        skip_blanks();
        if (!consume(':')) return false;
        skip_blanks();
        if (!value(depth_left - 1)) return false;
        ++members;
        skip_blanks();
        if (consume('}')) break;
        if (!consume(',')) return false;
      }
    }
    Node& n = tape_.nodes_[self];
    n.length = members;
    n.end = static_cast<uint32_t>(tape_.nodes_.size());
    return !has_duplicate_key(self);
  }

  bool array(size_t depth_left) {
    if (depth_left == 0) return false;
    ++at_;
    const size_t self = tape_.nodes_.size();
    add(Kind::Array);
    uint32_t elements = 0;
    skip_blanks();
    if (!consume(']')) {
      for (;;) {
        skip_blanks();
        if (!value(depth_left - 1)) return false;
        ++elements;
        skip_blanks();
        if (consume(']')) break;
        if (!consume(',')) return false;
      }
    }
    Node& n = tape_.nodes_[self];
    n.length = elements;
    n.end = static_cast<uint32_t>(tape_.nodes_.size());
    return true;
  }

  // json::parse keeps the last of duplicate keys; a tape cannot drop the first, so it gives up.
  // OCPP objects have a handful of members: pairwise up to kSmallObject, sorted beyond.
  bool has_duplicate_key(size_t object) const {
    const Value o(&tape_, static_cast<uint32_t>(object));
    if (o.size() < 2) return false;
    std::string_view small[kSmallObject];
    std::vector<std::string_view> large;
    size_t n = 0;
    o.all_members([&](std::string_view key, const Value&) {
      if (o.size() > kSmallObject) {
        large.push_back(key);
        return true;
      }
      for (size_t i = 0; i < n; ++i)
        if (small[i] == key) return false;
      small[n++] = key;
      return true;
    });
    if (o.size() <= kSmallObject) return n != o.size();
    std::sort(large.begin(), large.end());
    return std::adjacent_find(large.begin(), large.end()) != large.end();
  }

  // Printable ASCII and the two-character escapes only (JsonReader::string's rule). A string
  // without escapes stays a view into the text; one with them is decoded into unescaped_.
  bool string() {
    ++at_;  // the opening quote
    const char* start = at_;
    while (at_ != end_ && *at_ != '"' && *at_ != '\\' && static_cast<unsigned char>(*at_) >= 0x20 &&
           static_cast<unsigned char>(*at_) < 0x80)
      ++at_;
    if (at_ == end_) return false;
    Node& n = add(Kind::String);
    if (*at_ == '"') {
      n.s = start;
      n.length = static_cast<uint32_t>(at_ - start);
      ++at_;
      return true;
    }
    std::string& out = tape_.unescaped_;
    // Decoding never lengthens a string, so one reservation of the whole text's size, made
    // before the first decoded string of a read, keeps every view into `out` valid.
    if (out.empty()) out.reserve(static_cast<size_t>(end_ - begin_));
    const size_t first = out.size();
    out.append(start, at_);
    for (;;) {
      const char* run = at_;
      while (at_ != end_ && *at_ != '"' && *at_ != '\\' &&
             static_cast<unsigned char>(*at_) >= 0x20 && static_cast<unsigned char>(*at_) < 0x80)
        ++at_;
      out.append(run, at_);
      if (at_ == end_) return false;
      if (*at_ == '"') break;
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
    ++at_;
    Node& decoded = tape_.nodes_.back();  // `n` is still valid: nothing was added since
    decoded.s = out.data() + first;
    decoded.length = static_cast<uint32_t>(out.size() - first);
    decoded.decoded = true;
    return true;
  }

  static bool is_digit(char c) { return c >= '0' && c <= '9'; }

  // JSON's number grammar, then json::parse's types (JsonReader::number).
  bool number() {
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
      int64_t v = 0;
      if (std::from_chars(start, at_, v).ec != std::errc()) return false;
      add(Kind::Signed).i = v;
    } else if (integral) {
      uint64_t v = 0;
      if (std::from_chars(start, at_, v).ec != std::errc()) return false;
      add(Kind::Unsigned).u = v;
    } else {
      double v = 0;
      if (std::from_chars(start, at_, v).ec != std::errc()) return false;
      add(Kind::Float).d = v;
    }
    return true;
  }

  JsonTape& tape_;
  const char* begin_;
  const char* at_;
  const char* end_;
};

bool JsonTape::read(std::string_view text, size_t max_depth) {
  nodes_.clear();
  unescaped_.clear();
  Reader reader(*this, text);
  if (reader.document(max_depth)) return true;
  nodes_.clear();
  return false;
}

double JsonTape::Value::number() const {
  switch (kind()) {
    case Kind::Unsigned:
      return static_cast<double>(node().u);
    case Kind::Signed:
      return static_cast<double>(node().i);
    case Kind::Float:
      return node().d;
    default:
      return 0;
  }
}

size_t JsonTape::Value::size() const {
  switch (kind()) {
    case Kind::Absent:
    case Kind::Null:
      return 0;
    case Kind::Array:
    case Kind::Object:
      return node().length;
    default:
      return 1;
  }
}

JsonTape::Value JsonTape::Value::member(std::string_view key) const {
  Value found;
  all_members([&](std::string_view k, const Value& v) {
    if (k != key) return true;
    found = v;
    return false;
  });
  return found;
}

json JsonTape::Value::to_tree() const {
  switch (kind()) {
    case Kind::Absent:
    case Kind::Null:
      return nullptr;
    case Kind::Boolean:
      return node().boolean;
    case Kind::Unsigned:
      return node().u;
    case Kind::Signed:
      return node().i;
    case Kind::Float:
      return node().d;
    case Kind::String:
      return std::string(string());
    case Kind::Array: {
      json out = json::array();
      all_elements([&](const Value& e) {
        out.push_back(e.to_tree());
        return true;
      });
      return out;
    }
    case Kind::Object: {
      json out = json::object();
      all_members([&](std::string_view k, const Value& v) {
        out.emplace(std::string(k), v.to_tree());
        return true;
      });
      return out;
    }
  }
  return nullptr;
}

void JsonTape::Value::append_text(std::string& out) const {
  switch (kind()) {
    case Kind::Absent:
    case Kind::Null:
      out += "null";
      return;
    case Kind::Boolean:
      out += node().boolean ? "true" : "false";
      return;
    case Kind::Unsigned:
      append_json_integer(out, node().u);
      return;
    case Kind::Signed:
      append_json_integer(out, node().i);
      return;
    case Kind::Float:
      append_json_double(out, node().d);
      return;
    case Kind::String:
      if (node().decoded) {
        append_json_string(out, string());
        return;
      }
      // Read without escapes: bytes 0x20-0x7F other than '"' and '\\', which dump() writes as
      // they are (it escapes only control characters when not asked for ASCII).
      out += '"';
      out += string();
      out += '"';
      return;
    case Kind::Array: {
      out += '[';
      bool first = true;
      all_elements([&](const Value& e) {
        if (!first) out += ',';
        first = false;
        e.append_text(out);
        return true;
      });
      out += ']';
      return;
    }
    case Kind::Object: {
      // The tree's std::map orders members by key, byte for byte; keys are unique (read()
      // refuses duplicates), so the order is total.
      struct Member {
        std::string_view key;
        Value key_node;
        Value value;
      };
      constexpr size_t kSmallObject = 16;  // on the stack up to this many members
      Member small[kSmallObject];
      std::vector<Member> large;
      if (size() > kSmallObject) large.resize(size());
      Member* members = large.empty() ? small : large.data();
      size_t n = 0;
      for (uint32_t i = index_ + 1, end = node().end; i < end; i = tape_->nodes_[i + 1].end) {
        const Value key(tape_, i);
        members[n++] = {key.string(), key, Value(tape_, i + 1)};
      }
      std::sort(members, members + n,
                [](const Member& a, const Member& b) { return a.key < b.key; });
      out += '{';
      for (size_t i = 0; i < n; ++i) {
        if (i) out += ',';
        members[i].key_node.append_text(out);
        out += ':';
        members[i].value.append_text(out);
      }
      out += '}';
      return;
    }
  }
}

}  // namespace ocppgw::util
