// gateway/http_session.cpp
#include "gateway/http_session.hpp"

#include <algorithm>
#include <cctype>

#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/websocket.hpp>
#include <nlohmann/json.hpp>

#include "csms/charge_point_id.hpp"
#include "gateway/auth.hpp"
#include "gateway/disk_guard.hpp"
#include "gateway/http_stream.hpp"
#include "gateway/refusal_events.hpp"
#include "gateway/session_registry.hpp"
#include "gateway/tls.hpp"
#include "gateway/ws_session.hpp"
#include "rpc/dispatcher.hpp"
#include "storage/db.hpp"
#include "util/logging.hpp"
#include "util/metrics.hpp"
#include "util/time.hpp"

namespace ocppgw::gateway {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;

// What a streaming response may hold for a client that does not read: a live stream sends a
// few KiB a second at most (a `changes` event of 500 ids is ~15 KiB, a `pipeline` event ~2 KiB),
// so this is many seconds of backlog, while 100 stalled streams still hold no more than 25 MiB.
constexpr size_t kStreamQueueBytes = 256 * 1024;

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}

// Every line of a repeated header field, comma-joined: RFC 7230 section 3.2.2 makes that the
// field's value (Beast's operator[] returns the first line only).
std::string joined_values(const HttpRequest& request, http::field field) {
  std::string out;
  for (auto [it, end] = request.equal_range(field); it != end; ++it) {
    if (!out.empty()) out += ", ";
    out += it->value();
  }
  return out;
}

// Why the request's Transfer-Encoding cannot be honoured; empty if it can. Beast decodes
// "chunked" only and reads any other coding as "no body", so what the client sent as a body
// would be parsed as the next request on the connection: refuse instead. An upgrade request
// has no body at all.
std::string transfer_coding_error(const HttpRequest& request, bool upgrade) {
  const std::string codings = joined_values(request, http::field::transfer_encoding);
  if (codings.empty()) return {};
  const std::string shown = "'" + codings.substr(0, 64) + (codings.size() > 64 ? "...'" : "'");
  if (upgrade)
    return "a WebSocket upgrade request must not have a body (Transfer-Encoding: " + shown + ")";
  std::string lowered = trim(codings);
  std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lowered != "chunked")
    return "unsupported Transfer-Encoding " + shown + "; only chunked is implemented";
  return {};
}

// A plain-text answer after which the connection closes.
HttpResponse closing_response(http::status status, unsigned version, std::string body) {
  HttpResponse res{status, version};
  res.set(http::field::server, "ocppgw");
  res.set(http::field::content_type, "text/plain");
  res.body() = std::move(body) + "\n";
  res.keep_alive(false);
  return res;
}

// The OCPP security profile a listener enforces: 1 HTTP Basic over ws, 2 TLS and HTTP Basic,
// 3 TLS client certificates; 0 no charge point authentication (ws, or wss alone).
int security_profile(const ListenerSecurity& security) {
  if (security.tls && security.client_certificates) return 3;
  if (security.basic_auth) return security.tls ? 2 : 1;
  return 0;
}

// Held for as long as a charge point's WebSocket lives (with its connection slot), so the
// connections gauge counts the connections open right now.
class CountedConnection {
 public:
  CountedConnection(std::shared_ptr<void> slot, metrics::Gauge& gauge)
      : slot_(std::move(slot)), gauge_(gauge) {
    gauge_.add(1);
  }
  ~CountedConnection() { gauge_.add(-1); }
  CountedConnection(const CountedConnection&) = delete;
  CountedConnection& operator=(const CountedConnection&) = delete;

 private:
  std::shared_ptr<void> slot_;
  metrics::Gauge& gauge_;
};

metrics::Gauge& connections_gauge(rpc::OcppVersion version, const ListenerSecurity& security) {
  return metrics::process_registry()
      .gauge("ocppgw_connections",
             "Charge point WebSocket connections open, by OCPP version and security profile "
             "(0: none, 1: Basic over ws, 2: TLS and Basic, 3: TLS client certificates).",
             {"version", "security_profile"})
      .with({std::string(rpc::to_string(version)), std::to_string(security_profile(security))});
}

