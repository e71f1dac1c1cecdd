// rpc/fast_schema.cpp
#include "rpc/fast_schema.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "util/time.hpp"

namespace ocppgw::rpc {

using nlohmann::json;

namespace {

// The order of property names and enum values: by length, then by bytes. A lookup then compares
// bytes only between names of one length, where plain order would call memcmp at every probe
// (it was the largest single cost of checking a MeterValues frame).
bool shorter_or_before(std::string_view a, std::string_view b) {
  return a.size() != b.size() ? a.size() < b.size() : a < b;
}

}  // namespace

bool is_rfc3339_date_time(std::string_view s) {
  if (!util::parse_rfc3339_ms(s)) return false;
  const char last = s.back();
  return (s[10] == 'T' || s[10] == 't') && (last == 'Z' || last == 'z' || s[s.size() - 3] == ':');
}

bool is_multiple_of(double value, double divisor) {
  const double quotient = value / divisor;
  return std::isfinite(quotient) &&
         std::fabs(quotient - std::round(quotient)) <= 1e-9 * std::max(1.0, std::fabs(quotient));
}

// Compiles one schema document. Every keyword is either checked, known to be an annotation, or
// makes the whole schema fall back to the reference validator: nothing is silently skipped.
class FastSchema::Compiler {
 public:
  Compiler(const json& document, std::deque<Node>& nodes) : document_(document), nodes_(nodes) {}

  const Node* compile(const json& schema) {
    if (!schema.is_object()) return nullptr;
    if (auto ref = schema.find("$ref"); ref != schema.end()) return compile_ref(schema, *ref);
    Node& n = nodes_.emplace_back();
    for (const auto& [key, value] : schema.items()) {
      if (key == "required") continue;  // needs the properties first
      if (!apply(n, schema, key, value)) return nullptr;
    }
    if (auto req = schema.find("required"); req != schema.end())
      if (!apply_required(n, *req)) return nullptr;
    return &n;
  }

 private:
  // Keywords that describe and never constrain.
  static bool is_annotation(std::string_view key) {
    static const std::set<std::string_view> kAnnotations = {
        "$schema", "$id",         "id",       "$comment", "comment",
        "title",   "description", "javaType", "default",  "definitions"};
    return kAnnotations.contains(key);
  }

  // "$ref": "#/definitions/<name>" with nothing beside it but annotations (in the drafts the
  // OCPP schemas use, a $ref replaces its siblings; the fast path does not guess at that).
  const Node* compile_ref(const json& schema, const json& ref) {
    for (const auto& [key, value] : schema.items())
      if (key != "$ref" && !is_annotation(key)) return nullptr;
    constexpr std::string_view kPrefix = "#/definitions/";
    if (!ref.is_string()) return nullptr;
    const std::string& target = ref.get_ref<const std::string&>();
    if (target.compare(0, kPrefix.size(), kPrefix) != 0) return nullptr;
    const std::string name = target.substr(kPrefix.size());
    if (auto done = definitions_.find(name); done != definitions_.end()) return done->second;
    const auto defs = document_.find("definitions");
    if (defs == document_.end() || !defs->is_object()) return nullptr;
    const auto def = defs->find(name);
    if (def == defs->end()) return nullptr;
    // A placeholder first, so a definition that refers to itself terminates.
    Node& n = nodes_.emplace_back();
    definitions_[name] = &n;
    const Node* body = compile(*def);
    if (!body) return nullptr;
    n.ref = body;
    return &n;
  }

  static std::optional<size_t> count(const json& v) {
    if (v.is_number_unsigned()) return v.get<size_t>();
    if (v.is_number_integer() && v.get<int64_t>() >= 0)
      return static_cast<size_t>(v.get<int64_t>());
    return std::nullopt;
  }

  bool apply(Node& n, const json& schema, const std::string& key, const json& value) {
    if (is_annotation(key)) return true;
    if (key == "type") return apply_type(n, value);
    if (key == "properties") return apply_properties(n, value);
    if (key == "additionalProperties") {
      if (!value.is_boolean()) return false;
      n.additional_properties = value.get<bool>();
      return true;
    }
    if (key == "items") {
      n.items = compile(value);  // an array of schemas (tuple form) is not supported
      return n.items != nullptr;
    }
    // Only meaningful beside a tuple "items", which compile() refused above.
    if (key == "additionalItems") return schema.contains("items") && schema["items"].is_object();
    if (key == "minItems" || key == "maxItems") {
      auto c = count(value);
      if (!c) return false;
      (key == "minItems" ? n.min_items : n.max_items) = *c;
      return true;
    }
    if (key == "maxLength") {
      // Counted in bytes here: a string within the limit in bytes is within it in code points.
      auto c = count(value);
      if (!c) return false;
      n.max_length_bytes = *c;
      return true;
    }
    if (key == "format") {
      // "uri" is not checked by the reference either (rpc/schema_set.cpp drops it).
      if (value == "uri") return true;
      if (value != "date-time") return false;
      n.date_time = true;
      return true;
    }
    if (key == "enum") {
      if (!value.is_array() || value.empty()) return false;
      for (const json& e : value) {
        if (!e.is_string()) return false;
        n.enum_values.push_back(e.get<std::string>());
      }
      std::sort(n.enum_values.begin(), n.enum_values.end(), shorter_or_before);
      n.has_enum = true;
      return true;
    }
    if (key == "minimum" || key == "maximum" || key == "multipleOf") {
      if (!value.is_number()) return false;
      const double d = value.get<double>();
      if (key == "multipleOf" && !(d > 0)) return false;
      (key == "minimum" ? n.minimum : key == "maximum" ? n.maximum : n.multiple_of) = d;
      return true;
    }
    return false;  // exclusiveMinimum, pattern, anyOf, ...: the reference validator's job
  }

