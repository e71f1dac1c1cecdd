// gateway/listener.hpp: accepts TCP connections and gives each its own strand and HttpSession.
// Enforces the connection limits (ConnectionLimiter): each connection holds a slot for its whole
// life (through the TLS, HTTP and WebSocket phases), released when the last owner drops it. A
// connection over a limit is closed at once (plain listeners first answer 503), and when
// accept() itself fails (no descriptors left: EMFILE/ENFILE) the listener backs off instead of
// spinning, logging at most one line per kLogInterval with the count of what it left out.
// One Listener serves one endpoint with one security setting (ListenerSecurity): plain ws with
// or without HTTP Basic (OCPP security profile 1), or wss with HTTP Basic (profile 2) and/or
// client certificates (profile 3); or, for web_listen, the HTTP API alone over HTTP or HTTPS.
// Threading: the acceptor runs on its own strand; stop() may be called from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/error.hpp>

#include "gateway/services.hpp"
#include "gateway/tls.hpp"

namespace ocppgw::gateway {

class BasicAuthenticator;

// What a listener demands of a connection before the WebSocket upgrade. Immutable and shared by
// the listener and its sessions.
struct ListenerSecurity {
  std::string scheme = "ws";            // "ws" or "wss", for log lines
  std::shared_ptr<TlsContextSlot> tls;  // null: plain TCP; replaced on reload (gateway/tls.hpp)
  // The context verifies client certificates; the subject CN must equal the charge point id.
  bool client_certificates = false;
  // Non-null: HTTP Basic is required. Owned by the App, which stops the I/O threads before
  // destroying it.
  BasicAuthenticator* basic_auth = nullptr;
  // What the listener serves: charge points (WebSocket upgrades), the HTTP API (every other
  // request), or both (without web_listen). The other kind of request gets a 404.
  bool serves_charge_points = true;
  bool serves_api = true;
};

// Counts live connections, in total (every listener shares one limiter, so the total stays
// below the open-file limit) and per remote address. Thread-safe.
class ConnectionLimiter : public std::enable_shared_from_this<ConnectionLimiter> {
 public:
  // 0: no limit of that kind.
  ConnectionLimiter(int max_total, int max_per_address)
      : max_total_(max_total), max_per_address_(max_per_address) {}
  // A slot to hold while connected, or nullptr with *refusal saying which limit was reached.
  std::shared_ptr<void> try_acquire(const std::string& address, std::string* refusal);
  int open() const;
  int max_total() const { return max_total_; }

 private:
  void release(const std::string& address);
  const int max_total_;
  const int max_per_address_;
  mutable std::mutex mu_;
  int total_ = 0;
  std::unordered_map<std::string, int> counts_;
};

class Listener : public std::enable_shared_from_this<Listener> {
 public:
  // Binds and listens; *ec reports a failure (address in use, ...). No `security`: plain ws
  // without authentication. Counts connections in services.connections (shared by every
  // listener), or, when that is unset, in a limiter of its own made from the config's limits.
  Listener(boost::asio::io_context& ioc, const boost::asio::ip::tcp::endpoint& endpoint,
           Services& services, boost::beast::error_code& ec,
           std::shared_ptr<const ListenerSecurity> security = nullptr);
  void run();
  void stop();
  uint16_t port() const { return port_; }

 private:
  void do_accept();
  void on_accept(boost::beast::error_code ec, boost::asio::ip::tcp::socket socket);
  void refuse(boost::asio::ip::tcp::socket& socket, const std::string& address,
              const std::string& reason);
  // Logs `event` now, or counts it when the same event was logged less than kLogInterval ago.
  struct ThrottledLog {
    std::chrono::steady_clock::time_point last{};
    uint64_t suppressed = 0;
  };
  bool should_log(ThrottledLog& t);

  static constexpr std::chrono::seconds kLogInterval{10};
  static constexpr std::chrono::milliseconds kFirstBackoff{10};
  static constexpr std::chrono::milliseconds kMaxBackoff{1000};

  boost::asio::io_context& ioc_;
  boost::asio::ip::tcp::acceptor acceptor_;
  Services& services_;
  std::shared_ptr<ConnectionLimiter> limiter_;
  std::shared_ptr<const ListenerSecurity> security_;
  boost::asio::steady_timer backoff_timer_;
  std::chrono::milliseconds backoff_{0};
  ThrottledLog accept_failed_log_;
  ThrottledLog refused_log_;
  uint16_t port_ = 0;
  std::atomic<bool> stopped_{false};
};

}  // namespace ocppgw::gateway
