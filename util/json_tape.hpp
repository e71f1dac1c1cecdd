// util/json_tape.hpp: JSON text read into one flat array of nodes (a "tape") instead of a tree:
// no allocation per value, and strings stay in the text unless they need unescaping. The hot
// OCPP actions are validated, answered and mapped straight from a tape (rpc/dispatcher.cpp);
// building and freeing nlohmann's tree (a map node and a string per member) was about 40% of
// dispatching a 1.6 MeterValues frame.
//
// A tape accepts exactly the text util::JsonReader accepts (printable ASCII strings with the
// two-character escapes, numbers typed as json::parse types them, the same depth bound) and
// refuses, beyond that, an object with a duplicate key: json::parse keeps the last one, a tape
// would keep both, so the caller takes the tree instead. Where it reads, it gives the values
// json::parse gives; tests/unit/util/json_tape_test.cpp compares the two on the same texts.
//
// Code that reads either representation is written once, as a template over the value type,
// against the vocabulary at the end of this file: nlohmann's own is_*() / size() / contains()
// members, which JsonTape::Value has too, and free functions (json_string, json_number,
// all_members, all_elements, to_tree) overloaded for both; rpc::member_or_null reads a member of
// either.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace ocppgw::util {

class JsonTape {
 public:
  enum class Kind : uint8_t {
    Absent,
    Null,
    Boolean,
    Unsigned,
    Signed,
    Float,
    String,
    Array,
    Object
  };
  class Value;

  // Reads `text`, which must outlive the tape's use (strings point into it). False when the tape
  // cannot be sure to hold what json::parse would give (see above): the caller parses with the
  // tree. The storage is kept from one read to the next (as large as the largest text read), so
  // a tape per thread reads frame after frame without allocating.
  bool read(std::string_view text, size_t max_depth);
  // The document read last; valid until the next read().
  Value root() const;

 private:
  struct Node {
    Kind kind = Kind::Null;
    bool boolean = false;
    bool decoded = false;  // String: had escapes; decoded into unescaped_ at offset `u`
    uint32_t length = 0;   // String: bytes; Array: elements; Object: members
    uint32_t end = 0;      // one past the last node of this value (a member's key and value: two)
    union {
      uint64_t u;     // Unsigned; a decoded String's offset in unescaped_
      int64_t i;      // Signed
      double d;       // Float
      const char* s;  // String read without escapes: its text in the document
    };
  };
  class Reader;
  friend class Value;

  std::vector<Node> nodes_;
  std::string unescaped_;  // the strings that had escapes, decoded
};

// One value of a tape: a node's index. Cheap to copy; valid while the tape is unchanged. A
// member that is not there (member()) is an Absent value, which reads as null.
class JsonTape::Value {
 public:
  Value() = default;

  bool exists() const { return tape_ != nullptr; }
  bool is_null() const { return kind() == Kind::Null || kind() == Kind::Absent; }
  bool is_boolean() const { return kind() == Kind::Boolean; }
  bool is_number() const { return is_number_integer() || kind() == Kind::Float; }
  bool is_number_integer() const { return kind() == Kind::Unsigned || kind() == Kind::Signed; }
  bool is_number_unsigned() const { return kind() == Kind::Unsigned; }
  bool is_number_float() const { return kind() == Kind::Float; }
  bool is_string() const { return kind() == Kind::String; }
  bool is_array() const { return kind() == Kind::Array; }
  bool is_object() const { return kind() == Kind::Object; }

  bool boolean() const { return node().boolean; }
  uint64_t unsigned_value() const { return node().u; }
  int64_t signed_value() const { return node().i; }
  // Any number as a double, as json::get<double>() converts it.
  double number() const;
  std::string_view string() const {
    const Node& n = node();
    return {n.decoded ? tape_->unescaped_.data() + n.u : n.s, n.length};
  }
  // Elements of an array, members of an object; 0 for null, 1 for other scalars (as nlohmann).
  size_t size() const;
  bool empty() const { return size() == 0; }

