// util/json_tape.cpp
#include "util/json_tape.hpp"

#include <algorithm>
#include <limits>

#include "util/json_read.hpp"
#include "util/json_text.hpp"

namespace ocppgw::util {

using nlohmann::json;

// The structure of a document as nodes; the tokens (blanks, literals, strings, numbers) are
// util::JsonReader's, so a tape reads exactly what the tree road reads. Each read returns false
// at the first thing it does not handle.
class JsonTape::Reader {
 public:
  static constexpr size_t kSmallObject = 16;

  Reader(JsonTape& tape, std::string_view text) : tape_(tape), lex_(text) {}

  bool document(size_t max_depth) {
    lex_.skip_blanks();
    if (!value(max_depth)) return false;
    lex_.skip_blanks();
    // Every index fits a Node's 32-bit fields: a frame is far below 4 G nodes.
    return lex_.at_end() && tape_.nodes_.size() < std::numeric_limits<uint32_t>::max();
  }

 private:
  Node& add(Kind kind) {
    Node& n = tape_.nodes_.emplace_back();
    n.kind = kind;
    n.end = static_cast<uint32_t>(tape_.nodes_.size());
    return n;
  }

  bool value(size_t depth_left) {
    if (lex_.next_is('{')) return container(Kind::Object, '}', depth_left);
    if (lex_.next_is('[')) return container(Kind::Array, ']', depth_left);
    if (lex_.next_is('"')) return string();
    if (lex_.next_is('t')) {
      add(Kind::Boolean).boolean = true;
      return lex_.literal("true");
    }
    if (lex_.next_is('f')) {
      add(Kind::Boolean).boolean = false;
      return lex_.literal("false");
    }
    if (lex_.next_is('n')) {
      add(Kind::Null);
      return lex_.literal("null");
    }
    return number();
  }

  // An object's members are a key node followed by the value's nodes; the container's node comes
  // first, its length and end are set at the close.
  bool container(Kind kind, char close, size_t depth_left) {
    if (depth_left == 0) return false;
    lex_.consume(kind == Kind::Object ? '{' : '[');
    const size_t self = tape_.nodes_.size();
    add(kind);
    uint32_t length = 0;
    lex_.skip_blanks();
    if (!lex_.consume(close)) {
      for (;;) {
        lex_.skip_blanks();
        if (kind == Kind::Object) {
          if (!lex_.next_is('"') || !string()) return false;
          lex_.skip_blanks();
          if (!lex_.consume(':')) return false;
          lex_.skip_blanks();
        }
        if (!value(depth_left - 1)) return false;
        ++length;
        lex_.skip_blanks();
        if (lex_.consume(close)) break;
        if (!lex_.consume(',')) return false;
      }
    }
    Node& n = tape_.nodes_[self];
    n.length = length;
    n.end = static_cast<uint32_t>(tape_.nodes_.size());
    return kind != Kind::Object || !has_duplicate_key(self);
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

  // A string without escapes stays a view into the text; one with them is decoded into
  // unescaped_ and found by its offset there (the string may grow and move while reading).
  bool string() {
    std::string& out = tape_.unescaped_;
    const size_t first = out.size();
    std::string_view plain;
    if (!lex_.string(out, &plain)) return false;
    Node& n = add(Kind::String);
    n.decoded = plain.data() == nullptr;
    if (n.decoded)
      n.u = first;
    else
      n.s = plain.data();
    n.length = static_cast<uint32_t>(n.decoded ? out.size() - first : plain.size());
    return true;
  }

  bool number() {
    JsonReader::Number v;
    if (!lex_.number(v)) return false;
    switch (v.kind) {
      case JsonReader::Number::Kind::Unsigned:
        add(Kind::Unsigned).u = v.u;
        break;
      case JsonReader::Number::Kind::Signed:
        add(Kind::Signed).i = v.i;
        break;
      case JsonReader::Number::Kind::Float:
        add(Kind::Float).d = v.d;
        break;
    }
    return true;
  }

  JsonTape& tape_;
  JsonReader lex_;
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
