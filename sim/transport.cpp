// sim/transport.cpp: the Beast client stack behind Transport. One template serves ws:// and
// wss://; the TLS handshake is the only step that differs.
#include "sim/transport.hpp"

#include <netinet/in.h>

#include <deque>
#include <type_traits>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>

namespace ocppgw::sim {
namespace {

namespace beast = boost::beast;
namespace websocket = beast::websocket;
namespace net = boost::asio;
using tcp = net::ip::tcp;

using PlainStream = tcp::socket;
using TlsStream = beast::ssl_stream<tcp::socket>;

template <class NextLayer>
class WsTransport final : public Transport {
 public:
  template <class... Args>
  WsTransport(ConnectParams params, TransportOwner* owner, Args&&... args)
      : Transport(owner), params_(std::move(params)), ws_(std::forward<Args>(args)...) {}

  void start() override {
    auto& sock = beast::get_lowest_layer(ws_);
    beast::error_code ec;
    sock.open(params_.target->endpoint.protocol(), ec);
    if (!ec && params_.source) {
      // Defer the port choice to connect() so each source address gets its own port space
      // per destination instead of one global bind-time port.
      int one = 1;
      ::setsockopt(sock.native_handle(), IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
      sock.bind(tcp::endpoint(*params_.source, 0), ec);
    }
    if (ec) return post_fail(ec);
    sock.async_connect(params_.target->endpoint,
                       [self = self()](beast::error_code e) { self->on_connect(e); });
  }

  void send(std::string text) override {
    if (closed_) return;
    queue_.push_back(std::move(text));
    if (!writing_ && open_) do_write();
  }

  void close_clean() override {
    if (closed_) return;
    if (!open_) return close_abrupt();
    ws_.async_close(websocket::close_code::normal, [self = self()](beast::error_code ec) {
      self->fail(ec ? ec : beast::error_code(net::error::eof));
    });
  }

  void close_abrupt() override {
    if (closed_) return;
    beast::error_code ec;
    beast::get_lowest_layer(ws_).close(ec);
    fail(net::error::connection_aborted);
  }

 private:
  std::shared_ptr<WsTransport> self() {
    return std::static_pointer_cast<WsTransport>(shared_from_this());
  }

  void post_fail(beast::error_code ec) {
    net::post(ws_.get_executor(), [self = self(), ec] { self->fail(ec); });
  }

  void on_connect(beast::error_code ec) {
    if (ec) return fail(ec);
    beast::error_code ignored;
    beast::get_lowest_layer(ws_).set_option(tcp::no_delay(true), ignored);
    if constexpr (std::is_same_v<NextLayer, TlsStream>) {
      SSL_set_tlsext_host_name(ws_.next_layer().native_handle(), params_.target->host.c_str());
      ws_.next_layer().async_handshake(net::ssl::stream_base::client,
                                       [self = self()](beast::error_code e) {
                                         if (e) return self->fail(e);
                                         self->do_ws_handshake();
                                       });
    } else {
      do_ws_handshake();
    }
  }

  void do_ws_handshake() {
    websocket::stream_base::timeout timeouts{};
    timeouts.handshake_timeout = std::chrono::seconds(30);
    timeouts.idle_timeout = websocket::stream_base::none();
    timeouts.keep_alive_pings = false;
    ws_.set_option(timeouts);
    ws_.auto_fragment(false);
    ws_.write_buffer_bytes(2048);
    ws_.set_option(websocket::stream_base::decorator([this](websocket::request_type& req) {
      req.set(beast::http::field::sec_websocket_protocol, params_.subprotocol);
      if (!params_.authorization.empty())
        req.set(beast::http::field::authorization, params_.authorization);
    }));
    path_ = params_.target->path_prefix + "/" + params_.cp_id;
    ws_.async_handshake(response_, params_.target->host + ":" + params_.target->port, path_,
                        [self = self()](beast::error_code ec) { self->on_handshake(ec); });
  }

  void on_handshake(beast::error_code ec) {
    if (ec) return fail(ec);
    if (response_[beast::http::field::sec_websocket_protocol] != params_.subprotocol)
      return fail(net::error::no_protocol_option);
    response_ = {};
    path_.clear();
    path_.shrink_to_fit();
    open_ = true;
    ws_.text(true);
    if (owner_) owner_->on_open();
    if (!queue_.empty() && !writing_) do_write();
    do_read();
  }

  void do_read() {
    ws_.async_read(buffer_, [self = self()](beast::error_code ec, size_t) { self->on_read(ec); });
  }

  void on_read(beast::error_code ec) {
    if (ec) return fail(ec);
    if (owner_) {
      auto data = buffer_.cdata();
      owner_->on_frame(std::string_view(static_cast<const char*>(data.data()), data.size()));
    }
    buffer_.consume(buffer_.size());
    if (!closed_) do_read();
  }

  void do_write() {
    writing_ = true;
    ws_.async_write(net::buffer(queue_.front()),
                    [self = self()](beast::error_code ec, size_t) { self->on_write(ec); });
  }

  void on_write(beast::error_code ec) {
    writing_ = false;
    if (ec) return fail(ec);
    queue_.pop_front();
    if (!queue_.empty() && !closed_) do_write();
  }

  void fail(beast::error_code ec) {
    if (closed_) return;
    closed_ = true;
    const bool was_open = open_;
    open_ = false;
    beast::error_code ignored;
    beast::get_lowest_layer(ws_).close(ignored);
    queue_.clear();
    if (auto* o = owner_) {
      owner_ = nullptr;
      o->on_closed(ec, was_open);
    }
  }

  ConnectParams params_;
  websocket::stream<NextLayer> ws_;
  beast::flat_buffer buffer_;
  websocket::response_type response_;
  std::string path_;
  std::deque<std::string> queue_;
  bool writing_ = false;
  bool open_ = false;
  bool closed_ = false;
};

}  // namespace

std::optional<Target> resolve_target(const std::string& url, std::string* error) {
  Target t;
  std::string rest;
  if (url.rfind("wss://", 0) == 0) {
    t.tls = true;
    rest = url.substr(6);
  } else if (url.rfind("ws://", 0) == 0) {
    rest = url.substr(5);
  } else {
    *error = "url must start with ws:// or wss://: " + url;
    return std::nullopt;
  }
  const auto slash = rest.find('/');
  std::string hostport = rest.substr(0, slash);
  t.path_prefix = slash == std::string::npos ? "" : rest.substr(slash);
  while (!t.path_prefix.empty() && t.path_prefix.back() == '/') t.path_prefix.pop_back();
  const auto colon = hostport.rfind(':');
  t.host = colon == std::string::npos ? hostport : hostport.substr(0, colon);
  t.port = colon == std::string::npos ? (t.tls ? "443" : "80") : hostport.substr(colon + 1);
  net::io_context ioc;
  tcp::resolver resolver(ioc);
  beast::error_code ec;
  auto results = resolver.resolve(t.host, t.port, ec);
  if (ec || results.empty()) {
    *error = "cannot resolve " + hostport + ": " + ec.message();
    return std::nullopt;
  }
  t.endpoint = results.begin()->endpoint();
  return t;
}

std::shared_ptr<Transport> make_transport(net::io_context& ioc, net::ssl::context* ssl_ctx,
                                          ConnectParams params, TransportOwner* owner) {
  if (params.target->tls)
    return std::make_shared<WsTransport<TlsStream>>(std::move(params), owner, ioc, *ssl_ctx);
  return std::make_shared<WsTransport<PlainStream>>(std::move(params), owner, ioc);
}

}  // namespace ocppgw::sim
