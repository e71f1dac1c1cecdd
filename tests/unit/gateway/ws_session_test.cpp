// tests/unit/gateway/ws_session_test.cpp
#include "gateway/ws_session.hpp"

#include "tests/unit/gateway/gateway_fixture.hpp"

namespace ocppgw::gateway::testing {
namespace {

using analytics::EventType;
using nlohmann::json;

const json kBoot = {{"chargePointVendor", "V"}, {"chargePointModel", "M"}};

TEST(WsSession, AnswersACallAfterItsFrameIsCommitted) {
  Gateway gw;
  Client cp(gw.port(), "/ocpp/CP1", "ocpp1.6");
  EXPECT_EQ(cp.subprotocol, "ocpp1.6");
  cp.send(call("1", "BootNotification", kBoot));
  const json reply = cp.receive_json();
  EXPECT_EQ(reply[0], 3);
  EXPECT_EQ(reply[1], "1");
  EXPECT_EQ(reply[2]["status"], "Accepted");
  bool found = false;
  for (const auto& e : gw.sink.entries())
    if (e.raw.find("BootNotification") != std::string::npos) found = e.committed;
  EXPECT_TRUE(found);
  ASSERT_EQ(gw.sink.events_of_type(EventType::Connection).size(), 1u);
  EXPECT_EQ(gw.sink.events_of_type(EventType::Connection)[0].extra["state"], "connected");
}

TEST(WsSession, RepliesGoOutInArrivalOrderWhateverTheCommitOrder) {
  Gateway gw;
  gw.sink.auto_commit = false;
  Client cp(gw.port(), "/ocpp/CP1", "ocpp1.6");
  for (int i = 1; i <= 3; ++i) cp.send(call(std::to_string(i), "Heartbeat", json::object()));
  ASSERT_TRUE(gw.sink.wait_waiting(4));  // the connected event + three frames
  // Newest first: nothing may be sent before the oldest frame is durable.
  gw.sink.commit_waiting(3);
  gw.sink.commit_waiting(2);
  gw.sink.commit_waiting(1);
  gw.sink.commit_waiting(0);
  for (int i = 1; i <= 3; ++i) EXPECT_EQ(cp.receive_json()[1], std::to_string(i));
}

// The replies a commit makes ready leave in one write (one send for the gateway and one
// segment for the charge point), not one write each: committed newest first, nothing can go
// before the oldest frame's commit, which then releases all ten together.
TEST(WsSession, RepliesReadyTogetherLeaveInOneWrite) {
  auto counter = [](const char* name) -> metrics::Counter& {
    return metrics::process_registry().counter(name, "", {"version"}).with({"1.6"});
  };
  Gateway gw;
  gw.sink.auto_commit = false;
  Client cp(gw.port(), "/ocpp/CP1", "ocpp1.6");
  constexpr int kCalls = 10;
  for (int i = 1; i <= kCalls; ++i) cp.send(call(std::to_string(i), "Heartbeat", json::object()));
  ASSERT_TRUE(gw.sink.wait_waiting(kCalls + 1));  // the connected event + the frames
  const uint64_t writes = counter("ocppgw_ws_writes_total").value();
  const uint64_t messages = counter("ocppgw_ws_messages_sent_total").value();
  for (int i = kCalls; i >= 0; --i) gw.sink.commit_waiting(static_cast<size_t>(i));
  for (int i = 1; i <= kCalls; ++i) EXPECT_EQ(cp.receive_json()[1], std::to_string(i));
  EXPECT_EQ(counter("ocppgw_ws_messages_sent_total").value() - messages, uint64_t{kCalls});
  EXPECT_EQ(counter("ocppgw_ws_writes_total").value() - writes, 1u);
}

TEST(WsSession, FailedCommitClosesWith1011AndSendsNoReply) {
  Gateway gw;
  Client cp(gw.port(), "/ocpp/CP1", "ocpp1.6");
  gw.sink.fail = true;
  cp.send(call("1", "Heartbeat", json::object()));
  EXPECT_FALSE(cp.receive().has_value());
  EXPECT_EQ(cp.close_code, 1011);
}

TEST(WsSession, OversizeFrameClosesWith1009AndKeepsItsStartInAnInvalidEvent) {
  Gateway gw;
  Client other(gw.port(), "/ocpp/CP2", "ocpp1.6");
  Client cp(gw.port(), "/ocpp/CP1", "ocpp1.6");
  const std::string big =
      "[2,\"1\",\"DataTransfer\",{\"vendorId\":\"" + std::string(10000, 'x') + "\"}]";
  cp.send(big);
  EXPECT_FALSE(cp.receive().has_value());
  EXPECT_EQ(cp.close_code, 1009);
  bool found = false;
  for (const auto& e : gw.sink.events_of_type(EventType::Invalid)) {
    if (e.charge_point_id != "CP1") continue;
    found = true;
    const std::string raw = e.extra["raw"];
    EXPECT_EQ(raw.substr(0, 20), big.substr(0, 20));
    EXPECT_LT(raw.size(), big.size());
  }
  EXPECT_TRUE(found);
  other.send(call("7", "Heartbeat", json::object()));
  EXPECT_EQ(other.receive_json()[1], "7");
}

// A message is read into the string that carries it: a first read sized from the previous
// message, then what is left of each frame. Sizes on both sides of every step, and a message in
// several frames, must all arrive whole, byte for byte, in order.
TEST(WsSession, EveryMessageArrivesWholeWhateverItsSizeAndFraming) {
  Gateway gw;
  Client cp(gw.port(), "/ocpp/CP1", "ocpp1.6");
  auto data_transfer = [](int id, size_t data_bytes) {
    return "[2,\"" + std::to_string(id) + "\",\"DataTransfer\",{\"vendorId\":\"V\",\"data\":\"" +
           std::string(data_bytes, static_cast<char>('a' + id % 26)) + "\"}]";
  };
  std::vector<std::string> sent;
  int id = 0;
  for (size_t data_bytes : {0, 200, 230, 250, 700, 3000, 10, 950, 1000, 4000, 5, 2000, 100}) {
    sent.push_back(data_transfer(++id, data_bytes));
    cp.send(sent.back());
  }
  sent.push_back(data_transfer(++id, 3000));  // four frames, the second longer than a first read
  cp.send_fragments({sent.back().substr(0, 40), sent.back().substr(40, 1500),
                     sent.back().substr(1540, 1), sent.back().substr(1541)});
  for (int i = 1; i <= id; ++i) EXPECT_EQ(cp.receive_json()[1], std::to_string(i));
  std::vector<std::string> received;
  for (const auto& e : gw.sink.entries())
    if (!e.raw.empty()) received.push_back(e.raw);
  EXPECT_EQ(received, sent);
}

TEST(WsSession, OversizeMessageInSmallFramesClosesWith1009) {
  Gateway gw;
  Client cp(gw.port(), "/ocpp/CP1", "ocpp1.6");
  const std::string big =
      "[2,\"1\",\"DataTransfer\",{\"vendorId\":\"" + std::string(5000, 'x') + "\"}]";
  std::vector<std::string> parts;
  for (size_t at = 0; at < big.size(); at += 1000) parts.push_back(big.substr(at, 1000));
  cp.send_fragments(parts);  // each frame is under max_frame_bytes (4096), the message is not
  EXPECT_FALSE(cp.receive().has_value());
  EXPECT_EQ(cp.close_code, 1009);
  const auto invalid = gw.sink.events_of_type(EventType::Invalid);
  ASSERT_EQ(invalid.size(), 1u);
  EXPECT_EQ(invalid[0].extra["raw"].get<std::string>().substr(0, 30), big.substr(0, 30));
}

TEST(WsSession, BinaryFrameClosesWith1003AndIsRecorded) {
  Gateway gw;
  Client cp(gw.port(), "/ocpp/CP1", "ocpp1.6");
  cp.send_binary(std::string("\x01\x02\xff", 3));
  EXPECT_FALSE(cp.receive().has_value());
  EXPECT_EQ(cp.close_code, 1003);
  const auto invalid = gw.sink.events_of_type(EventType::Invalid);
  ASSERT_EQ(invalid.size(), 1u);
  EXPECT_EQ(invalid[0].extra["raw"], "hex:0102ff");
}

TEST(WsSession, SecondConnectionReplacesTheFirst) {
  Gateway gw;
  Client first(gw.port(), "/ocpp/CP1", "ocpp1.6");
  first.send(call("1", "Heartbeat", json::object()));
  first.receive_json();
  Client second(gw.port(), "/ocpp/CP1", "ocpp1.6");
  EXPECT_FALSE(first.receive().has_value());
  EXPECT_EQ(first.close_code, 1000);
  second.send(call("2", "Heartbeat", json::object()));
  EXPECT_EQ(second.receive_json()[1], "2");
  EXPECT_EQ(gw.registry.size(), 1u);
  ASSERT_TRUE(gw.registry.find("CP1"));
  EXPECT_EQ(gw.registry.list().size(), 1u);
}

TEST(WsSession, DisconnectIsRecordedWithItsReason) {
  Gateway gw;
  {
    Client cp(gw.port(), "/ocpp/CP1", "ocpp1.6");
    cp.close();
  }
  for (int i = 0; i < 200 && gw.registry.size() > 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(gw.sink.wait_entries(2));
  const auto conn = gw.sink.events_of_type(EventType::Connection);
  ASSERT_EQ(conn.size(), 2u);
  EXPECT_EQ(conn[1].extra["state"], "disconnected");
  EXPECT_EQ(conn[1].extra["subprotocol"], "ocpp1.6");
  EXPECT_NE(std::string(conn[1].extra["reason"]).find("1000"), std::string::npos);
}

TEST(WsSession, NegotiatesTheServersPreferredVersion) {
  Gateway gw;
  Client both(gw.port(), "/ocpp/CP1", "ocpp1.6, ocpp2.0.1");
  EXPECT_EQ(both.subprotocol, "ocpp2.0.1");
  Client only16(gw.port(), "/ocpp/CP2", "ocpp1.6");
  EXPECT_EQ(only16.subprotocol, "ocpp1.6");
  Client only201(gw.port(), "/ocpp/CP3", "ocpp2.0.1");
  EXPECT_EQ(only201.subprotocol, "ocpp2.0.1");
  only201.send(call("1", "Heartbeat", json::object()));
  EXPECT_EQ(only201.receive_json()[0], 3);
}

TEST(WsSession, RefusesHandshakesItCannotServe) {
  Gateway gw;
  EXPECT_EQ(upgrade_status(gw.port(), "/ocpp/CP1", "ocpp1.6"), 101);
  EXPECT_EQ(upgrade_status(gw.port(), "/ocpp/CP2", ""), 400);
  EXPECT_EQ(upgrade_status(gw.port(), "/ocpp/CP2", "ocpp1.5"), 400);
  EXPECT_EQ(upgrade_status(gw.port(), "/ocpp/" + std::string(49, 'A'), "ocpp1.6"), 400);
  EXPECT_EQ(upgrade_status(gw.port(), "/ocpp/a%2Fb", "ocpp1.6"), 400);
  EXPECT_EQ(upgrade_status(gw.port(), "/other/CP1", "ocpp1.6"), 404);
  const auto invalid = gw.sink.events_of_type(EventType::Invalid);
  ASSERT_EQ(invalid.size(), 4u);  // every 400, not the 404
  EXPECT_EQ(invalid[0].charge_point_id, "CP2");
  EXPECT_EQ(invalid[2].charge_point_id, "");
}

TEST(WsSession, PinnedChargePointOnlyGetsItsVersion) {
  Config c = test_config();
  c.charge_points["OLD"].subprotocol = rpc::OcppVersion::v16;
  Gateway gw(c);
  Client pinned(gw.port(), "/ocpp/OLD", "ocpp2.0.1, ocpp1.6");
  EXPECT_EQ(pinned.subprotocol, "ocpp1.6");
  EXPECT_EQ(upgrade_status(gw.port(), "/ocpp/OLD", "ocpp2.0.1"), 400);
}

TEST(WsSession, LenientChargePointIsAnsweredDespiteSchemaViolations) {
  Config c = test_config();
  c.charge_points["LAX"].validation = rpc::ValidationMode::Lenient;
  Gateway gw(c);
  const json boot = {{"chargePointVendor", "V"}, {"chargePointModel", std::string(40, 'M')}};
  Client strict(gw.port(), "/ocpp/STRICT", "ocpp1.6");
  strict.send(call("1", "BootNotification", boot));
  EXPECT_EQ(strict.receive_json()[0], 4);
  Client lax(gw.port(), "/ocpp/LAX", "ocpp1.6");
  lax.send(call("1", "BootNotification", boot));
  EXPECT_EQ(lax.receive_json()[0], 3);
}

}  // namespace
}  // namespace ocppgw::gateway::testing
