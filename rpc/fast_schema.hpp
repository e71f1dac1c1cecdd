// rpc/fast_schema.hpp: the hot path of schema validation. One official OCPP schema compiled into
// a tree of plain checks (sorted property tables, sorted enums, limits) that walks the parsed
// frame once and answers a single question: is this instance certainly valid?
//
// The official schemas stay the single source of truth and valijson (rpc/schema_set.cpp) stays
// the reference: a FastSchema is only ever allowed to be stricter than valijson, never more
// lenient. accepts() == true means valijson accepts the instance too; false means "ask
// valijson", which then gives the verdict and the violations as before. Where an exact answer
// would cost (a string longer in bytes than its maxLength may still be short enough in code
// points), the fast path says false and the reference decides. A schema using a keyword the
// fast path does not know does not compile to one at all, and valijson alone validates it.
// tests/unit/rpc/fast_schema_test.cpp and fuzz/schema_fuzz.cpp hold both to that.
//
// Immutable after compile(); accepts() is safe from any thread.
#pragma once

#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/json_tape.hpp"

namespace ocppgw::rpc {

// RFC 3339 section 5.6 date-time: "T" (or "t") between date and time, a zone of Z or +hh:mm,
// and a date that exists (2025-02-30 does not). Linear; shared with the reference validator.
bool is_rfc3339_date_time(std::string_view text);

// "multipleOf" as the OCPP smart-charging schemas need it: a quotient within a relative 1e-9 of
// an integer (16.0 is a multiple of 0.1, which exact remainder arithmetic denies).
bool is_multiple_of(double value, double divisor);

class FastSchema {
 public:
  // nullptr when the schema document uses a keyword or form the fast path does not check.
  static std::unique_ptr<FastSchema> compile(const nlohmann::json& document);

  // The parsed frame, as a tree or as a tape (util/json_tape.hpp): the same checks, one code.
  bool accepts(const nlohmann::json& instance) const;
  bool accepts(const util::JsonTape::Value& instance) const;

 private:
  enum class Type : uint8_t { Any, Object, Array, String, Integer, Number, Boolean };
  struct Node;
  struct Property {
    std::string name;
    const Node* schema;
    bool required;
  };
  struct Node {
    Type type = Type::Any;
    const Node* ref = nullptr;  // "$ref": the whole node is the referenced one
    // objects
    std::vector<Property> properties;  // sorted by shorter_or_before (fast_schema.cpp)
    size_t required_listed = 0;        // how many properties are required
    std::vector<std::string> required_unlisted;
    bool additional_properties = true;
    // arrays
    const Node* items = nullptr;
    size_t min_items = 0;
    size_t max_items = std::numeric_limits<size_t>::max();
    // strings
    size_t max_length_bytes = std::numeric_limits<size_t>::max();
    bool date_time = false;
    bool has_enum = false;
    std::vector<std::string> enum_values;  // sorted by shorter_or_before
    // numbers
    std::optional<double> minimum, maximum, multiple_of;
  };
  class Compiler;

  template <typename Value>
  bool accepts(const Node& node, const Value& value) const;

  std::deque<Node> nodes_;  // stable addresses; the tree points into it
  const Node* root_ = nullptr;
};

}  // namespace ocppgw::rpc
