// tests/unit/gateway/ws_stream_test.cpp: the WebSocket server stream (gateway/ws_stream.hpp)
// through a real WsSession over loopback, driven byte by byte by a raw client: frames sent
// together, control frames inside a fragmented message, the UTF-8 rule, protocol errors and
// their close codes, the closing handshake both ways, keepalive pings and the idle timeout, and
// the opening handshake's answers.
#include <poll.h>

#include <chrono>
#include <cstring>

#include "gateway/ws_stream.hpp"
#include "tests/unit/gateway/gateway_fixture.hpp"

namespace ocppgw::gateway::testing {
namespace {

using nlohmann::json;

// A frame as a client sends it: masked with a fixed key, FIN and opcode as given.
std::string client_frame(uint8_t first_byte, std::string_view payload, bool masked = true) {
  std::string f(1, static_cast<char>(first_byte));
  const uint8_t mask_bit = masked ? 0x80 : 0;
  if (payload.size() < 126) {
    f.push_back(static_cast<char>(mask_bit | payload.size()));
  } else {
    f.push_back(static_cast<char>(mask_bit | 126));
    f.push_back(static_cast<char>(payload.size() >> 8));
    f.push_back(static_cast<char>(payload.size() & 0xFF));
  }
  const uint8_t key[4] = {0x12, 0x34, 0x56, 0x78};
  if (masked) f.append(reinterpret_cast<const char*>(key), 4);
  for (size_t i = 0; i < payload.size(); ++i)
    f.push_back(masked ? static_cast<char>(payload[i] ^ key[i % 4]) : payload[i]);
  return f;
}
std::string text(std::string_view payload) { return client_frame(0x81, payload); }
std::string close_payload(uint16_t code, std::string_view reason = {}) {
  std::string p{static_cast<char>(code >> 8), static_cast<char>(code & 0xFF)};
  return p.append(reason);
}

struct ServerFrame {
  uint8_t opcode = 0;
  std::string payload;
  uint16_t close_code() const {
    return payload.size() >= 2 ? static_cast<uint16_t>((static_cast<uint8_t>(payload[0]) << 8) |
                                                       static_cast<uint8_t>(payload[1]))
                               : 0;
  }
};

// Connects, upgrades with raw bytes, then speaks frames; every read waits at most 5 s.
class RawClient {
 public:
  explicit RawClient(uint16_t port, std::string_view key = "dGhlIHNhbXBsZSBub25jZQ==",
                     std::string_view version = "13")
      : socket_(ioc_) {
    socket_.connect({net::ip::make_address("127.0.0.1"), port});
    send(
        "GET /ocpp/CP1 HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Key: " +
        std::string(key) + "\r\nSec-WebSocket-Version: " + std::string(version) +
        "\r\nSec-WebSocket-Protocol: ocpp1.6\r\n\r\n");
    while (response.find("\r\n\r\n") == std::string::npos) {
      const std::string more = read_some();
      if (more.empty()) break;
      response += more;
    }
    const size_t end = response.find("\r\n\r\n");
    if (end != std::string::npos) {
      buffer_ = response.substr(end + 4);
      response.resize(end + 4);
    }
  }

  void send(const std::string& bytes) { net::write(socket_, net::buffer(bytes)); }

  // The next frame, or nullopt at the end of the connection.
  std::optional<ServerFrame> frame() {
    if (!fill(2)) return std::nullopt;
    const auto b1 = static_cast<uint8_t>(buffer_[1]);
    EXPECT_EQ(b1 & 0x80, 0) << "a server frame is never masked";
    size_t header = 2;
    uint64_t length = b1 & 0x7F;
    if (length == 126) {
      if (!fill(4)) return std::nullopt;
      length = (static_cast<uint8_t>(buffer_[2]) << 8) | static_cast<uint8_t>(buffer_[3]);
      header = 4;
    }
    if (!fill(header + length)) return std::nullopt;
    ServerFrame f{static_cast<uint8_t>(buffer_[0] & 0x0F), buffer_.substr(header, length)};
    EXPECT_TRUE(buffer_[0] & 0x80) << "a server frame is never fragmented";
    buffer_.erase(0, header + length);
    return f;
  }
  // The next frame that is not a ping.
  std::optional<ServerFrame> data_or_close() {
    for (;;) {
      auto f = frame();
      if (!f || f->opcode != 9) return f;
    }
  }
  // True when the server ended TCP (after any frames still unread).
  // True when the server ends TCP within 5 s (bytes before the end are dropped).
  bool ended() {
    for (;;) {
      const auto [more, eof] = read_or_end();
      if (eof) return true;
      if (more.empty()) return false;  // nothing for 5 s, and no end
    }
  }

  std::string response;  // the handshake's answer, headers only

