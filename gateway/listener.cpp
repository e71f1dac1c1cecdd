// gateway/listener.cpp
#include "gateway/listener.hpp"

#include <algorithm>

#include <boost/asio/dispatch.hpp>

#include "gateway/http_session.hpp"
#include "util/logging.hpp"

namespace ocppgw::gateway {
namespace {
namespace net = boost::asio;
namespace beast = boost::beast;
using tcp = net::ip::tcp;
}  // namespace

std::shared_ptr<void> ConnectionLimiter::try_acquire(const std::string& address,
                                                     std::string* refusal) {
  {
    std::lock_guard lock(mu_);
    if (max_total_ > 0 && total_ >= max_total_) {
      *refusal = "gateway at max_connections (" + std::to_string(max_total_) + ")";
      return nullptr;
    }
    if (max_per_address_ > 0) {
      int& n = counts_[address];
      if (n >= max_per_address_) {
        *refusal = "too many connections from this address";
        return nullptr;
      }
      ++n;
    }
    ++total_;
  }
  // The slot's deleter gives the counts back; it keeps the limiter alive until then.
  return std::shared_ptr<void>(
      this, [self = shared_from_this(), address](void*) { self->release(address); });
}

int ConnectionLimiter::open() const {
  std::lock_guard lock(mu_);
  return total_;
}

void ConnectionLimiter::release(const std::string& address) {
  std::lock_guard lock(mu_);
  --total_;
  if (max_per_address_ <= 0) return;
  auto it = counts_.find(address);
  if (it != counts_.end() && --it->second <= 0) counts_.erase(it);
}

Listener::Listener(net::io_context& ioc, const tcp::endpoint& endpoint, Services& services,
                   beast::error_code& ec, std::shared_ptr<const ListenerSecurity> security)
    : ioc_(ioc),
      acceptor_(net::make_strand(ioc)),
      services_(services),
      limiter_(services.connections ? services.connections
                                    : std::make_shared<ConnectionLimiter>(
                                          services.config.limits.max_connections,
                                          services.config.limits.max_connections_per_address)),
      security_(security ? std::move(security) : std::make_shared<const ListenerSecurity>()),
      backoff_timer_(acceptor_.get_executor()) {
  acceptor_.open(endpoint.protocol(), ec);
  if (ec) return;
  acceptor_.set_option(net::socket_base::reuse_address(true), ec);
  if (ec) return;
  acceptor_.bind(endpoint, ec);
  if (ec) return;
  acceptor_.listen(net::socket_base::max_listen_connections, ec);
  if (ec) return;
  port_ = acceptor_.local_endpoint(ec).port();
}

void Listener::run() {
  net::dispatch(acceptor_.get_executor(), [self = shared_from_this()] { self->do_accept(); });
}

void Listener::stop() {
  stopped_ = true;
  net::dispatch(acceptor_.get_executor(), [self = shared_from_this()] {
    beast::error_code ignored;
    self->backoff_timer_.cancel();
    self->acceptor_.close(ignored);
  });
}

void Listener::do_accept() {
  if (stopped_) return;
  acceptor_.async_accept(net::make_strand(ioc_),
                         [self = shared_from_this()](beast::error_code ec, tcp::socket socket) {
                           self->on_accept(ec, std::move(socket));
                         });
}

bool Listener::should_log(ThrottledLog& t) {
  const auto now = std::chrono::steady_clock::now();
  if (t.last != std::chrono::steady_clock::time_point{} && now - t.last < kLogInterval) {
    ++t.suppressed;
    return false;
  }
  t.last = now;
  return true;
}

void Listener::on_accept(beast::error_code ec, tcp::socket socket) {
  if (ec == net::error::operation_aborted || stopped_) return;
  if (ec) {
    // Typically EMFILE/ENFILE: the pending connection stays in the backlog, so accepting again
    // at once fails again at once. Wait (doubling up to kMaxBackoff) for descriptors to free up.
    backoff_ = std::min(kMaxBackoff, std::max(kFirstBackoff, backoff_ * 2));
    if (should_log(accept_failed_log_)) {
      log::error("accept_failed", "",
                 {{"error", ec.message()},
                  {"retry_in_ms", std::to_string(backoff_.count())},
                  {"suppressed_since_last_line", std::to_string(accept_failed_log_.suppressed)}});
      accept_failed_log_.suppressed = 0;
    }
    backoff_timer_.expires_after(backoff_);
    backoff_timer_.async_wait([self = shared_from_this()](beast::error_code e) {
      if (!e) self->do_accept();
    });
    return;
  }
  backoff_ = std::chrono::milliseconds(0);
  socket.set_option(tcp::no_delay(true), ec);
  beast::error_code addr_ec;
  const auto address = socket.remote_endpoint(addr_ec).address().to_string();
  std::string refusal;
  if (auto slot = limiter_->try_acquire(address, &refusal)) {
    HttpStream stream = security_->tls
                            ? HttpStream(std::in_place_type<TlsStream>, std::move(socket),
                                         *security_->tls->current())
                            : HttpStream(std::in_place_type<PlainStream>, std::move(socket));
    std::make_shared<HttpSession>(std::move(stream), services_, std::move(slot), security_)->run();
  } else {
    refuse(socket, address, refusal);
  }
  do_accept();
}

void Listener::refuse(tcp::socket& socket, const std::string& address, const std::string& reason) {
  if (should_log(refused_log_)) {
    log::warn("connection_refused", "",
              {{"remote", address},
               {"reason", reason},
               {"suppressed_since_last_line", std::to_string(refused_log_.suppressed)}});
    refused_log_.suppressed = 0;
  }
  beast::error_code ignored;
  if (!security_->tls) {
    // One best-effort non-blocking write, so that a plain client learns why; a TLS client
    // could not read it before its handshake, and gets the bare close.
    const std::string body = reason + "\n";
    const std::string response =
        "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 30\r\n"
        "Content-Type: text/plain\r\nContent-Length: " +
        std::to_string(body.size()) + "\r\n\r\n" + body;
    socket.non_blocking(true, ignored);
    socket.write_some(net::buffer(response), ignored);
  }
  socket.close(ignored);
}

}  // namespace ocppgw::gateway