// Puts the connection's descriptor on `executor`, nothing being in progress on it: an upgraded
// connection leaves the handshake threads for the I/O threads (Services::sessions).
beast::error_code move_connection(HttpStream& stream, const net::any_io_executor& executor) {
  auto& socket = tcp_layer(stream).socket();
  beast::error_code ec;
  const auto protocol = socket.local_endpoint(ec).protocol();
  if (ec) return ec;
  const auto descriptor = socket.release(ec);
  if (ec) return ec;
  net::ip::tcp::socket moved(executor);
  moved.assign(protocol, descriptor, ec);
  if (ec) {
    ::close(descriptor);
    return ec;
  }
  if (auto* tls = std::get_if<TlsStream>(&stream))
    tls->rebind(std::move(moved));
  else
    stream.emplace<PlainStream>(std::move(moved));
  return {};
}

}  // namespace

HttpSession::HttpSession(HttpStream&& stream, Services& services, std::shared_ptr<void> slot,
                         std::shared_ptr<const ListenerSecurity> security)
    : stream_(std::move(stream)),
      request_timer_(tcp_layer(stream_).get_executor()),
      services_(services),
      slot_(std::move(slot)),
      security_(std::move(security)) {
  beast::error_code ec;
  const auto ep = tcp_layer(stream_).socket().remote_endpoint(ec);
  if (!ec) {
    peer_ip_ = ep.address().to_string();
    remote_address_ =
        (ep.address().is_v6() ? "[" + peer_ip_ + "]" : peer_ip_) + ":" + std::to_string(ep.port());
    remote_client_ = login_limit_key(ep.address());
  }
}

void HttpSession::run() {
  net::dispatch(tcp_layer(stream_).get_executor(), [self = shared_from_this()] {
    auto* tls = std::get_if<TlsStream>(&self->stream_);
    if (!tls) return self->do_read();
    // The handshake shares the HTTP phase's timeout: a peer that opens TCP and stalls is cut.
    tcp_layer(self->stream_)
        .expires_after(std::chrono::seconds(self->services_.config.limits.handshake_timeout_s));
    tls->async_handshake(net::ssl::stream_base::server,
                         [self](beast::error_code ec) { self->on_tls_handshake(ec); });
  });
}

void HttpSession::on_tls_handshake(beast::error_code ec) {
  if (ec) {
    // Nothing more is pending: this session, its socket and its connection slot go away here.
    std::string reason = ec == beast::error::timeout ? "timeout" : ec.message();
    if (ec.category() == net::error::get_ssl_category()) {
      const unsigned long code = static_cast<unsigned long>(ec.value());
      if (const char* lib = ERR_lib_error_string(code)) reason += std::string(" (") + lib + ")";
    }
    // Which check a client certificate failed (expired, not yet valid, wrong purpose, unknown
    // issuer): "certificate verify failed" alone does not tell the operator.
    if (auto* tls = std::get_if<TlsStream>(&stream_)) {
      const long verify = SSL_get_verify_result(tls->native_handle());
      if (verify != X509_V_OK)
        reason += std::string("; client certificate: ") + X509_verify_cert_error_string(verify);
    }
    log::warn("tls_handshake_failed", "", {{"remote", remote_address_}, {"reason", reason}});
    return;
  }
  do_read();
}

void HttpSession::do_read() {
  const auto& limits = services_.config.limits;
  parser_.emplace();
  parser_->header_limit(static_cast<uint32_t>(limits.max_http_header_bytes));
  parser_->body_limit(limits.max_http_body_bytes);
  // The request timeout is a timer of its own rather than the stream's expiry: an expired
  // tcp_stream closes its socket, and a half-sent request should still get its 408.
  tcp_layer(stream_).expires_never();
  request_timed_out_ = false;
  awaiting_request_ = true;
  request_timer_.expires_after(std::chrono::seconds(request_timeout_s()));
  request_timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
    // Cancelled, or it fired as the request arrived (cancel() comes too late for a handler
    // already queued): the connection may be on its way to another thread by now.
    if (ec || !self->awaiting_request_) return;
    self->request_timed_out_ = true;
    beast::error_code ignored;
    tcp_layer(self->stream_).socket().cancel(ignored);
  });
  visit_stream(stream_, [&](auto& stream) {
    http::async_read(stream, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, size_t bytes) {
                       self->on_read(ec, bytes);
                     });
  });
}

