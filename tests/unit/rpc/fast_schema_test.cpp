// tests/unit/rpc/fast_schema_test.cpp: the fast schema path (rpc/fast_schema.hpp) against the
// reference validator, over every official schema of both versions. For each schema a valid
// instance is generated from the schema itself (every member, and only the required ones), then
// mutated member by member (removed, retyped, out of range, too long, unknown member added, ...).
// Every instance must get the same outcome from SchemaSet::validate (fast path first) as from
// the reference alone, and every valid generated instance must be vouched for by the fast path,
// so that it is really the one serving valid frames.
#include "rpc/fast_schema.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "ocpp16/protocol.hpp"
#include "ocpp201/protocol.hpp"
#include "rpc/frame.hpp"
#include "rpc/schema_set.hpp"
#include "util/json_tape.hpp"

const std::map<std::string_view, std::string_view>& ocpp16_schema_sources();
const std::map<std::string_view, std::string_view>& ocpp201_schema_sources();

namespace ocppgw::rpc {
namespace {

using nlohmann::json;

const json& resolve(const json& schema, const json& document) {
  if (auto ref = schema.find("$ref"); ref != schema.end()) {
    const std::string name = ref->get<std::string>().substr(std::string("#/definitions/").size());
    return resolve(document.at("definitions").at(name), document);
  }
  return schema;
}

// A valid instance of `schema`: every property (all = true) or the required ones only.
json example(const json& schema_in, const json& document, bool all) {
  const json& schema = resolve(schema_in, document);
  if (auto e = schema.find("enum"); e != schema.end()) return e->front();
  const std::string type = schema.value("type", "object");
  if (type == "object") {
    json out = json::object();
    const json required = schema.value("required", json::array());
    const json properties = schema.value("properties", json::object());
    for (const auto& [name, sub] : properties.items()) {
      const bool is_required =
          std::find(required.begin(), required.end(), json(name)) != required.end();
      if (all || is_required) out[name] = example(sub, document, all);
    }
    return out;
  }
  if (type == "array") {
    json out = json::array();
    const size_t n = std::max<size_t>(1, schema.value("minItems", 0));
    for (size_t i = 0; i < n; ++i) out.push_back(example(schema.at("items"), document, all));
    return out;
  }
  if (type == "string") {
    if (schema.value("format", "") == "date-time") return "2025-06-15T15:00:00Z";
    if (schema.value("format", "") == "uri") return "ftp://example.com/file";
    return std::string(std::min<size_t>(3, schema.value("maxLength", 3)), 'a');
  }
  if (type == "integer") return schema.contains("minimum") ? schema["minimum"].get<int64_t>() : 1;
  if (type == "number") return schema.contains("minimum") ? schema["minimum"].get<double>() : 1.0;
  if (type == "boolean") return true;
  ADD_FAILURE() << "no example for " << schema.dump();
  return nullptr;
}

// Every node of `instance` with its JSON pointer.
void pointers(const json& instance, const json::json_pointer& at,
              std::vector<json::json_pointer>* out) {
  out->push_back(at);
  if (instance.is_object())
    for (const auto& [k, v] : instance.items()) pointers(v, at / k, out);
  if (instance.is_array())
    for (size_t i = 0; i < instance.size(); ++i) pointers(instance[i], at / i, out);
}

std::vector<json> replacements() {
  const std::string e_acute = "\xC3\xA9";
  std::string accents;
  for (int i = 0; i < 40; ++i) accents += e_acute;  // 40 code points, 80 bytes
  return {nullptr,
          true,
          0,
          -1,
          1.5,
          1e300,
          9223372036854775807LL,
          18446744073709551615ULL,
          "",
          "x",
          std::string(3000, 'x'),
          accents,
          std::string("a\0bcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz", 64),
          "2025-02-30T00:00:00Z",
          "2025-06-15T15:00:00",
          "2025-06-15t15:00:00+02:00",
          json::array(),
          json::array({1, 2}),
          json::object(),
          json{{"unknown", 1}}};
}

// The mutations of a valid instance: each node removed, replaced, and objects given an unknown
// member; arrays emptied and grown.
std::vector<json> mutations(const json& valid) {
  std::vector<json> out;
  std::vector<json::json_pointer> at;
  pointers(valid, json::json_pointer(), &at);
  for (const auto& p : at) {
    if (!p.empty()) {
      json removed = valid;
      removed[p.parent_pointer()].is_object()
          ? (void)removed[p.parent_pointer()].erase(p.back())
          : (void)removed[p.parent_pointer()].erase(std::stoul(p.back()));
      out.push_back(std::move(removed));
    }
    for (const json& r : replacements()) {
      json changed = valid;
      changed[p] = r;
      out.push_back(std::move(changed));
    }
    if (valid[p].is_object()) {
      json extra = valid;
      extra[p]["x-unknown-member"] = "?";
      out.push_back(std::move(extra));
    }
    if (valid[p].is_array() && !valid[p].empty()) {
      json grown = valid;
      for (int i = 0; i < 60; ++i) grown[p].push_back(valid[p].front());
      out.push_back(std::move(grown));
    }
  }
  return out;
}

struct Version {
  const char* name;
  const SchemaSet& schemas;
  const std::map<std::string_view, std::string_view>& sources;
};

std::vector<Version> versions() {
  return {{"1.6", ocpp16::protocol().schemas, ocpp16_schema_sources()},
          {"2.0.1", ocpp201::protocol().schemas, ocpp201_schema_sources()}};
}

TEST(FastSchema, GivesTheReferenceOutcomeForEveryMutationOfEveryOfficialSchema) {
  size_t instances = 0, fast_accepted = 0, tape_read = 0;
  util::JsonTape tape;
  for (const Version& v : versions()) {
    for (const auto& [name, text] : v.sources) {
      const json document = json::parse(text);
      const std::string schema(name);
      auto fast = FastSchema::compile(document);
      for (bool all : {true, false}) {
        const json valid = example(document, document, all);
        ASSERT_TRUE(v.schemas.validate_reference(schema, valid).ok)
            << v.name << " " << schema << " example " << valid.dump();
        if (fast) {
          EXPECT_TRUE(fast->accepts(valid))
              << v.name << " " << schema << ": the fast path refuses " << valid.dump();
        }
        for (const json& instance : mutations(valid)) {
          const ValidationOutcome reference = v.schemas.validate_reference(schema, instance);
          const ValidationOutcome served = v.schemas.validate(schema, instance);
          ++instances;
          if (fast && fast->accepts(instance)) ++fast_accepted;
          // The same instance read into a tape gets the same fast verdict (when the tape reads
          // it: escapes beyond the two-character ones and UTF-8 are left to the tree).
          const std::string dumped = instance.dump();
          if (fast && tape.read(dumped, kMaxNestingDepth)) {
            ++tape_read;
            ASSERT_EQ(fast->accepts(tape.root()), fast->accepts(instance))
                << v.name << " " << schema << " " << dumped;
          }
          ASSERT_EQ(served.ok, reference.ok) << v.name << " " << schema << " " << instance.dump();
          ASSERT_EQ(served.code, reference.code) << v.name << " " << schema;
          ASSERT_EQ(served.summary(), reference.summary()) << v.name << " " << schema;
        }
      }
    }
  }
  // Enough of the mutations are still valid (optional members, ranges) that the fast path is
  // exercised on more than the generated examples.
  EXPECT_GT(instances, 50000u);
  EXPECT_GT(fast_accepted, 1000u);
  EXPECT_GT(tape_read, instances / 2);
}

// Every official schema has a fast path; a new keyword in a schema update shows up here.
TEST(FastSchema, CompilesEveryOfficialSchema) {
  std::vector<std::string> without;
  for (const Version& v : versions())
    for (const auto& [name, text] : v.sources)
      if (!v.schemas.has_fast_path(name))
        without.push_back(std::string(v.name) + " " + std::string(name));
  EXPECT_EQ(without, std::vector<std::string>{});
}

TEST(FastSchema, RefusesToCompileWhatItDoesNotCheck) {
  EXPECT_EQ(FastSchema::compile(json{{"type", "string"}, {"pattern", "^a"}}), nullptr);
  EXPECT_EQ(FastSchema::compile(json{{"type", json{"string", "null"}}}), nullptr);
  EXPECT_EQ(FastSchema::compile(json{{"additionalProperties", json{{"type", "string"}}}}), nullptr);
  EXPECT_EQ(FastSchema::compile(json{{"$ref", "other.json#/x"}}), nullptr);
  EXPECT_EQ(FastSchema::compile(json{{"$ref", "#/definitions/a"},
                                     {"type", "string"},
                                     {"definitions", {{"a", {{"type", "string"}}}}}}),
            nullptr);
  EXPECT_NE(FastSchema::compile(json{{"type", "string"}, {"description", "annotated"}}), nullptr);
}

// A string longer in bytes than maxLength may still be short enough in code points: the fast
// path does not vouch for it, and the reference gives the verdict.
TEST(FastSchema, LeavesMultiByteStringsAtTheLimitToTheReference) {
  auto fast = FastSchema::compile(json{{"type", "string"}, {"maxLength", 3}});
  ASSERT_NE(fast, nullptr);
  EXPECT_TRUE(fast->accepts("abc"));
  EXPECT_FALSE(fast->accepts("abcd"));
  EXPECT_FALSE(fast->accepts("\xC3\xA9\xC3\xA9"));  // 2 code points, 4 bytes
}

TEST(FastSchema, ChecksTheSameDateTimesAndMultiplesAsTheReference) {
  EXPECT_TRUE(is_rfc3339_date_time("2025-06-15T15:00:00Z"));
  EXPECT_TRUE(is_rfc3339_date_time("2025-06-15T15:00:00.123+02:00"));
  EXPECT_FALSE(is_rfc3339_date_time("2025-02-30T00:00:00Z"));
  EXPECT_FALSE(is_rfc3339_date_time("2025-06-15 15:00:00Z"));
  EXPECT_FALSE(is_rfc3339_date_time("2025-06-15T15:00:00"));
  EXPECT_TRUE(is_multiple_of(16.0, 0.1));
  EXPECT_FALSE(is_multiple_of(16.05, 0.1));
  EXPECT_FALSE(is_multiple_of(std::numeric_limits<double>::infinity(), 0.1));
}

}  // namespace
}  // namespace ocppgw::rpc
