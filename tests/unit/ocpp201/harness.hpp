// tests/unit/ocpp201/harness.hpp: drives 2.0.1 frames through the real rpc::dispatch with the
// real ocpp201 table and schemas, over tests/support/FakeCsmsState. Single-threaded.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analytics/event.hpp"
#include "ocpp201/protocol.hpp"
#include "rpc/dispatcher.hpp"
#include "rpc/frame.hpp"
#include "rpc/schema_set.hpp"
#include "tests/support/fake_csms_state.hpp"

namespace ocppgw::ocpp201::test {

using nlohmann::json;

// 2024-06-01T10:00:00Z: the gateway's clock in these tests, distinct from every device time.
inline constexpr int64_t kIngestMs = 1717236000000;
inline constexpr std::string_view kChargePoint = "CP201-1";
inline constexpr std::string_view kSecret = "test-secret";

class Harness {
 public:
  testing::FakeCsmsState state;
  rpc::Policy policy{.heartbeat_interval_s = 300,
                     .id_token_secret = std::string(kSecret),
                     .gateway_node = "node-test"};
  rpc::ValidationMode mode = rpc::ValidationMode::Strict;

  rpc::InboundResult send_text(std::string_view text) {
    rpc::CallContext ctx{.charge_point_id = std::string(kChargePoint),
                         .version = rpc::OcppVersion::v201,
                         .message_id = {},
                         .action = {},
                         .ingest_ts_ms = kIngestMs,
                         .mode = mode,
                         .policy = policy,
                         .state = state,
                         .writes = nullptr,
                         .flags = {},
                         .violations = json::array()};
    return rpc::dispatch(protocol(), ctx, text);
  }

  rpc::InboundResult call(std::string_view action, const json& payload,
                          std::string_view message_id = "msg-1") {
    return send_text(rpc::serialize_call(message_id, action, payload));
  }
};

// The CALLRESULT payload of `r`; fails the test unless r.reply is a CALLRESULT that passes the
// official response schema of `action`.
inline json result_payload(const rpc::InboundResult& r, std::string_view action) {
  const json reply = json::parse(r.reply, nullptr, false);
  EXPECT_TRUE(reply.is_array() && reply.size() == 3 && reply[0] == 3)
      << action << " answered " << r.reply << " (" << r.error << ")";
  if (!reply.is_array() || reply.size() != 3) return json();
  const auto check = protocol().schemas.validate(std::string(action) + "Response", reply[2]);
  EXPECT_TRUE(check.ok) << action << " response breaks its schema: " << check.summary();
  return reply[2];
}

// [code, description] of a CALLERROR reply; empty strings when it is not one.
inline std::pair<std::string, std::string> call_error(const rpc::InboundResult& r) {
  const json reply = json::parse(r.reply, nullptr, false);
  if (!reply.is_array() || reply.size() != 5 || reply[0] != 4) return {};
  return {reply[2].get<std::string>(), reply[3].get<std::string>()};
}

inline bool has_flag(const analytics::Event& e, std::string_view flag) {
  for (const auto& f : e.flags)
    if (f == flag) return true;
  return false;
}

inline std::string token_hash(std::string_view token) {
  return analytics::hash_id_token(kSecret, token);
}

}  // namespace ocppgw::ocpp201::test
