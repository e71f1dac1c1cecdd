// fuzz/schema_fuzz.cpp: the official-schema validation of both versions on arbitrary JSON.
// Input: "<16|201>:<schema name>\n<instance>", e.g. "201:BootNotificationRequest\n{...}" (named,
// not numbered, so the corpus stays valid when a table changes). Validation must not crash,
// must give the same answer twice, a refusal must name a violation, and the fast path
// (rpc/fast_schema.hpp) must give exactly the reference validator's outcome.
#include <cstdint>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "fuzz/json_depth.hpp"
#include "ocpp16/protocol.hpp"
#include "ocpp201/protocol.hpp"
#include "rpc/frame.hpp"
#include "rpc/schema_set.hpp"

using namespace ocppgw;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t colon = input.find(':');
  const size_t newline = input.find('\n');
  if (colon == std::string_view::npos || newline == std::string_view::npos || newline < colon)
    return 0;
  const std::string_view version = input.substr(0, colon);
  if (version != "16" && version != "201") return 0;
  const rpc::Protocol& protocol = version == "201" ? ocpp201::protocol() : ocpp16::protocol();
  const std::string name(input.substr(colon + 1, newline - colon - 1));
  if (!protocol.schemas.has(name)) return 0;
  const std::string_view text = input.substr(newline + 1);
  if (fuzz::json_depth(text) > rpc::kMaxNestingDepth) return 0;
  const nlohmann::json instance = nlohmann::json::parse(text, nullptr, false);
  if (instance.is_discarded()) return 0;
  const rpc::ValidationOutcome first = protocol.schemas.validate(name, instance);
  const rpc::ValidationOutcome second = protocol.schemas.validate(name, instance);
  if (first.ok != second.ok || first.code != second.code) std::abort();
  if (!first.ok && first.violations.empty()) std::abort();
  const rpc::ValidationOutcome reference = protocol.schemas.validate_reference(name, instance);
  if (first.ok != reference.ok || first.summary() != reference.summary()) std::abort();
  return 0;
}
