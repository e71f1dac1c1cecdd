// gateway/http_session.hpp: one accepted TCP connection before (or instead of) the WebSocket
// upgrade. It reads a request within a size limit and a timeout. An upgrade to
// <prefix>/{chargePointId} is checked (id, event log health, subprotocol) and handed to a
// WsSession; anything refused gets an HTTP 4xx/5xx with a plain-text reason and a log line,
// never an upgrade. Other requests go to Services::http_handler (health now, web/ later),
// with keep-alive.
// Threading: runs on the connection's strand; the handler's respond() may be called from any
// thread (it posts back).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "gateway/services.hpp"

namespace ocppgw::gateway {

// The charge point id of a request target: the last path segment under `prefix`,
// percent-decoded. Errors name what is wrong (for the 400 body).
struct TargetParse {
  std::optional<std::string> charge_point_id;
  std::string error;
  bool not_found = false;  // the path is not under the prefix at all (404 rather than 400)
};
TargetParse parse_charge_point_target(std::string_view target, std::string_view prefix);

// Server-side subprotocol choice: the first of `preference` that the client offered.
struct Negotiation {
  std::optional<rpc::OcppVersion> chosen;
  std::string error;  // why nothing was chosen
};
Negotiation negotiate_subprotocol(std::string_view offered_header,
                                  const std::vector<rpc::OcppVersion>& preference);

class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(boost::asio::ip::tcp::socket&& socket, Services& services,
              std::shared_ptr<void> slot);
  void run();

 private:
  void do_read();
  void on_read(boost::beast::error_code ec, size_t bytes);
  void upgrade(HttpRequest request);
  void refuse(const HttpRequest& request, http::status status, std::string body,
              std::string_view charge_point_id);
  void record_refusal(const HttpRequest& request, std::string_view reason,
                      std::string_view charge_point_id);
  void write(HttpResponse response);
  void on_write(bool close, boost::beast::error_code ec, size_t bytes);

  boost::beast::tcp_stream stream_;
  boost::beast::flat_buffer buffer_;
  Services& services_;
  std::shared_ptr<void> slot_;
  std::string remote_address_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::shared_ptr<HttpResponse> response_;  // kept alive during async_write
};

// The default non-upgrade handler: GET /health (200, or 503 when the event log is unhealthy),
// 404 for everything else. web/ wraps or replaces it.
HttpHandler health_handler(const Services& services);

}  // namespace ocppgw::gateway