  // The member named `key` of an object; Absent when there is none or this is no object.
  Value member(std::string_view key) const;
  bool contains(std::string_view key) const { return member(key).exists(); }

  // pred(key, value) / pred(element) for each in order, until one returns false; false then.
  template <typename Pred>
  bool all_members(Pred&& pred) const;
  template <typename Pred>
  bool all_elements(Pred&& pred) const;

  // The same value as an nlohmann tree (for what a mapper keeps as sent in an event's extra).
  nlohmann::json to_tree() const;
  // What util::to_json_text gives for the same value's tree: members in the tree's (sorted)
  // order, numbers and escapes as nlohmann's dump writes them.
  void append_text(std::string& out) const;

 private:
  friend class JsonTape;
  Value(const JsonTape* tape, uint32_t index) : tape_(tape), index_(index) {}
  const Node& node() const { return tape_->nodes_[index_]; }
  Kind kind() const { return tape_ ? node().kind : Kind::Absent; }

  const JsonTape* tape_ = nullptr;
  uint32_t index_ = 0;
};

inline JsonTape::Value JsonTape::root() const { return nodes_.empty() ? Value() : Value(this, 0); }

template <typename Pred>
bool JsonTape::Value::all_members(Pred&& pred) const {
  if (!is_object()) return true;
  for (uint32_t i = index_ + 1, end = node().end; i < end; i = tape_->nodes_[i + 1].end)
    if (!pred(Value(tape_, i).string(), Value(tape_, i + 1))) return false;
  return true;
}

template <typename Pred>
bool JsonTape::Value::all_elements(Pred&& pred) const {
  if (!is_array()) return true;
  for (uint32_t i = index_ + 1, end = node().end; i < end; i = tape_->nodes_[i].end)
    if (!pred(Value(tape_, i))) return false;
  return true;
}

// ---- the vocabulary of code templated over both representations ----

inline std::string_view json_string(const nlohmann::json& v) {
  return v.get_ref<const std::string&>();
}
inline std::string_view json_string(const JsonTape::Value& v) { return v.string(); }

inline bool json_bool(const nlohmann::json& v) { return v.get<bool>(); }
inline bool json_bool(const JsonTape::Value& v) { return v.boolean(); }
inline double json_number(const nlohmann::json& v) { return v.get<double>(); }
inline double json_number(const JsonTape::Value& v) { return v.number(); }
inline uint64_t json_unsigned(const nlohmann::json& v) { return v.get<uint64_t>(); }
inline uint64_t json_unsigned(const JsonTape::Value& v) { return v.unsigned_value(); }
inline int64_t json_signed(const nlohmann::json& v) { return v.get<int64_t>(); }
inline int64_t json_signed(const JsonTape::Value& v) { return v.signed_value(); }

template <typename Pred>
bool all_members(const nlohmann::json& v, Pred&& pred) {
  if (!v.is_object()) return true;
  for (const auto& [key, value] : v.get_ref<const nlohmann::json::object_t&>())
    if (!pred(std::string_view(key), value)) return false;
  return true;
}
template <typename Pred>
bool all_members(const JsonTape::Value& v, Pred&& pred) {
  return v.all_members(pred);
}

template <typename Pred>
bool all_elements(const nlohmann::json& v, Pred&& pred) {
  if (!v.is_array()) return true;
  for (const nlohmann::json& e : v)
    if (!pred(e)) return false;
  return true;
}
template <typename Pred>
bool all_elements(const JsonTape::Value& v, Pred&& pred) {
  return v.all_elements(pred);
}

inline const nlohmann::json& to_tree(const nlohmann::json& v) { return v; }
inline nlohmann::json to_tree(const JsonTape::Value& v) { return v.to_tree(); }

}  // namespace ocppgw::util