void HttpSession::shutdown() {
  // The peer reads EOF after the last response; for TLS no close_notify is awaited (the
  // responses are length-delimited, and waiting would hold the slot for an unresponsive peer).
  beast::error_code ignored;
  tcp_layer(stream_).socket().shutdown(net::ip::tcp::socket::shutdown_send, ignored);
}

int HttpSession::request_timeout_s() const {
  // A listener that serves charge points has the (shorter) handshake timeout: an upgrade
  // request is small, and a stalled one holds a slot that charge points need.
  const auto& limits = services_.config.limits;
  return security_->serves_charge_points ? limits.handshake_timeout_s
                                         : limits.web_request_timeout_s;
}

void HttpSession::linger() {
  // Closing a socket with unread bytes makes the kernel send RST, and a RST can destroy the
  // response still on its way to the peer: a client whose body was refused (413) is usually
  // still sending it. So after the last response the rest is read and dropped, at most
  // kLingerBytes for at most kLingerTime, and only then is the socket closed.
  constexpr size_t kLingerBytes = 1 << 20;
  constexpr auto kLingerTime = std::chrono::seconds(2);
  shutdown();
  lingered_ = 0;
  tcp_layer(stream_).expires_after(kLingerTime);
  drain(kLingerBytes);
}

void HttpSession::drain(size_t limit) {
  buffer_.consume(buffer_.size());
  tcp_layer(stream_).async_read_some(
      buffer_.prepare(16384), [self = shared_from_this(), limit](beast::error_code ec, size_t n) {
        self->lingered_ += n;
        if (!ec && self->lingered_ < limit) self->drain(limit);
      });
}

void HttpSession::on_read(beast::error_code ec, size_t) {
  awaiting_request_ = false;
  request_timer_.cancel();
  if (request_timed_out_ && ec) ec = beast::error::timeout;
  if (ec == beast::error::timeout && (parser_->got_some() || buffer_.size() > 0)) {
    // Part of a request came, the rest not in time: say so (an idle keep-alive connection that
    // times out between requests is closed silently, as clients expect). An incomplete header
    // stays in buffer_ unparsed, hence both checks.
    const std::string seconds = std::to_string(request_timeout_s());
    log::warn("http_request_timeout", "", {{"remote", remote_address_}, {"timeout_s", seconds}});
    write(closing_response(http::status::request_timeout, 11,
                           "the request did not arrive completely within " + seconds + " s"));
    return;
  }
  if (ec == http::error::end_of_stream || ec == beast::error::timeout ||
      ec == net::error::operation_aborted || ec == net::ssl::error::stream_truncated) {
    shutdown();
    return;
  }
  if (ec) {
    // Over a size limit: the status says which, so a client can tell its request was too big
    // rather than malformed. The rest of the request is unread: the connection must close.
    const auto status = ec == http::error::body_limit ? http::status::payload_too_large
                        : ec == http::error::header_limit
                            ? http::status::request_header_fields_too_large
                            : http::status::bad_request;
    log::warn("http_bad_request", "",
              {{"remote", remote_address_},
               {"status", std::to_string(static_cast<int>(status))},
               {"error", ec.message()}});
    const std::string detail =
        status == http::status::payload_too_large
            ? "the body exceeds max_http_body_bytes (" +
                  std::to_string(services_.config.limits.max_http_body_bytes) + ")"
        : status == http::status::request_header_fields_too_large
            ? "the request header exceeds max_http_header_bytes (" +
                  std::to_string(services_.config.limits.max_http_header_bytes) + ")"
            : "bad request: " + ec.message();
    write(closing_response(status, 11, detail));
    return;
  }
  HttpRequest request = parser_->release();
  const bool is_upgrade = websocket::is_upgrade(request);
  if (auto error = transfer_coding_error(request, is_upgrade); !error.empty()) {
    if (is_upgrade) return refuse(request, http::status::bad_request, std::move(error), "");
    log::warn("http_bad_request", "", {{"remote", remote_address_}, {"error", error}});
    write(closing_response(http::status::not_implemented, request.version(), std::move(error)));
    return;
  }
  if (is_upgrade && !security_->serves_charge_points)
    return refuse(request, http::status::not_found,
                  "this listener serves the HTTP API; charge points connect to the OCPP listeners",
                  "");
  if (is_upgrade) {
    upgrade(std::move(request));
    return;
  }
  if (!security_->serves_api) {
    // With web_listen the API is there only: nothing but upgrades is answered here, so the
    // charge point port exposes no API route (not even the probes) to the charge point network.
    write(closing_response(http::status::not_found, request.version(),
                           "not found: this listener serves OCPP WebSocket upgrades only"));
    return;
  }
  // What only the connection knows, for routes to trust (web/http.hpp); set() replaces any
  // field of the same name a client sent.
  request.set(web::kPeerAddressField, peer_ip_);
  request.set(web::kSchemeField, std::holds_alternative<TlsStream>(stream_) ? "https" : "http");
  auto respond = [self = shared_from_this()](HttpResponse res) {
    net::post(tcp_layer(self->stream_).get_executor(),
              [self, res = std::move(res)]() mutable { self->write(std::move(res)); });
  };
  // A route that streams takes the connection over (http_stream.hpp), the way an upgrade
  // hands it to a WsSession: this session reads no further request.
  auto open_stream = [self = shared_from_this(), executor = tcp_layer(stream_).get_executor(),
                      target = std::string(request.target())](HttpResponse head,
                                                              std::function<void()> on_closed) {
    StreamingResponse::Options options;
    options.max_queued_bytes = kStreamQueueBytes;
    options.write_timeout = std::chrono::seconds(self->services_.config.limits.handshake_timeout_s);
    options.remote = self->remote_address_;
    options.target = target;
    auto stream =
        std::make_shared<StreamingResponse>(executor, std::move(options), std::move(on_closed));
    net::post(executor, [self, stream, head = std::move(head)]() mutable {
      stream->start(std::move(self->stream_), std::move(self->slot_), std::move(head));
    });
    return std::shared_ptr<web::ResponseStream>(std::move(stream));
  };
  services_.http_handler(std::move(request), std::move(respond), std::move(open_stream));
}

