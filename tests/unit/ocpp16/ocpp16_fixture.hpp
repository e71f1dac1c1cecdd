// tests/unit/ocpp16/ocpp16_fixture.hpp: drives frames through rpc::dispatch with the real 1.6
// protocol table and an in-memory CsmsState, and checks every CALLRESULT against the official
// response schema, so no test can pass on a reply a strict charge point would refuse.
#pragma once

#include <string>
#include <string_view>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ocpp16/protocol.hpp"
#include "rpc/dispatcher.hpp"
#include "rpc/schema_set.hpp"
#include "tests/support/fake_csms_state.hpp"
#include "tests/unit/rpc/context.hpp"

namespace ocppgw::ocpp16 {

using nlohmann::json;

class Ocpp16Test : public ::testing::Test {
 protected:
  static constexpr int64_t kNow = 1'750'000'000'000;  // 2025-06-15T15:06:40Z

  rpc::InboundResult send(std::string_view text, std::string_view cp = "CP-1") {
    rpc::CallContext ctx = rpc::make_context(policy, state, cp, mode, kNow);
    return rpc::dispatch(protocol(), ctx, text);
  }

  rpc::InboundResult call(std::string_view action, const json& payload,
                          const std::string& id = "m1") {
    return send(rpc::serialize_call(id, action, payload));
  }

  // The CALLRESULT payload of `r`, after checking the frame shape and the response schema.
  json result_of(const rpc::InboundResult& r, std::string_view action) {
    json reply = json::parse(r.reply, nullptr, false);
    EXPECT_TRUE(reply.is_array() && reply.size() == 3 && reply[0] == 3) << r.reply;
    if (!reply.is_array() || reply.size() != 3) return json();
    const auto check = protocol().schemas.validate(std::string(action) + "Response", reply[2]);
    EXPECT_TRUE(check.ok) << action << " response breaks its schema: " << check.summary();
    return reply[2];
  }

  // [code, description] of a CALLERROR reply.
  std::string error_code_of(const rpc::InboundResult& r) {
    json reply = json::parse(r.reply, nullptr, false);
    EXPECT_TRUE(reply.is_array() && reply.size() == 5 && reply[0] == 4) << r.reply;
    return reply.is_array() && reply.size() == 5 ? reply[2].get<std::string>() : "";
  }

  testing::FakeCsmsState state;
  rpc::Policy policy{
      .heartbeat_interval_s = 300, .id_token_secret = "test-secret", .gateway_node = "node-t"};
  rpc::ValidationMode mode = rpc::ValidationMode::Strict;
};

inline bool has_flag(const analytics::Event& e, std::string_view flag) {
  for (const auto& f : e.flags)
    if (f == flag) return true;
  return false;
}

}  // namespace ocppgw::ocpp16
