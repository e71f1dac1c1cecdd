// tests/unit/gateway/http_session_test.cpp
#include "gateway/http_session.hpp"

#include <boost/asio/write.hpp>
#include <boost/beast/http.hpp>

#include "tests/unit/gateway/gateway_fixture.hpp"

namespace ocppgw::gateway {
namespace {

using rpc::OcppVersion;

TEST(ChargePointTarget, TakesThePercentDecodedLastSegment) {
  auto t = parse_charge_point_target("/ocpp/CP%2D01?x=1", "/ocpp");
  ASSERT_TRUE(t.charge_point_id);
  EXPECT_EQ(*t.charge_point_id, "CP-01");
  t = parse_charge_point_target("/CP7", "/");
  ASSERT_TRUE(t.charge_point_id);
  EXPECT_EQ(*t.charge_point_id, "CP7");
}

TEST(ChargePointTarget, RejectsBadIds) {
  EXPECT_FALSE(parse_charge_point_target("/ocpp/", "/ocpp").charge_point_id);
  EXPECT_FALSE(parse_charge_point_target("/ocpp/" + std::string(49, 'a'), "/ocpp").charge_point_id);
  EXPECT_TRUE(parse_charge_point_target("/ocpp/" + std::string(48, 'a'), "/ocpp").charge_point_id);
  EXPECT_FALSE(parse_charge_point_target("/ocpp/a%2Fb", "/ocpp").charge_point_id);
  EXPECT_FALSE(parse_charge_point_target("/ocpp/a%2", "/ocpp").charge_point_id);
  EXPECT_FALSE(parse_charge_point_target("/ocpp/a%zz", "/ocpp").charge_point_id);
  EXPECT_FALSE(parse_charge_point_target("/ocpp/a%20b", "/ocpp").charge_point_id);
  EXPECT_FALSE(parse_charge_point_target("/ocpp/a%C3%A9", "/ocpp").charge_point_id);
  // Extra path segments: which one names the charge point would be a guess.
  for (const char* target : {"/ocpp/a/b/CP-1", "/ocpp/site/CP7", "/ocpp/CP-1/", "/a/CP-1"}) {
    const auto t = parse_charge_point_target(target, target[1] == 'a' ? "/" : "/ocpp");
    EXPECT_FALSE(t.charge_point_id) << target;
    EXPECT_FALSE(t.not_found) << target;
    EXPECT_NE(t.error.find("only path segment"), std::string::npos) << t.error;
  }
  for (const char* target : {"/ocpp/.", "/ocpp/..", "/ocpp/%2e%2E", "/ocpp/%2E"})
    EXPECT_FALSE(parse_charge_point_target(target, "/ocpp").charge_point_id) << target;
  EXPECT_TRUE(parse_charge_point_target("/ocpp/...", "/ocpp").charge_point_id);
  EXPECT_TRUE(parse_charge_point_target("/ocpp/.CP", "/ocpp").charge_point_id);
  const auto outside = parse_charge_point_target("/ocppx/CP1", "/ocpp");
  EXPECT_FALSE(outside.charge_point_id);
  EXPECT_TRUE(outside.not_found);
}

TEST(LoginLimitKey, IsTheIpv4AddressOrTheIpv6Slash64) {
  auto key = [](const char* text) { return login_limit_key(boost::asio::ip::make_address(text)); };
  EXPECT_EQ(key("192.0.2.1"), "192.0.2.1");
  EXPECT_EQ(key("::ffff:192.0.2.1"), "192.0.2.1");
  EXPECT_EQ(key("2001:db8:1:2:3:4:5:6"), "2001:db8:1:2::/64");
  EXPECT_EQ(key("2001:db8:1:2:ffff::1"), key("2001:db8:1:2::9"));
}

TEST(SubprotocolNegotiation, PicksTheServersFavouriteAmongTheOffered) {
  const std::vector prefs{OcppVersion::v201, OcppVersion::v16};
  EXPECT_EQ(negotiate_subprotocol("ocpp1.6, ocpp2.0.1", prefs).chosen, OcppVersion::v201);
  EXPECT_EQ(negotiate_subprotocol("ocpp1.6", prefs).chosen, OcppVersion::v16);
  EXPECT_EQ(negotiate_subprotocol("ocpp2.0.1,ocpp1.6", {OcppVersion::v16}).chosen,
            OcppVersion::v16);
}

TEST(SubprotocolNegotiation, NeverFallsBackSilently) {
  const std::vector prefs{OcppVersion::v201, OcppVersion::v16};
  auto none = negotiate_subprotocol("", prefs);
  EXPECT_FALSE(none.chosen);
  EXPECT_NE(none.error.find("no Sec-WebSocket-Protocol"), std::string::npos);
  auto unknown = negotiate_subprotocol("ocpp1.5, ocpp2.1", prefs);
  EXPECT_FALSE(unknown.chosen);
  EXPECT_NE(unknown.error.find("ocpp1.5"), std::string::npos);
  EXPECT_FALSE(negotiate_subprotocol("ocpp2.0.1", {OcppVersion::v16}).chosen);
}

TEST(HttpSession, HealthReportsTheCsmsState) {
  testing::Gateway gw;
  namespace http = boost::beast::http;
  boost::asio::io_context ioc;
  boost::beast::tcp_stream stream(ioc);
  gw.state().error = "transaction ids exhausted";
  stream.connect({boost::asio::ip::make_address("127.0.0.1"), gw.port()});
  http::request<http::empty_body> req{http::verb::get, "/health", 11};
  req.set(http::field::host, "127.0.0.1");
  http::write(stream, req);
  boost::beast::flat_buffer buffer;
  http::response<http::string_body> res;
  http::read(stream, buffer, res);
  EXPECT_EQ(res.result_int(), 503u);
  const auto body = nlohmann::json::parse(res.body());
  EXPECT_EQ(body["state"]["last_error"], "transaction ids exhausted");
  EXPECT_EQ(body["sink"]["healthy"], true);
}

// ---- the upgrade request on the wire, byte for byte ----

namespace http = boost::beast::http;

std::string upgrade_request(const std::string& target, const std::string& more_headers) {
  return "GET " + target +
         " HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n" +
         more_headers + "\r\n";
}

// A text frame as a client must send it (RFC 6455: masked).
std::string masked_text_frame(std::string_view payload) {
  const unsigned char mask[4] = {0x12, 0x34, 0x56, 0x78};
  std::string f(1, '\x81');
  if (payload.size() < 126) {
    f += static_cast<char>(0x80 | payload.size());
  } else {
    f += static_cast<char>(0x80 | 126);
    f += static_cast<char>(payload.size() >> 8);
    f += static_cast<char>(payload.size() & 0xFF);
  }
  f.append(reinterpret_cast<const char*>(mask), 4);
  for (size_t i = 0; i < payload.size(); ++i) f += static_cast<char>(payload[i] ^ mask[i % 4]);
  return f;
}

// A TCP connection that writes raw bytes and reads one HTTP response, then server frames.
class RawConnection {
 public:
  explicit RawConnection(uint16_t port) : stream_(ioc_) {
    stream_.connect({boost::asio::ip::make_address("127.0.0.1"), port});
    stream_.expires_after(std::chrono::seconds(5));
  }
  http::response<http::string_body> exchange(const std::string& bytes) {
    boost::asio::write(stream_, boost::asio::buffer(bytes));  // one write: one TCP segment here
    http::response_parser<http::string_body> parser;
    http::read(stream_, buffer_, parser);
    return parser.release();
  }
  // The payload of the next (unmasked, unfragmented) server frame.
  std::string read_frame() {
    auto need = [&](size_t n) {
      while (buffer_.size() < n) buffer_.commit(stream_.read_some(buffer_.prepare(4096)));
      return static_cast<const unsigned char*>(buffer_.data().data());
    };
    const unsigned char* d = need(2);
    size_t length = d[1] & 0x7F;
    size_t header = 2;
    if (length == 126) {
      d = need(4);
      length = (size_t{d[2]} << 8) | d[3];
      header = 4;
    }
    d = need(header + length);
    std::string payload(reinterpret_cast<const char*>(d) + header, length);
    buffer_.consume(header + length);
    return payload;
  }

