// gateway/http_session.hpp: one accepted TCP connection before (or instead of) the WebSocket
// upgrade. On a wss listener it first completes the TLS handshake (a failure is one
// tls_handshake_failed log line with the remote address and OpenSSL's reason). It reads a
// request within a size limit and a timeout. An upgrade to <prefix>/{chargePointId} is checked
// (id, client certificate CN and HTTP Basic credentials as the listener demands, event log
// health, subprotocol; repeated Sec-WebSocket-Protocol lines count as one list) and handed to
// a WsSession together with any bytes read past the request (a client's first frames may come
// in the same TCP segment), on a strand of Services::sessions (the I/O threads: the listener's
// own threads serve handshakes at a lower priority); anything refused gets an HTTP 4xx/5xx with a
// plain-text reason and a log line, never an upgrade. A Transfer-Encoding Beast cannot decode
// (anything but chunked, or any at all on an upgrade) is refused (501/400) and the connection
// closed, since its body would otherwise be read as the next request. Other requests go to
// Services::http_handler (web/'s router), with keep-alive, carrying the peer's IP address and the
// scheme in the fields web/http.hpp names (set here, whatever the client sent). A route that opens
// a stream (the live stream) gets the connection handed over to a StreamingResponse
// (http_stream.hpp): no further request is read on it. Threading: runs on the connection's strand;
// the handler's respond() and stream opener may be called from any thread (they post back).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/ip/address.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "gateway/listener.hpp"
#include "gateway/services.hpp"
#include "gateway/tls_stream.hpp"
#include "gateway/upgrade_request.hpp"
#include "web/health.hpp"

namespace ocppgw::gateway {

class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(HttpStream&& stream, Services& services, std::shared_ptr<void> slot,
              std::shared_ptr<const ListenerSecurity> security);
  void run();

 private:
  void on_tls_handshake(boost::beast::error_code ec);
  void do_read();
  void on_read(boost::beast::error_code ec, size_t bytes);
  void upgrade(HttpRequest request);
  // After authentication: event log health, subprotocol, then the WsSession.
  void accept_upgrade(HttpRequest request, const std::string& charge_point_id);
  // Answers `status` with `body` and closes; the log line carries `log_reason` (default: body).
  // A non-zero `retry_after` is sent as Retry-After.
  void refuse(const HttpRequest& request, http::status status, std::string body,
              std::string_view charge_point_id, std::string_view log_reason = {},
              std::chrono::seconds retry_after = {});
  // The context of an event about a refused handshake of `charge_point_id`.
  rpc::CallContext refusal_context(std::string_view charge_point_id, int64_t now_ms) const;
  void submit_refusal(std::string_view charge_point_id, std::string raw, analytics::Event event,
                      int64_t now_ms);
  // A 401/403: a SecurityEvent of the charge point, as refusal_events() allows.
  void record_security_refusal(http::status status, std::string_view reason,
                               std::string_view charge_point_id);
  void record_refusal(const HttpRequest& request, std::string_view reason,
                      std::string_view charge_point_id);
  void write(HttpResponse response);
  void on_write(bool close, boost::beast::error_code ec, size_t bytes);
  int request_timeout_s() const;
  void shutdown();
  // After a closing response: shutdown(), then read and drop what the peer still sends
  // (bounded), so that closing does not reset the connection under the response.
  void linger();
  void drain(size_t limit);

  HttpStream stream_;
  boost::asio::steady_timer request_timer_;  // the request timeout (do_read)
  bool request_timed_out_ = false;
  bool awaiting_request_ = false;  // between do_read() and on_read()
  boost::beast::flat_buffer buffer_;
  Services& services_;
  std::shared_ptr<void> slot_;
  std::shared_ptr<const ListenerSecurity> security_;
  std::string remote_address_;  // ip:port, for log lines
  std::string peer_ip_;         // ip only, for routes (web::kPeerAddressField)
  std::string remote_client_;   // the client's address, the key of per-address login limits
  std::optional<http::request_parser<http::string_body>> parser_;
  std::shared_ptr<HttpResponse> response_;  // kept alive during async_write
  size_t lingered_ = 0;                     // bytes dropped by drain()
};

// The default non-upgrade handler: GET /health (200, or 503 when the event log is unhealthy),
// 404 for everything else. web/ wraps or replaces it.
// The gateway's own /health sections: connections, SQLite memory, CSMS state and event sink
// (the last two gate health: a node whose event log refuses writes answers 503).
void add_health_sections(web::Health& health, const Services& services);

}  // namespace ocppgw::gateway
