// gateway/listener.hpp: accepts TCP connections and gives each its own strand and HttpSession.
// Enforces the per-remote-address connection limit: each connection holds a slot for its whole
// life (through the TLS, HTTP and WebSocket phases), released when the last owner drops it.
// One Listener serves one endpoint with one security setting (ListenerSecurity): plain ws with
// or without HTTP Basic (OCPP security profile 1), or wss with HTTP Basic (profile 2) and/or
// client certificates (profile 3).
// Threading: the acceptor runs on its own strand; stop() may be called from any thread.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/error.hpp>

#include "gateway/services.hpp"

namespace ocppgw::gateway {

class BasicAuthenticator;

// What a listener demands of a connection before the WebSocket upgrade. Immutable and shared by
// the listener and its sessions.
struct ListenerSecurity {
  std::string scheme = "ws";                       // "ws" or "wss", for log lines
  std::shared_ptr<boost::asio::ssl::context> tls;  // null: plain TCP
  // The context verifies client certificates; the subject CN must equal the charge point id.
  bool client_certificates = false;
  // Non-null: HTTP Basic is required. Owned by the App, which stops the I/O threads before
  // destroying it.
  BasicAuthenticator* basic_auth = nullptr;
};

// Counts live connections per remote address. Thread-safe.
class AddressLimiter : public std::enable_shared_from_this<AddressLimiter> {
 public:
  explicit AddressLimiter(int max_per_address) : max_(max_per_address) {}
  // A slot to hold while connected, or nullptr when the address is at its limit.
  std::shared_ptr<void> try_acquire(const std::string& address);

 private:
  void release(const std::string& address);
  const int max_;
  std::mutex mu_;
  std::unordered_map<std::string, int> counts_;
};

class Listener : public std::enable_shared_from_this<Listener> {
 public:
  // Binds and listens; *ec reports a failure (address in use, ...). No `security`: plain ws
  // without authentication.
  Listener(boost::asio::io_context& ioc, const boost::asio::ip::tcp::endpoint& endpoint,
           Services& services, boost::beast::error_code& ec,
           std::shared_ptr<const ListenerSecurity> security = nullptr);
  void run();
  void stop();
  uint16_t port() const { return port_; }

 private:
  void do_accept();
  void on_accept(boost::beast::error_code ec, boost::asio::ip::tcp::socket socket);

  boost::asio::io_context& ioc_;
  boost::asio::ip::tcp::acceptor acceptor_;
  Services& services_;
  std::shared_ptr<AddressLimiter> limiter_;
  std::shared_ptr<const ListenerSecurity> security_;
  uint16_t port_ = 0;
  std::atomic<bool> stopped_{false};
};

}  // namespace ocppgw::gateway
