// gateway/tls_stream.hpp: the two stream types a connection can have (plain TCP, or TLS over
// TCP) behind one variant, so that HttpSession, StreamingResponse and WsStream are written once.
// The choice is a std::variant rather than a template parameter of the sessions: the session
// code stays in its .cpp files and the session registry keeps one WsSession type, at the price
// of one branch on the variant's index per I/O call (nothing next to a syscall and a strand
// hop). Completion handlers are instantiated for both stream types.
// Threading: like the Beast streams they wrap (one strand at a time).
#pragma once

#include <utility>
#include <variant>

#include <boost/beast/core.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include "gateway/tls_socket.hpp"

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

}  // namespace ocppgw::gateway