 private:
  boost::asio::io_context ioc_;
  boost::beast::tcp_stream stream_;
  boost::beast::flat_buffer buffer_;
};

TEST(HttpSession, FramesSentWithTheUpgradeRequestAreRead) {
  testing::Gateway gw;
  RawConnection c(gw.port());
  // The second frame alone is larger than the WebSocket's own read buffer (1536 bytes).
  const std::string data(3000, 'd');
  const auto res =
      c.exchange(upgrade_request("/ocpp/CP-1", "Sec-WebSocket-Protocol: ocpp1.6\r\n") +
                 masked_text_frame(testing::call("hb-1", "Heartbeat", nlohmann::json::object())) +
                 masked_text_frame(testing::call("dt-1", "DataTransfer",
                                                 {{"vendorId", "acme"}, {"data", data}})));
  ASSERT_EQ(res.result_int(), 101u);
  auto first = nlohmann::json::parse(c.read_frame());
  EXPECT_EQ(first[0], 3);
  EXPECT_EQ(first[1], "hb-1");
  auto second = nlohmann::json::parse(c.read_frame());
  EXPECT_EQ(second[1], "dt-1");
}

// The handshake ran on the listener's context; the session moved to Services::sessions, so it
// answers while the listener's context is busy (it would answer only after if it had stayed).
TEST(HttpSession, AnUpgradedConnectionLeavesTheHandshakeContext) {
  testing::Gateway gw;
  testing::Client cp(gw.port(), "/ocpp/CP-1", "ocpp1.6");
  const auto blocked_over = gw.block_handshakes(std::chrono::seconds(2));
  cp.send(testing::call("hb-1", "Heartbeat", nlohmann::json::object()));
  const auto reply = cp.receive_json();
  EXPECT_FALSE(*blocked_over) << "answered only once the handshake context was free";
  EXPECT_EQ(reply[0], 3);
  EXPECT_EQ(reply[1], "hb-1");
}

TEST(HttpSession, RepeatedSubprotocolLinesAreOneList) {
  testing::Gateway gw;
  RawConnection c(gw.port());
  const auto res = c.exchange(upgrade_request(
      "/ocpp/CP-1", "Sec-WebSocket-Protocol: ocpp0.9\r\nSec-WebSocket-Protocol: ocpp2.0.1\r\n"));
  EXPECT_EQ(res.result_int(), 101u) << res.body();
  EXPECT_EQ(res[http::field::sec_websocket_protocol], "ocpp2.0.1");
}

TEST(HttpSession, ExtraPathSegmentsAndDotIdsAreRefused) {
  testing::Gateway gw;
  for (const char* target : {"/ocpp/a/b/CP-1", "/ocpp/.", "/ocpp/.."})
    EXPECT_EQ(testing::upgrade_status(gw.port(), target, "ocpp1.6"), 400) << target;
  EXPECT_EQ(testing::upgrade_status(gw.port(), "/ocpp/CP-1", "ocpp1.6"), 101);
}

TEST(HttpSession, TransferCodingsItCannotHonourAreRefused) {
  testing::Gateway gw;
  // An upgrade has no body: any Transfer-Encoding is refused.
  for (const std::string coding : {"xchunked", "chunked"}) {
    RawConnection c(gw.port());
    const auto res = c.exchange(upgrade_request("/ocpp/CP-1",
                                                "Sec-WebSocket-Protocol: ocpp1.6\r\n"
                                                "Transfer-Encoding: " +
                                                    coding + "\r\n") +
                                (coding == "chunked" ? "0\r\n\r\n" : ""));
    EXPECT_EQ(res.result_int(), 400u) << coding;
    EXPECT_NE(res.body().find("Transfer-Encoding: '" + coding + "'"), std::string::npos)
        << res.body();
  }
  // Elsewhere chunked is understood, anything else is not (its body would pass for the next
  // request).
  RawConnection unknown(gw.port());
  const auto res = unknown.exchange(
      "POST /health HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n");
  EXPECT_EQ(res.result_int(), 501u);
  EXPECT_NE(res.body().find("only chunked"), std::string::npos) << res.body();
  RawConnection chunked(gw.port());
  EXPECT_EQ(
      chunked
          .exchange(
              "GET /health HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
          .result_int(),
      200u);
}

TEST(HttpSession, HealthReportsTheSink) {
  testing::Gateway gw;
  namespace http = boost::beast::http;
  auto get = [&] {
    boost::asio::io_context ioc;
    boost::beast::tcp_stream stream(ioc);
    stream.connect({boost::asio::ip::make_address("127.0.0.1"), gw.port()});
    http::request<http::empty_body> req{http::verb::get, "/health", 11};
    req.set(http::field::host, "127.0.0.1");
    http::write(stream, req);
    boost::beast::flat_buffer buffer;
    http::response<http::string_body> res;
    http::read(stream, buffer, res);
    return res;
  };
  auto ok = get();
  EXPECT_EQ(ok.result_int(), 200u);
  EXPECT_EQ(nlohmann::json::parse(ok.body())["status"], "ok");
  gw.sink.fail = true;
  csms::SinkEntry entry;
  entry.on_durable = [](bool) {};
  gw.sink.submit(std::move(entry));  // any submission now fails: the sink turns unhealthy
  EXPECT_EQ(get().result_int(), 503u);
}

}  // namespace
}  // namespace ocppgw::gateway
