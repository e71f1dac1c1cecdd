// tests/unit/rpc/frame_metrics_test.cpp: what dispatch() reports about a frame (type, known
// action, CALLERROR code) and how FrameMetrics counts it: known actions by name, unknown ones as
// "other", unparseable frames as malformed, CALLERRORs by their wire code.
#include "rpc/frame_metrics.hpp"

#include <gtest/gtest.h>

#include "ocpp16/protocol.hpp"
#include "tests/support/fake_csms_state.hpp"
#include "tests/unit/rpc/context.hpp"

namespace ocppgw::rpc {
namespace {

class FrameMetricsTest : public ::testing::Test {
 protected:
  InboundResult send(std::string_view text) {
    CallContext ctx =
        make_context(policy, state, "CP-9", ValidationMode::Strict, 1'700'000'000'000);
    return dispatch(ocpp16::protocol(), ctx, text);
  }
  static metrics::Counter& frames(const char* type, const char* action) {
    return metrics::process_registry()
        .counter("ocppgw_frames_received_total", "", {"version", "type", "action"})
        .with({"1.6", type, action});
  }
  static metrics::Counter& sent(const char* code) {
    return metrics::process_registry()
        .counter("ocppgw_callerrors_sent_total", "", {"version", "code"})
        .with({"1.6", code});
  }

  testing::FakeCsmsState state;
  Policy policy{.id_token_secret = "k"};
};

TEST_F(FrameMetricsTest, DispatchSaysWhatTheFrameWas) {
  const auto ok = send(R"([2,"h-1","Heartbeat",{}])");
  ASSERT_TRUE(ok.type && ok.spec);
  EXPECT_EQ(*ok.type, MessageType::Call);
  EXPECT_EQ(ok.spec->action, "Heartbeat");
  EXPECT_FALSE(ok.error_code);

  const auto unknown = send(R"([2,"u-1","FlyToTheMoon",{}])");
  EXPECT_EQ(unknown.type, MessageType::Call);
  EXPECT_EQ(unknown.spec, nullptr);
  EXPECT_EQ(unknown.error_code, RpcError::NotImplemented);

  const auto invalid = send(R"([2,"s-1","StatusNotification",{"connectorId":1}])");
  ASSERT_TRUE(invalid.spec);
  EXPECT_EQ(invalid.spec->action, "StatusNotification");
  EXPECT_TRUE(invalid.error_code);

  const auto result = send(R"([3,"r-1",{}])");
  EXPECT_EQ(result.type, MessageType::CallResult);
  EXPECT_FALSE(result.error_code);

  const auto garbage = send("garbage");
  EXPECT_FALSE(garbage.type);
  EXPECT_TRUE(garbage.error_code);
}

TEST_F(FrameMetricsTest, CountsByActionOtherMalformedAndCode) {
  auto& m = FrameMetrics::of(ocpp16::protocol());
  EXPECT_EQ(&m, &FrameMetrics::of(ocpp16::protocol()));
  auto& heartbeat = frames("call", "Heartbeat");
  auto& other = frames("call", "other");
  auto& malformed = frames("malformed", "");
  auto& results = frames("callresult", "");
  auto& not_implemented = sent("NotImplemented");
  const uint64_t h0 = heartbeat.value(), o0 = other.value(), m0 = malformed.value(),
                 r0 = results.value(), n0 = not_implemented.value();
  m.count(send(R"([2,"h-1","Heartbeat",{}])"));
  m.count(send(R"([2,"h-2","Heartbeat",{}])"));
  m.count(send(R"([2,"u-1","FlyToTheMoon",{}])"));
  m.count(send(R"([3,"r-1",{}])"));
  m.count(send("garbage"));
  m.count_malformed();
  EXPECT_EQ(heartbeat.value() - h0, 2u);
  EXPECT_EQ(other.value() - o0, 1u);
  EXPECT_EQ(results.value() - r0, 1u);
  EXPECT_EQ(malformed.value() - m0, 2u);
  EXPECT_EQ(not_implemented.value() - n0, 1u);
  EXPECT_EQ(metrics::process_registry().render().find("FlyToTheMoon"), std::string::npos);
}

}  // namespace
}  // namespace ocppgw::rpc