 private:
  bool fill(size_t n) {
    while (buffer_.size() < n) {
      const std::string more = read_some();
      if (more.empty()) return false;
      buffer_ += more;
    }
    return true;
  }
  std::string read_some() { return read_or_end().first; }
  // Bytes read, or the end of the connection (true); neither after 5 s without a byte.
  std::pair<std::string, bool> read_or_end() {
    pollfd p{socket_.native_handle(), POLLIN, 0};
    if (::poll(&p, 1, 5000) <= 0) return {{}, false};
    char chunk[4096];
    beast::error_code ec;
    const size_t n = socket_.read_some(net::buffer(chunk), ec);
    if (ec) return {{}, true};
    return {std::string(chunk, n), false};
  }

  net::io_context ioc_;
  net::ip::tcp::socket socket_;
  std::string buffer_;
};

std::string heartbeat(const std::string& id) { return call(id, "Heartbeat", json::object()); }

json reply_of(const std::optional<ServerFrame>& f) {
  EXPECT_TRUE(f && f->opcode == 1) << (f ? "opcode " + std::to_string(f->opcode) : "ended");
  return f && f->opcode == 1 ? json::parse(f->payload) : json();
}

TEST(WsStream, AnswersTheHandshakeWithTheRfcAcceptKeyAndTheSubprotocol) {
  Gateway gw;
  RawClient cp(gw.port());
  EXPECT_EQ(cp.response.rfind("HTTP/1.1 101", 0), 0u) << cp.response;
  EXPECT_NE(cp.response.find("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"),
            std::string::npos)
      << cp.response;
  EXPECT_NE(cp.response.find("Sec-WebSocket-Protocol: ocpp1.6\r\n"), std::string::npos);
  EXPECT_EQ(cp.response.find("Sec-WebSocket-Extensions"), std::string::npos);
}

TEST(WsStream, RefusesAnotherProtocolVersionWith426AndAMissingKeyWith400) {
  Gateway gw;
  RawClient old_version(gw.port(), "dGhlIHNhbXBsZSBub25jZQ==", "8");
  EXPECT_EQ(old_version.response.rfind("HTTP/1.1 426", 0), 0u) << old_version.response;
  EXPECT_NE(old_version.response.find("Sec-WebSocket-Version: 13\r\n"), std::string::npos);
  RawClient no_key(gw.port(), "", "13");
  EXPECT_EQ(no_key.response.rfind("HTTP/1.1 400", 0), 0u) << no_key.response;
}

TEST(WsStream, FramesSentInOneWriteAreEachAnsweredInOrder) {
  Gateway gw;
  RawClient cp(gw.port());
  cp.send(text(heartbeat("a")) + text(heartbeat("b")) + text(heartbeat("c")));
  for (const char* id : {"a", "b", "c"}) EXPECT_EQ(reply_of(cp.data_or_close())[1], id);
}

// A burst of 40 CALLs with 6 pings among them, in one write: the replies and the pongs share
// the write path (a pong may go out with a reply), and each comes back whole and in order.
TEST(WsStream, ABurstOfCallsAndPingsComesBackWholeAndInOrder) {
  Gateway gw;
  RawClient cp(gw.port());
  std::string burst;
  for (int i = 0; i < 40; ++i) {
    burst += text(heartbeat("m" + std::to_string(i)));
    if (i % 7 == 0) burst += client_frame(0x89, "p" + std::to_string(i));
  }
  cp.send(burst);
  int replies = 0;
  int pongs = 0;
  while (replies < 40 || pongs < 6) {
    const auto f = cp.frame();
    ASSERT_TRUE(f) << "ended after " << replies << " replies and " << pongs << " pongs";
    if (f->opcode == 0xA) {
      EXPECT_EQ(f->payload, "p" + std::to_string(7 * pongs));
      ++pongs;
    } else if (f->opcode != 9) {
      EXPECT_EQ(reply_of(f)[1], "m" + std::to_string(replies));
      ++replies;
    }
  }
}

TEST(WsStream, APingInsideAFragmentedMessageIsAnsweredAndTheMessageArrivesWhole) {
  Gateway gw;
  RawClient cp(gw.port());
  const std::string msg = heartbeat("frag");
  const size_t cut = msg.size() / 2;
  // text without FIN, ping, continuation with FIN
  cp.send(client_frame(0x01, msg.substr(0, cut)) + client_frame(0x89, "p1") +
          client_frame(0x80, msg.substr(cut)));
  const auto pong = cp.frame();
  ASSERT_TRUE(pong);
  EXPECT_EQ(pong->opcode, 10);
  EXPECT_EQ(pong->payload, "p1");
  EXPECT_EQ(reply_of(cp.data_or_close())[1], "frag");
}

TEST(WsStream, TextThatIsNotUtf8ClosesWith1007EvenWhenSplitAcrossFrames) {
  Gateway gw;
  RawClient cp(gw.port());
  // E0 80 is an overlong form: refused at its second byte, which comes in the next frame.
  cp.send(client_frame(0x01, "[2,\"x\",\"\xE0") + client_frame(0x80, "\x80\"]"));
  const auto f = cp.data_or_close();
  ASSERT_TRUE(f);
  EXPECT_EQ(f->opcode, 8);
  EXPECT_EQ(f->close_code(), 1007);
  EXPECT_TRUE(cp.ended());
}

TEST(WsStream, ProtocolErrorsCloseWith1002) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"unmasked frame", client_frame(0x81, heartbeat("1"), false)},
      {"RSV1 set (no extension negotiated)", client_frame(0xC1, heartbeat("1"))},
      {"reserved opcode 3", client_frame(0x83, "x")},
      {"continuation without a message", client_frame(0x80, "x")},
      {"new message inside a fragmented one", client_frame(0x01, "[") + client_frame(0x81, "]")},
      {"fragmented ping", client_frame(0x09, "x")},
      {"ping of 126 bytes", client_frame(0x89, std::string(126, 'p'))},
      {"close with a one-byte payload", client_frame(0x88, "x")},
      {"close with code 1005", client_frame(0x88, close_payload(1005))},
      {"close with a reason that is not UTF-8", client_frame(0x88, close_payload(1000, "\xFF"))},
  };
  Gateway gw;
  for (const auto& [name, bytes] : cases) {
    RawClient cp(gw.port());
    cp.send(bytes);
    const auto f = cp.data_or_close();
    ASSERT_TRUE(f) << name;
    EXPECT_EQ(f->opcode, 8) << name;
    EXPECT_EQ(f->close_code(), 1002) << name;
    EXPECT_TRUE(cp.ended()) << name;
  }
}

