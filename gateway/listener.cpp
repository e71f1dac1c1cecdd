// gateway/listener.cpp
#include "gateway/listener.hpp"

#include <boost/asio/dispatch.hpp>

#include "gateway/http_session.hpp"
#include "util/logging.hpp"

namespace ocppgw::gateway {
namespace {
namespace net = boost::asio;
namespace beast = boost::beast;
using tcp = net::ip::tcp;
}  // namespace

std::shared_ptr<void> AddressLimiter::try_acquire(const std::string& address) {
  if (max_ <= 0) return std::make_shared<int>(0);
  {
    std::lock_guard lock(mu_);
    int& n = counts_[address];
    if (n >= max_) return nullptr;
    ++n;
  }
  // The slot's deleter gives the count back; it keeps the limiter alive until then.
  return std::shared_ptr<void>(
      this, [self = shared_from_this(), address](void*) { self->release(address); });
}

void AddressLimiter::release(const std::string& address) {
  std::lock_guard lock(mu_);
  auto it = counts_.find(address);
  if (it != counts_.end() && --it->second <= 0) counts_.erase(it);
}

Listener::Listener(net::io_context& ioc, const tcp::endpoint& endpoint, Services& services,
                   beast::error_code& ec, std::shared_ptr<const ListenerSecurity> security)
    : ioc_(ioc),
      acceptor_(net::make_strand(ioc)),
      services_(services),
      limiter_(
          std::make_shared<AddressLimiter>(services.config.limits.max_connections_per_address)),
      security_(security ? std::move(security) : std::make_shared<const ListenerSecurity>()) {
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

void Listener::on_accept(beast::error_code ec, tcp::socket socket) {
  if (ec == net::error::operation_aborted || stopped_) return;
  if (ec) {
    // Typically EMFILE: log and keep accepting; the next accept may succeed once fds free up.
    log::error("accept_failed", "", {{"error", ec.message()}});
  } else {
    socket.set_option(tcp::no_delay(true), ec);
    beast::error_code addr_ec;
    const auto address = socket.remote_endpoint(addr_ec).address().to_string();
    if (auto slot = limiter_->try_acquire(address)) {
      HttpStream stream =
          security_->tls
              ? HttpStream(std::in_place_type<TlsStream>, std::move(socket), *security_->tls)
              : HttpStream(std::in_place_type<PlainStream>, std::move(socket));
      std::make_shared<HttpSession>(std::move(stream), services_, std::move(slot), security_)
          ->run();
    } else {
      log::warn("connection_refused", "",
                {{"remote", address}, {"reason", "too many connections from this address"}});
      socket.close(addr_ec);
    }
  }
  do_accept();
}

}  // namespace ocppgw::gateway
