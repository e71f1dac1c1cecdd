// tests/unit/gateway/http_session_test.cpp
#include "gateway/http_session.hpp"

#include <boost/beast/http.hpp>

#include "tests/unit/gateway/gateway_fixture.hpp"

namespace ocppgw::gateway {
namespace {

using rpc::OcppVersion;

TEST(ChargePointTarget, TakesThePercentDecodedLastSegment) {
  auto t = parse_charge_point_target("/ocpp/CP%2D01?x=1", "/ocpp");
  ASSERT_TRUE(t.charge_point_id);
  EXPECT_EQ(*t.charge_point_id, "CP-01");
  t = parse_charge_point_target("/ocpp/site/CP7", "/ocpp");
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