void HttpSession::upgrade(HttpRequest request) {
  const auto target = parse_charge_point_target(request.target(), services_.config.path_prefix);
  if (!target.charge_point_id) {
    refuse(request, target.not_found ? http::status::not_found : http::status::bad_request,
           target.error, "");
    return;
  }
  const std::string& cp = *target.charge_point_id;
  // Security profile 3: the verified client certificate names the charge point.
  if (security_->client_certificates) {
    auto* tls = std::get_if<TlsStream>(&stream_);
    const auto cn = peer_common_name(tls ? tls->native_handle() : nullptr);
    if (!cn) {
      refuse(request, http::status::forbidden, "client certificate has no single subject CN", cp);
      return;
    }
    if (*cn != cp) {
      refuse(request, http::status::forbidden,
             "client certificate CN '" + *cn + "' does not match the charge point id", cp);
      return;
    }
  }
  // Security profiles 1 and 2: HTTP Basic, verified off the I/O thread (see auth.hpp).
  if (security_->basic_auth) {
    auto pending = std::make_shared<HttpRequest>(std::move(request));
    const std::string authorization(pending->base()[http::field::authorization]);
    security_->basic_auth->verify(
        cp, authorization, remote_client_, tcp_layer(stream_).get_executor(),
        [self = shared_from_this(), pending, cp](AuthOutcome outcome) {
          switch (outcome.result) {
            case AuthResult::Accepted:
              return self->accept_upgrade(std::move(*pending), cp);
            case AuthResult::Rejected:
              // The precise reason of a verification goes to the log only: the body must not
              // tell a prober which charge point ids exist. A backoff refusal says when to
              // retry; it is the same for known and unknown ids.
              return self->refuse(
                  *pending, http::status::unauthorized,
                  outcome.retry_after.count() > 0 ? outcome.reason : "authentication failed", cp,
                  outcome.reason, outcome.retry_after);
            case AuthResult::Unavailable:
              return self->refuse(*pending, http::status::service_unavailable, outcome.reason, cp,
                                  {}, outcome.retry_after);
          }
        });
    return;
  }
  accept_upgrade(std::move(request), cp);
}

