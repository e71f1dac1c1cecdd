// sim/transport.hpp: one client WebSocket connection of a simulated charge point, plain (ws://)
// or TLS (wss://), with HTTP Basic auth, subprotocol negotiation and an optional local source
// address. It owns the socket and a write queue; it knows nothing about OCPP.
// Threading: every member runs on the io_context thread of the owning shard. Handlers keep the
// transport alive through shared_from_this; the owner calls detach() before dropping it, after
// which no callback reaches the owner.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/system/error_code.hpp>

namespace ocppgw::sim {

class TransportOwner {
 public:
  virtual void on_open() = 0;
  virtual void on_frame(std::string_view text) = 0;
  // Called once per transport, when it stops for any reason; was_open says whether the
  // WebSocket handshake had completed.
  virtual void on_closed(const boost::system::error_code& ec, bool was_open) = 0;

 protected:
  ~TransportOwner() = default;
};

// A parsed gateway URL plus the resolved address (loopback benchmarks resolve once).
struct Target {
  bool tls = false;
  std::string host;
  std::string port;
  std::string path_prefix;  // e.g. "/ocpp"; "/{cp id}" is appended
  boost::asio::ip::tcp::endpoint endpoint;
};

// Parses ws[s]://host:port/prefix and resolves the host; nullopt with *error on failure.
std::optional<Target> resolve_target(const std::string& url, std::string* error);

struct ConnectParams {
  const Target* target = nullptr;
  std::string cp_id;
  std::string subprotocol;    // "ocpp1.6" or "ocpp2.0.1"
  std::string authorization;  // full header value or empty
  std::optional<boost::asio::ip::address> source;
};

class Transport : public std::enable_shared_from_this<Transport> {
 public:
  virtual ~Transport() = default;
  virtual void start() = 0;
  virtual void send(std::string text) = 0;
  virtual void close_clean() = 0;   // WebSocket close handshake
  virtual void close_abrupt() = 0;  // drop the TCP connection, no close frame
  void detach() { owner_ = nullptr; }

 protected:
  explicit Transport(TransportOwner* owner) : owner_(owner) {}
  TransportOwner* owner_;
};

// ssl_ctx is required for wss:// targets and ignored otherwise.
std::shared_ptr<Transport> make_transport(boost::asio::io_context& ioc,
                                          boost::asio::ssl::context* ssl_ctx, ConnectParams params,
                                          TransportOwner* owner);

}  // namespace ocppgw::sim