TEST(WsStream, ThePeersCloseIsEchoedWithItsCodeThenTheServerEndsTcp) {
  Gateway gw;
  {
    RawClient cp(gw.port());
    EXPECT_EQ(reply_of((cp.send(text(heartbeat("1"))), cp.data_or_close()))[1], "1");
    cp.send(client_frame(0x88, close_payload(4000, "bye")));
    const auto f = cp.data_or_close();
    ASSERT_TRUE(f);
    EXPECT_EQ(f->opcode, 8);
    EXPECT_EQ(f->close_code(), 4000);
    EXPECT_TRUE(cp.ended());
  }
  // The disconnect event is written as the session ends, on the gateway's thread: wait for it
  // (up to 5 s, for a loaded or sanitized run) rather than for the registry, which may empty first.
  for (int i = 0; i < 500 && gw.sink.events_of_type(analytics::EventType::Connection).size() < 2;
       ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const auto connections = gw.sink.events_of_type(analytics::EventType::Connection);
  ASSERT_EQ(connections.size(), 2u);
  EXPECT_EQ(connections[1].extra["reason"], "closed by charge point (4000 bye)");
}

TEST(WsStream, TheServersCloseWaitsForThePeersAnswer) {
  Gateway gw;
  RawClient cp(gw.port());
  EXPECT_EQ(reply_of((cp.send(text(heartbeat("1"))), cp.data_or_close()))[1], "1");
  ASSERT_EQ(gw.registry.sessions().size(), 1u);
  gw.registry.sessions()[0]->close_async(websocket::close_code::going_away, "maintenance");
  const auto f = cp.data_or_close();
  ASSERT_TRUE(f);
  EXPECT_EQ(f->opcode, 8);
  EXPECT_EQ(f->close_code(), 1001);
  EXPECT_EQ(f->payload.substr(2), "maintenance");
  // Frames after the server's close are not taken; the answering close ends the handshake,
  // and the server ends TCP (its FIN; it then waits for the peer's).
  cp.send(text(heartbeat("late")) + client_frame(0x88, close_payload(1001)));
  EXPECT_TRUE(cp.ended());
  for (const auto& e : gw.sink.entries()) EXPECT_EQ(e.raw.find("late"), std::string::npos);
}

// Keepalive on with a 2 s idle timeout: a ping is due after 1 s of silence.
Config keepalive_config() {
  Config config = test_config();
  config.limits.idle_timeout_s = 2;
  config.limits.keepalive_pings = true;
  return config;
}

TEST(WsStream, ASilentConnectionIsPingedAtHalfTheIdleTimeoutThenClosed) {
  Gateway gw(keepalive_config());
  RawClient cp(gw.port());
  const auto start = std::chrono::steady_clock::now();
  const auto ping = cp.frame();
  ASSERT_TRUE(ping);
  EXPECT_EQ(ping->opcode, 9);
  const double ping_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(ping_s, 0.9);
  EXPECT_LT(ping_s, 1.9);
  EXPECT_TRUE(cp.ended());  // no pong: closed at the idle timeout
  const double end_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(end_s, 1.9);
  EXPECT_LT(end_s, 4.0);
}

TEST(WsStream, APongKeepsASilentConnectionOpen) {
  Gateway gw(keepalive_config());
  RawClient cp(gw.port());
  for (int i = 0; i < 3; ++i) {
    const auto ping = cp.frame();
    ASSERT_TRUE(ping);
    ASSERT_EQ(ping->opcode, 9);
    cp.send(client_frame(0x8A, ping->payload));
  }
  // Three idle half-periods later the connection still serves.
  cp.send(text(heartbeat("alive")));
  EXPECT_EQ(reply_of(cp.data_or_close())[1], "alive");
}

}  // namespace
}  // namespace ocppgw::gateway::testing