void HttpSession::accept_upgrade(HttpRequest request, const std::string& cp) {
  // After a security profile upgrade (OCPP 2.0.1 use case A05; the 1.6 security white paper)
  // a charge point must not come back on a lower profile: the central system refuses such a
  // connection. Checked after authentication, so only an authenticated charge point learns
  // what it needs.
  const int provided = security_profile(*security_);
  if (services_.assigned_security_profile) {
    if (auto assigned = services_.assigned_security_profile(cp); assigned && provided < *assigned) {
      refuse(request, http::status::forbidden,
             "charge point " + cp + " is assigned security profile " + std::to_string(*assigned) +
                 "; this listener provides profile " + std::to_string(provided),
             cp);
      return;
    }
  }
  if (!services_.sink.healthy()) {
    refuse(request, http::status::service_unavailable,
           "the event log is unavailable; try again later", cp);
    return;
  }
  std::vector<rpc::OcppVersion> preference;
  for (auto v : services_.config.subprotocols_for(cp))
    if (services_.protocol(v)) preference.push_back(v);
  const auto negotiation = negotiate_subprotocol(
      joined_values(request, http::field::sec_websocket_protocol), preference);
  if (!negotiation.chosen) {
    refuse(request, http::status::bad_request, negotiation.error, cp);
    return;
  }
  // The session is made on its own strand of the I/O context, so what it keeps for the
  // connection's life comes from an I/O thread's malloc arena, next to what its frames
  // allocate, rather than from a handshake thread's among OpenSSL's handshake temporaries (an
  // idle wss connection measured 20.1-20.3 KB made there, 20.6-20.9 KB made here:
  // BENCHMARKS.md). buffer_ may already hold the client's first frames (sent right behind the
  // request).
  auto executor = net::make_strand(*services_.sessions);
  net::post(executor, [self = shared_from_this(), executor, request = std::move(request), cp,
                       provided, version = *negotiation.chosen]() mutable {
    if (auto ec = move_connection(self->stream_, executor)) {
      log::warn("upgrade_failed", cp, {{"remote", self->remote_address_}, {"error", ec.message()}});
      return;
    }
    auto slot = std::make_shared<CountedConnection>(std::move(self->slot_),
                                                    connections_gauge(version, *self->security_));
    auto session = std::make_shared<WsSession>(
        std::move(self->stream_), self->services_, cp, self->remote_address_, provided,
        *self->services_.protocol(version), std::move(slot), self->buffer_.data());
    session->run(std::move(request));
  });
}

void HttpSession::refuse(const HttpRequest& request, http::status status, std::string body,
                         std::string_view charge_point_id, std::string_view log_reason,
                         std::chrono::seconds retry_after) {
  log::warn("handshake_refused", charge_point_id,
            {{"remote", remote_address_},
             {"listener", security_->scheme},
             {"target", request.target()},
             {"status", std::to_string(static_cast<int>(status))},
             {"reason", log_reason.empty() ? std::string_view(body) : log_reason}});
  // A refused charge point handshake is bad input like a bad frame: it leaves an Invalid event
  // (charge_point_id empty when the id itself was the problem, for analytics to quarantine).
  if (status == http::status::bad_request) record_refusal(request, body, charge_point_id);
  // A refused login or profile is a security event of that charge point (who, from where, why),
  // for the data platform as much as for the operator; bounded, so a flood fills no disk.
  if ((status == http::status::unauthorized || status == http::status::forbidden) &&
      !charge_point_id.empty())
    record_security_refusal(status, log_reason.empty() ? std::string_view(body) : log_reason,
                            charge_point_id);
  HttpResponse res = closing_response(status, request.version(), std::move(body));
  if (status == http::status::unauthorized)
    res.set(http::field::www_authenticate, "Basic realm=\"ocppgw\"");
  if (retry_after.count() > 0)
    res.set(http::field::retry_after, std::to_string(retry_after.count()));
  write(std::move(res));
}

rpc::CallContext HttpSession::refusal_context(std::string_view charge_point_id,
                                              int64_t now_ms) const {
  const auto preference = services_.config.subprotocols_for(charge_point_id);
  return {.charge_point_id = std::string(charge_point_id),
          .version = preference.empty() ? rpc::OcppVersion::v16 : preference.front(),
          .message_id = {},
          .action = {},
          .ingest_ts_ms = now_ms,
          .mode = services_.config.validation_mode,
          .policy = services_.policy,
          .state = services_.state,
          .writes = nullptr,
          .flags = {},
          .violations = nlohmann::json::array()};
}