  static bool apply_type(Node& n, const json& value) {
    static const std::map<std::string_view, Type> kTypes = {
        {"object", Type::Object},   {"array", Type::Array},   {"string", Type::String},
        {"integer", Type::Integer}, {"number", Type::Number}, {"boolean", Type::Boolean}};
    if (!value.is_string()) return false;  // a list of types is not used by OCPP
    auto it = kTypes.find(value.get_ref<const std::string&>());
    if (it == kTypes.end()) return false;
    n.type = it->second;
    return true;
  }

  bool apply_properties(Node& n, const json& value) {
    if (!value.is_object()) return false;
    for (const auto& [name, sub] : value.items()) {
      const Node* child = compile(sub);
      if (!child) return false;
      n.properties.push_back({name, child, false});
    }
    std::sort(n.properties.begin(), n.properties.end(), [](const Property& a, const Property& b) {
      return shorter_or_before(a.name, b.name);
    });
    return true;
  }

  // A required member is counted while accepts() walks the object's members when the schema
  // lists it under "properties", and looked up otherwise.
  static bool apply_required(Node& n, const json& names) {
    if (!names.is_array()) return false;
    std::set<std::string> seen;
    for (const json& r : names) {
      if (!r.is_string()) return false;
      const std::string& name = r.get_ref<const std::string&>();
      if (!seen.insert(name).second) continue;
      auto p = std::lower_bound(n.properties.begin(), n.properties.end(), name,
                                [](const Property& prop, const std::string& key) {
                                  return shorter_or_before(prop.name, key);
                                });
      if (p != n.properties.end() && p->name == name) {
        p->required = true;
        ++n.required_listed;
      } else {
        n.required_unlisted.push_back(name);
      }
    }
    return true;
  }

  const json& document_;
  std::deque<Node>& nodes_;
  std::map<std::string, const Node*> definitions_;
};

std::unique_ptr<FastSchema> FastSchema::compile(const json& document) {
  auto schema = std::unique_ptr<FastSchema>(new FastSchema());
  Compiler compiler(document, schema->nodes_);
  schema->root_ = compiler.compile(document);
  if (!schema->root_) return nullptr;
  return schema;
}

bool FastSchema::accepts(const json& instance) const { return accepts(*root_, instance); }
bool FastSchema::accepts(const util::JsonTape::Value& instance) const {
  return accepts(*root_, instance);
}

template <typename Value>
bool FastSchema::accepts(const Node& n, const Value& v) const {
  if (n.ref) return accepts(*n.ref, v);
  // valijson reads integers as int64: one above INT64_MAX is not an "integer" to it, and what
  // it makes of one elsewhere is its business.
  if (v.is_number_unsigned() && util::json_unsigned(v) > static_cast<uint64_t>(INT64_MAX))
    return false;
  switch (n.type) {
    case Type::Any:
      break;
    case Type::Object:
      if (!v.is_object()) return false;
      break;
    case Type::Array:
      if (!v.is_array()) return false;
      break;
    case Type::String:
      if (!v.is_string()) return false;
      break;
    case Type::Integer:
      if (!v.is_number_integer()) return false;
      break;
    case Type::Number:
      if (!v.is_number()) return false;
      break;
    case Type::Boolean:
      if (!v.is_boolean()) return false;
      break;
  }
  if (n.has_enum && !v.is_string()) return false;
  if (v.is_object()) {
    size_t required_seen = 0;
    const bool members_ok = util::all_members(v, [&](std::string_view key, const auto& child) {
      auto p = std::lower_bound(
          n.properties.begin(), n.properties.end(), key,
          [](const Property& prop, std::string_view k) { return shorter_or_before(prop.name, k); });
      if (p == n.properties.end() || p->name != key) return n.additional_properties;
      if (!accepts(*p->schema, child)) return false;
      if (p->required) ++required_seen;
      return true;
    });
    if (!members_ok || required_seen != n.required_listed) return false;
    for (const std::string& name : n.required_unlisted)
      if (!v.contains(name)) return false;
  } else if (v.is_array()) {
    if (v.size() < n.min_items || v.size() > n.max_items) return false;
    if (n.items &&
        !util::all_elements(v, [&](const auto& item) { return accepts(*n.items, item); }))
      return false;
  } else if (v.is_string()) {
    const std::string_view s = util::json_string(v);
    if (s.size() > n.max_length_bytes) return false;
    if (n.date_time && !is_rfc3339_date_time(s)) return false;
    if (n.has_enum &&
        !std::binary_search(n.enum_values.begin(), n.enum_values.end(), s, shorter_or_before))
      return false;
  } else if (v.is_number()) {
    const double d = util::json_number(v);
    if (n.minimum && d < *n.minimum) return false;
    if (n.maximum && d > *n.maximum) return false;
    if (n.multiple_of && !is_multiple_of(d, *n.multiple_of)) return false;
  }
  return true;
}

}  // namespace ocppgw::rpc
