// tests/unit/rpc/context.hpp: a CallContext for tests, spelled out once (it holds references, so
// it has no default constructor, and partial designated initialisers trip -Wextra).
#pragma once

#include <string_view>

#include "rpc/action.hpp"

namespace ocppgw::rpc {

inline CallContext make_context(const Policy& policy, CsmsState& state,
                                std::string_view charge_point_id = "CP",
                                ValidationMode mode = ValidationMode::Strict,
                                int64_t ingest_ts_ms = 0, OcppVersion version = OcppVersion::v16) {
  return CallContext{
      std::string(charge_point_id), version, {}, {}, ingest_ts_ms, mode, policy, state, nullptr, {},
      nlohmann::json::array()};
}

}  // namespace ocppgw::rpc
