// tests/unit/gateway/pending_calls_test.cpp: CSMS->charge point calls through the registry,
// answered by a real WebSocket peer over loopback.
#include "gateway/pending_calls.hpp"

#include <future>

#include "gateway/ws_session.hpp"
#include "tests/unit/gateway/gateway_fixture.hpp"

namespace ocppgw::gateway::testing {
namespace {

using nlohmann::json;
using Kind = CallOutcome::Kind;

struct Waiter {
  std::promise<CallOutcome> promise;
  CallCallback callback() {
    return [this](CallOutcome o) { promise.set_value(std::move(o)); };
  }
  CallOutcome get() {
    auto f = promise.get_future();
    EXPECT_EQ(f.wait_for(std::chrono::seconds(5)), std::future_status::ready);
    return f.get();
  }
};

// Waits until the registry knows the charge point (registration follows the handshake).
void wait_registered(Gateway& gw, const std::string& cp) {
  for (int i = 0; i < 200 && !gw.registry.find(cp); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_TRUE(gw.registry.find(cp));
}

TEST(PendingCalls, MatchesTheResultByMessageIdAndValidatesIt) {
  Gateway gw;
  Client cp(gw.port(), "/ocpp/CP1", "ocpp1.6");
  wait_registered(gw, "CP1");
  Waiter w;
  gw.registry.call("CP1", "Reset", {{"type", "Soft"}}, std::chrono::seconds(5), w.callback());
  const json sent = cp.receive_json();
  ASSERT_EQ(sent[0], 2);
  EXPECT_EQ(sent[2], "Reset");
  EXPECT_EQ(sent[3]["type"], "Soft");
  cp.send(json::array({3, sent[1], {{"status", "Accepted"}}}).dump());
  const CallOutcome out = w.get();
  EXPECT_EQ(out.kind, Kind::Result);
  EXPECT_TRUE(out.ok());
  EXPECT_EQ(out.payload["status"], "Accepted");
}

TEST(PendingCalls, ReportsAResponseThatBreaksTheSchema) {
  Gateway gw;
  Client cp(gw.port(), "/ocpp/CP1", "ocpp1.6");
  wait_registered(gw, "CP1");
  Waiter w;
  gw.registry.call("CP1", "Reset", {{"type", "Hard"}}, std::chrono::seconds(5), w.callback());
  const json sent = cp.receive_json();
  cp.send(json::array({3, sent[1], {{"status", "Maybe"}}}).dump());
  const CallOutcome out = w.get();
  EXPECT_EQ(out.kind, Kind::Result);
  EXPECT_FALSE(out.ok());
  EXPECT_FALSE(out.violations.empty());
}

TEST(PendingCalls, PassesOnACallError) {
  Gateway gw;
  Client cp(gw.port(), "/ocpp/CP1", "ocpp1.6");
  wait_registered(gw, "CP1");
  Waiter w;
  gw.registry.call("CP1", "ClearCache", json::object(), std::chrono::seconds(5), w.callback());
  const json sent = cp.receive_json();
  cp.send(json::array({4, sent[1], "NotSupported", "no cache", json::object()}).dump());
  const CallOutcome out = w.get();
  EXPECT_EQ(out.kind, Kind::Error);
  EXPECT_EQ(out.error_code, "NotSupported");
  EXPECT_EQ(out.error_description, "no cache");
}

TEST(PendingCalls, TimesOutWhenTheChargePointStaysSilent) {
  Gateway gw;
  Client cp(gw.port(), "/ocpp/CP1", "ocpp1.6");
  wait_registered(gw, "CP1");
  Waiter w;
  gw.registry.call("CP1", "ClearCache", json::object(), std::chrono::milliseconds(50),
                   w.callback());
  cp.receive_json();
  EXPECT_EQ(w.get().kind, Kind::Timeout);
}

TEST(PendingCalls, DisconnectEndsThePendingCall) {
  Gateway gw;
  Waiter w;
  {
    Client cp(gw.port(), "/ocpp/CP1", "ocpp1.6");
    wait_registered(gw, "CP1");
    gw.registry.call("CP1", "ClearCache", json::object(), std::chrono::seconds(30), w.callback());
    cp.receive_json();
    cp.close();
  }
  EXPECT_EQ(w.get().kind, Kind::Disconnected);
}

TEST(PendingCalls, RefusesUnknownChargePointsAndInvalidRequests) {
  Gateway gw;
  Waiter absent;
  gw.registry.call("NOPE", "Reset", {{"type", "Soft"}}, std::chrono::seconds(1), absent.callback());
  EXPECT_EQ(absent.get().kind, Kind::NotSent);
  Client cp(gw.port(), "/ocpp/CP1", "ocpp1.6");
  wait_registered(gw, "CP1");
  Waiter invalid;
  gw.registry.call("CP1", "Reset", {{"type", "Sideways"}}, std::chrono::seconds(1),
                   invalid.callback());
  const CallOutcome out = invalid.get();
  EXPECT_EQ(out.kind, Kind::NotSent);
  EXPECT_FALSE(out.violations.empty());
}

TEST(PendingCalls, ResultForAnUnknownIdBecomesAnInvalidEvent) {
  Gateway gw;
  Client cp(gw.port(), "/ocpp/CP1", "ocpp1.6");
  cp.send(json::array({3, "nobody-asked", json::object()}).dump());
  cp.send(call("2", "Heartbeat", json::object()));
  EXPECT_EQ(cp.receive_json()[1], "2");  // no reply to the stray result, and the link stays up
  const auto invalid = gw.sink.events_of_type(analytics::EventType::Invalid);
  ASSERT_EQ(invalid.size(), 1u);
  EXPECT_EQ(invalid[0].message_id, "nobody-asked");
  EXPECT_NE(std::string(invalid[0].extra["reason"]).find("unknown message id"), std::string::npos);
}

TEST(PendingCalls, ConcurrentCallsGoOutOneAtATimeInOrder) {
  Gateway gw;
  Client cp(gw.port(), "/ocpp/CP1", "ocpp1.6");
  wait_registered(gw, "CP1");
  Waiter w[5];
  for (int i = 0; i < 5; ++i)
    gw.registry.call("CP1",
                     CallRequest{"DataTransfer",
                                 {{"vendorId", "V"}, {"data", std::to_string(i)}},
                                 std::chrono::seconds(5),
                                 "alice"},
                     w[i].callback());
  for (int i = 0; i < 5; ++i) {
    const json sent = cp.receive_json();
    EXPECT_EQ(sent[3]["data"], std::to_string(i));  // the next is sent only after this answer
    cp.send(json::array({3, sent[1], {{"status", "Accepted"}}}).dump());
  }
  for (auto& x : w) EXPECT_TRUE(x.get().ok());
  ASSERT_TRUE(gw.sink.wait_entries(6));
  for (int i = 0; i < 200 && gw.sink.events_of_type(analytics::EventType::CsmsCall).size() < 5; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const auto calls = gw.sink.events_of_type(analytics::EventType::CsmsCall);
  ASSERT_EQ(calls.size(), 5u);
  EXPECT_EQ(calls[0].ocpp_action, "DataTransfer");
  EXPECT_EQ(calls[0].extra["requested_by"], "alice");
  EXPECT_EQ(calls[0].extra["outcome"], "result");
  EXPECT_EQ(calls[0].extra["response"]["status"], "Accepted");
  EXPECT_EQ(calls[0].extra["request"]["data"], "0");
}

TEST(PendingCalls, QueueBeyondItsBoundIsRefusedAndDisconnectEndsTheQueuedCalls) {
  Config config = test_config();
  config.limits.max_queued_calls = 2;
  Gateway gw(config);
  Waiter w[4];
  {
    Client cp(gw.port(), "/ocpp/CP1", "ocpp1.6");
    wait_registered(gw, "CP1");
    for (auto& x : w)
      gw.registry.call("CP1", "ClearCache", json::object(), std::chrono::seconds(30), x.callback());
    EXPECT_EQ(cp.receive_json()[2], "ClearCache");
    const CallOutcome full = w[3].get();  // one outstanding + two queued: the fourth is refused
    EXPECT_EQ(full.kind, Kind::NotSent);
    EXPECT_EQ(full.error_code, "QueueFull");
    cp.close();
  }
  for (int i = 0; i < 3; ++i) EXPECT_EQ(w[i].get().kind, Kind::Disconnected);
}

TEST(PendingCalls, ChargePointToCsmsActionsCannotBeSent) {
  Gateway gw;
  Client cp(gw.port(), "/ocpp/CP1", "ocpp1.6");
  wait_registered(gw, "CP1");
  Waiter w;
  gw.registry.call("CP1", "Heartbeat", json::object(), std::chrono::seconds(1), w.callback());
  const CallOutcome out = w.get();
  EXPECT_EQ(out.kind, Kind::NotSent);
  EXPECT_EQ(out.error_code, "UnknownAction");
}

// Every listed CSMS->charge point action has its request and response schema (no typos).
TEST(PendingCalls, EveryCsmsCallHasItsSchemas) {
  for (const rpc::Protocol* p : {&ocpp16::protocol(), &ocpp201::protocol()}) {
    EXPECT_GE(p->csms_calls.size(), 26u);
    for (std::string_view action : p->csms_calls) {
      EXPECT_TRUE(p->schemas.has(std::string(action) + std::string(p->request_suffix))) << action;
      EXPECT_TRUE(p->schemas.has(std::string(action) + "Response")) << action;
    }
  }
}

}  // namespace
}  // namespace ocppgw::gateway::testing
