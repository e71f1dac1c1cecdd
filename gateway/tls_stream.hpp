// gateway/tls_stream.hpp: the two stream types a connection can have (plain TCP, or TLS over
// TCP) behind one small type each, so that HttpSession and WsSession are written once.
// The choice is a std::variant rather than a template parameter of the sessions: the session
// code stays in its .cpp files and the session registry keeps one WsSession type, at the price
// of one branch on the variant's index per I/O call (nothing next to a syscall and a strand
// hop). Completion handlers are instantiated for both stream types.
// Threading: like the Beast streams they wrap (one strand at a time).
#pragma once

#include <cstddef>
#include <functional>
#include <utility>
#include <variant>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/core/buffered_read_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/websocket.hpp>

#include "gateway/tls_socket.hpp"

namespace boost::beast {
// websocket::stream shuts its next layer down through teardown()/async_teardown(), found by
// argument-dependent lookup; Beast has them for TCP and TLS streams but not for
// buffered_read_stream (WsStream's next layer), which adds nothing to shut down: forward.
template <class Next, class Buffer>
void teardown(role_type role, buffered_read_stream<Next, Buffer>& stream, error_code& ec) {
  using websocket::teardown;
  teardown(role, stream.next_layer(), ec);
}
template <class Next, class Buffer, class Handler>
void async_teardown(role_type role, buffered_read_stream<Next, Buffer>& stream, Handler&& handler) {
  using websocket::async_teardown;
  async_teardown(role, stream.next_layer(), std::forward<Handler>(handler));
}
}  // namespace boost::beast

namespace ocppgw::gateway {

using PlainStream = boost::beast::tcp_stream;
using TlsStream = TlsSocket;  // why not asio::ssl::stream: tls_socket.hpp

// Calls f with the alternative `v` holds. A branch, not std::visit's table and its
// bad_variant_access path: these variants are never valueless.
template <typename Variant, typename F>
decltype(auto) visit_stream(Variant& v, F&& f) {
  if (v.index() == 0) return std::forward<F>(f)(*std::get_if<0>(&v));
  return std::forward<F>(f)(*std::get_if<1>(&v));
}

// One accepted connection before the WebSocket upgrade (HTTP requests, TLS handshake).
using HttpStream = std::variant<PlainStream, TlsStream>;

inline boost::beast::tcp_stream& tcp_layer(HttpStream& s) {
  return visit_stream(
      s, [](auto& x) -> boost::beast::tcp_stream& { return boost::beast::get_lowest_layer(x); });
}

// A WebSocket over either stream, with the subset of websocket::stream's interface that
// WsSession uses, forwarded unchanged.
// Between the WebSocket and the connection sits a buffered_read_stream holding the bytes the
// HTTP parser read past the upgrade request (a client may send its first frame in the same TCP
// segment): the WebSocket reads them first, then reads pass straight through (capacity 0).
class WsStream {
 public:
  using executor_type = boost::asio::any_io_executor;
  template <typename Next>
  using Ws = boost::beast::websocket::stream<
      boost::beast::buffered_read_stream<Next, boost::beast::flat_buffer>>;

  explicit WsStream(HttpStream&& stream, boost::asio::const_buffer already_read = {})
      : ws_(visit_stream(stream, [](auto& s) -> Variant {
          using Next = std::decay_t<decltype(s)>;
          return Variant(std::in_place_type<Ws<Next>>, std::move(s));
        })) {
    visit_stream(ws_, [&](auto& ws) {
      auto& pending = ws.next_layer().buffer();
      pending.commit(boost::asio::buffer_copy(pending.prepare(already_read.size()), already_read));
    });
  }

  executor_type get_executor() {
    return visit_stream(ws_, [](auto& ws) -> executor_type { return ws.get_executor(); });
  }
  boost::beast::tcp_stream& tcp() {
    return visit_stream(ws_, [](auto& ws) -> boost::beast::tcp_stream& {
      return boost::beast::get_lowest_layer(ws);
    });
  }
  bool is_tls() const { return ws_.index() == 1; }

  template <typename Option>
  void set_option(Option option) {
    visit_stream(ws_, [&](auto& ws) { ws.set_option(std::move(option)); });
  }
  // Called inside a read for each ping, pong and close frame received (Beast answers pings
  // itself, within the read: the callback is the only place that sees them).
  void control_callback(
      std::function<void(boost::beast::websocket::frame_type, boost::beast::string_view)> cb) {
    visit_stream(ws_, [&](auto& ws) { ws.control_callback(cb); });
  }
  void read_message_max(std::size_t n) {
    visit_stream(ws_, [n](auto& ws) { ws.read_message_max(n); });
  }
  void auto_fragment(bool v) {
    visit_stream(ws_, [v](auto& ws) { ws.auto_fragment(v); });
  }
  void text(bool v) {
    visit_stream(ws_, [v](auto& ws) { ws.text(v); });
  }
  bool got_binary() {
    return visit_stream(ws_, [](auto& ws) { return ws.got_binary(); });
  }
  bool is_message_done() {
    return visit_stream(ws_, [](auto& ws) { return ws.is_message_done(); });
  }
  const boost::beast::websocket::close_reason& reason() {
    return visit_stream(
        ws_, [](auto& ws) -> const boost::beast::websocket::close_reason& { return ws.reason(); });
  }

  template <typename Body, typename Allocator, typename Handler>
  void async_accept(
      const boost::beast::http::request<Body, boost::beast::http::basic_fields<Allocator>>& request,
      Handler&& handler) {
    visit_stream(ws_, [&](auto& ws) { ws.async_accept(request, std::move(handler)); });
  }
  template <typename Handler>
  void async_read_some(boost::asio::mutable_buffer buffer, Handler&& handler) {
    visit_stream(ws_, [&](auto& ws) { ws.async_read_some(buffer, std::move(handler)); });
  }
  // Within a message: the bytes left in its current frame (at least initial_size if that frame
  // is not its last); at a message start: initial_size.
  std::size_t read_size_hint(std::size_t initial_size) const {
    return std::visit([&](const auto& ws) { return ws.read_size_hint(initial_size); }, ws_);
  }
  template <typename ConstBuffers, typename Handler>
  void async_write(const ConstBuffers& buffers, Handler&& handler) {
    visit_stream(ws_, [&](auto& ws) { ws.async_write(buffers, std::move(handler)); });
  }
  template <typename Handler>
  void async_close(const boost::beast::websocket::close_reason& reason, Handler&& handler) {
    visit_stream(ws_, [&](auto& ws) { ws.async_close(reason, std::move(handler)); });
  }

 private:
  using Variant = std::variant<Ws<PlainStream>, Ws<TlsStream>>;
  Variant ws_;
};

}  // namespace ocppgw::gateway
