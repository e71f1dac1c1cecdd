// rpc/schema_set.cpp
#include "rpc/schema_set.hpp"

#include <algorithm>
#include <cmath>
#include <new>
#include <stdexcept>

#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/constraint_builder.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include "rpc/fast_schema.hpp"

namespace ocppgw::rpc {
namespace {

bool starts_with(const std::string& s, std::string_view prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// valijson reports a failing leaf constraint and then one wrapper error per enclosing
// container ("Failed to validate item #0 ..."); only leaves say what is wrong.
bool is_wrapper(const std::string& d) {
  return starts_with(d, "Failed to validate item #") ||
         starts_with(d, "Failed to validate against schema associated with property name") ||
         starts_with(d, "Failed to validate against additional properties schema") ||
         starts_with(d, "Failed to validate against any schemas allowed by anyOf");
}

RpcError classify(const std::string& d) {
  if (starts_with(d, "Missing required property")) return RpcError::OccurrenceConstraintViolation;
  if (starts_with(d, "Value type not permitted")) return RpcError::TypeConstraintViolation;
  if (starts_with(d, "Object contains a property")) return RpcError::FormationViolation;
  if (starts_with(d, "Array should contain no") || starts_with(d, "Array contains more items"))
    return RpcError::OccurrenceConstraintViolation;
  return RpcError::PropertyConstraintViolation;  // enum, length, range, format, pattern
}

// valijson checks "format": "date-time" with a std::regex built on every call: slow on the hot
// path, and libstdc++'s recursive matcher overflows the stack on long input (a 1 MB timestamp
// crashes the process). The schemas are compiled with that keyword swapped for this linear
// check (is_rfc3339_date_time), which also rejects impossible dates such as 2025-02-30.
constexpr const char* kDateTimeKeyword = "x-ocppgw-date-time";

class DateTimeConstraint : public valijson::constraints::PolyConstraint {
 public:
  bool validate(const valijson::adapters::Adapter& target, const std::vector<std::string>& context,
                valijson::ValidationResults* results) const override {
    if (!target.isString()) return true;  // the "type" constraint reports that
    if (is_rfc3339_date_time(target.getString())) return true;
    if (results) results->pushError(context, "String should be a valid RFC 3339 date-time");
    return false;
  }

 private:
  Constraint* cloneInto(void* memory) const override {
    return new (memory) DateTimeConstraint(*this);
  }
  size_t sizeOf() const override { return sizeof(DateTimeConstraint); }
};

class DateTimeBuilder : public valijson::ConstraintBuilder {
 public:
  valijson::constraints::Constraint* make(const valijson::adapters::Adapter&) const override {
    return new DateTimeConstraint();
  }
};

// Replaces every "format": "date-time" of a schema document with kDateTimeKeyword, and drops
// "format": "uri" (1.6 UpdateFirmware and GetDiagnostics): valijson does not check that format,
// yet reads the member as a string before looking at the format name, and throws when it is
// not one ("location": [1, 2] would escape validation as an exception instead of a
// TypeConstraintViolation).
void swap_formats(nlohmann::json& node) {
  if (node.is_object()) {
    auto format = node.find("format");
    if (format != node.end() && *format == "date-time") {
      node.erase(format);
      node[kDateTimeKeyword] = true;
    } else if (format != node.end() && *format == "uri") {
      node.erase(format);
    }
  }
  if (node.is_structured())
    for (auto& child : node) swap_formats(child);
}

// valijson checks "multipleOf" with remainder(value, divisor) against machine epsilon, so
// 16.0 is "not a multiple of 0.1" (the divisor has no exact binary form): every charging limit
// in the smart-charging schemas would be refused. The schemas are compiled with that keyword
// swapped for is_multiple_of (rpc/fast_schema.hpp).
constexpr const char* kMultipleOfKeyword = "x-ocppgw-multiple-of";

class MultipleOfConstraint : public valijson::constraints::PolyConstraint {
 public:
  explicit MultipleOfConstraint(double divisor) : divisor_(divisor) {}

  bool validate(const valijson::adapters::Adapter& target, const std::vector<std::string>& context,
                valijson::ValidationResults* results) const override {
    double value = 0;
    int64_t integer = 0;
    if (target.maybeInteger() && target.asInteger(integer))
      value = static_cast<double>(integer);
    else if (!target.maybeDouble() || !target.asDouble(value))
      return true;  // not a number: the "type" constraint reports that
    if (is_multiple_of(value, divisor_)) return true;
    if (results)
      results->pushError(context, "Value should be a multiple of " + std::to_string(divisor_));
    return false;
  }

 private:
  Constraint* cloneInto(void* memory) const override {
    return new (memory) MultipleOfConstraint(*this);
  }
  size_t sizeOf() const override { return sizeof(MultipleOfConstraint); }
  double divisor_;
};

class MultipleOfBuilder : public valijson::ConstraintBuilder {
 public:
  valijson::constraints::Constraint* make(const valijson::adapters::Adapter& node) const override {
    double divisor = 1;
    node.asDouble(divisor);
    return new MultipleOfConstraint(divisor);
  }
};

// Replaces every "multipleOf" of a schema document with kMultipleOfKeyword (same divisor).
void swap_multiple_of(nlohmann::json& node) {
  if (node.is_object()) {
    auto divisor = node.find("multipleOf");
    if (divisor != node.end() && divisor->is_number()) {
      node[kMultipleOfKeyword] = *divisor;
      node.erase("multipleOf");
    }
  }
  if (node.is_structured())
    for (auto& child : node) swap_multiple_of(child);
}

std::string join_path(const std::vector<std::string>& context) {
  // valijson's context starts with "<root>" and wraps names as ["name"] / [index].
  std::string path;
  for (size_t i = 1; i < context.size(); ++i) {
    std::string part = context[i];
    if (part.size() >= 2 && part.front() == '[' && part.back() == ']') {
      part = part.substr(1, part.size() - 2);
      if (part.size() >= 2 && part.front() == '"' && part.back() == '"')
        part = part.substr(1, part.size() - 2);
    }
    path += "/" + part;
  }
  return path.empty() ? "/" : path;
}

}  // namespace

struct SchemaSet::Compiled {
  valijson::Schema schema;           // the reference: every verdict and violation
  std::unique_ptr<FastSchema> fast;  // null when the schema uses what the fast path lacks
};

std::string ValidationOutcome::summary() const {
  std::string out;
  for (const auto& v : violations) {
    if (!out.empty()) out += "; ";
    out += v.path + ": " + v.message;
    if (out.size() > 400) break;  // keep CALLERROR descriptions readable
  }
  return out;
}

SchemaSet::SchemaSet(OcppVersion version,
                     const std::map<std::string_view, std::string_view>& sources)
    : version_(version) {
  // 1.6 schemas are draft-04, 2.0.1 schemas draft-06, which valijson reads as draft-07.
  valijson::SchemaParser parser(version == OcppVersion::v16 ? valijson::SchemaParser::kDraft4
                                                            : valijson::SchemaParser::kDraft7);
  parser.addConstraintBuilder(kDateTimeKeyword, new DateTimeBuilder());
  parser.addConstraintBuilder(kMultipleOfKeyword, new MultipleOfBuilder());
  for (const auto& [name, text] : sources) {
    nlohmann::json doc = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
    if (doc.is_discarded())
      throw std::runtime_error("schema " + std::string(name) + " is not JSON");
    auto compiled = std::make_unique<Compiled>();
    compiled->fast = FastSchema::compile(doc);
    swap_formats(doc);
    swap_multiple_of(doc);
    valijson::adapters::NlohmannJsonAdapter adapter(doc);
    parser.populateSchema(adapter, compiled->schema);
    schemas_.emplace(std::string(name), std::move(compiled));
  }
}

SchemaSet::~SchemaSet() = default;

bool SchemaSet::has(std::string_view name) const { return schemas_.find(name) != schemas_.end(); }

bool SchemaSet::has_fast_path(std::string_view name) const {
  auto it = schemas_.find(name);
  return it != schemas_.end() && it->second->fast != nullptr;
}

bool SchemaSet::fast_accepts(std::string_view name, const util::JsonTape::Value& instance) const {
  auto it = schemas_.find(name);
  return it != schemas_.end() && it->second->fast && it->second->fast->accepts(instance);
}

ValidationOutcome SchemaSet::validate(std::string_view name, const nlohmann::json& instance) const {
  auto it = schemas_.find(name);
  // Most frames are valid: the fast path vouches for them; anything it cannot vouch for gets
  // the reference validator's verdict and violations.
  if (it != schemas_.end() && it->second->fast && it->second->fast->accepts(instance))
    return ValidationOutcome{};
  return validate_reference(name, instance);
}

ValidationOutcome SchemaSet::validate_reference(std::string_view name,
                                                const nlohmann::json& instance) const {
  ValidationOutcome out;
  auto it = schemas_.find(name);
  if (it == schemas_.end()) {
    out.ok = false;
    out.code = RpcError::InternalError;
    out.violations.push_back({"/", "no schema named " + std::string(name)});
    return out;
  }
  valijson::Validator validator(valijson::Validator::kStrongTypes);
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter target(instance);
  if (validator.validate(it->second->schema, target, &results)) return out;
  out.ok = false;
  valijson::ValidationResults::Error error;
  bool classified = false;
  while (results.popError(error)) {
    if (is_wrapper(error.description)) continue;
    if (!classified) {
      out.code = classify(error.description);
      classified = true;
    }
    out.violations.push_back({join_path(error.context), error.description});
  }
  if (!classified) {
    out.code = RpcError::PropertyConstraintViolation;
    out.violations.push_back({"/", "payload does not match the schema"});
  }
  return out;
}

}  // namespace ocppgw::rpc