void HttpSession::submit_refusal(std::string_view charge_point_id, std::string raw,
                                 analytics::Event event, int64_t now_ms) {
  csms::SinkEntry entry;
  entry.charge_point_id = std::string(charge_point_id);
  entry.raw_frame = std::move(raw);
  entry.received_ms = now_ms;
  entry.events.push_back(std::move(event));
  entry.on_durable = [](bool) {};
  services_.sink.submit(std::move(entry));
}

void HttpSession::record_refusal(const HttpRequest& request, std::string_view reason,
                                 std::string_view charge_point_id) {
  const int64_t now = util::now_ms();
  const auto ctx = refusal_context(charge_point_id, now);
  std::string raw = "GET " + std::string(request.target()) + " Sec-WebSocket-Protocol: " +
                    joined_values(request, http::field::sec_websocket_protocol);
  auto event = rpc::invalid_event(ctx, raw, "handshake refused: " + std::string(reason));
  event.extra["remote_address"] = remote_address_;
  submit_refusal(charge_point_id, std::move(raw), std::move(event), now);
}

void HttpSession::record_security_refusal(http::status status, std::string_view reason,
                                          std::string_view charge_point_id) {
  const int64_t now = util::now_ms();
  int64_t suppressed = 0;
  if (!refusal_events().allow(charge_point_id, now, &suppressed)) return;
  nlohmann::json details = {
      {"source", "gateway"},
      // The OCPP 2.0.1 security event type names (Appendix 1) where one fits.
      {"type", status == http::status::unauthorized ? "InvalidChargingStationCredentials"
                                                    : "SecurityProfileOrCertificateRefused"},
      {"remote_address", remote_address_},
      {"listener", security_->scheme},
      {"status", static_cast<int>(status)},
      {"reason", std::string(reason)}};
  if (suppressed > 0) details["suppressed_before"] = suppressed;
  const auto ctx = refusal_context(charge_point_id, now);
  submit_refusal(charge_point_id, "handshake refused " + std::to_string(static_cast<int>(status)),
                 rpc::refusal_security_event(ctx, details), now);
}

void HttpSession::write(HttpResponse response) {
  response.prepare_payload();
  const bool close = response.need_eof();
  response_ = std::make_shared<HttpResponse>(std::move(response));
  tcp_layer(stream_).expires_after(
      std::chrono::seconds(services_.config.limits.handshake_timeout_s));
  visit_stream(stream_, [&](auto& stream) {
    http::async_write(stream, *response_,
                      [self = shared_from_this(), close](beast::error_code ec, size_t bytes) {
                        self->on_write(close, ec, bytes);
                      });
  });
}

void HttpSession::on_write(bool close, beast::error_code ec, size_t) {
  response_.reset();
  if (ec) {
    shutdown();
    return;
  }
  if (close) {
    linger();
    return;
  }
  do_read();
}

void add_health_sections(web::Health& health, const Services& services) {
  health.add({"connections", [&services] { return nlohmann::json(services.registry.size()); }, {}});
  if (services.connections)
    health.add({"connection_limit",
                [&services] {
                  return nlohmann::json{{"open", services.connections->open()},
                                        {"max", services.connections->max_total()}};
                },
                {}});
  if (services.disk)
    health.add({"disk", [&services] { return services.disk->report(); },
                [&services] { return services.disk->healthy(); }});
  health.add(
      {"sqlite_memory_bytes", [] { return nlohmann::json(storage::sqlite_memory_used()); }, {}});
  health.add({"state",
              [&services] {
                return nlohmann::json{{"healthy", services.state.healthy()},
                                      {"last_error", services.state.last_error()}};
              },
              [&services] { return services.state.healthy(); }});
  health.add({"sink",
              [&services] {
                const auto stats = services.sink.stats();
                return nlohmann::json{{"healthy", services.sink.healthy()},
                                      {"frames_committed", stats.frames_committed},
                                      {"events_committed", stats.events_committed},
                                      {"batches", stats.batches},
                                      {"last_commit_ms", stats.last_commit_ms},
                                      {"last_error", stats.last_error}};
              },
              [&services] { return services.sink.healthy(); }});
}

}  // namespace ocppgw::gateway
