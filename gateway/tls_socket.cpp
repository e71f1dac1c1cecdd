// gateway/tls_socket.cpp: OpenSSL's side of TlsSocket: the BIO over the connection's two
// strings, and the steps its operations take.
#include "gateway/tls_socket.hpp"

#include <algorithm>
#include <optional>

#include <sys/socket.h>

#include <openssl/bio.h>
#include <openssl/err.h>

namespace ocppgw::gateway {

namespace net = boost::asio;
using boost::system::error_code;

namespace {
struct SslFree {
  void operator()(SSL* ssl) const { SSL_free(ssl); }
};
// One TLS record carries at most 16 KiB of plaintext; larger writes go out record by record
// (write_some semantics), so the output buffer stays near one record.
constexpr size_t kMaxRecordPlaintext = 16 * 1024;
}  // namespace

// TlsSocket::rebind() carries every member but `tcp` over to a new State: a member added here
// goes there too.
struct TlsSocket::State {
  explicit State(net::ip::tcp::socket socket) : tcp(std::move(socket)) {}

  boost::beast::tcp_stream tcp;
  std::unique_ptr<SSL, SslFree> ssl;
  std::string inbox;  // ciphertext received, from inbox_read on not yet read by OpenSSL
  size_t inbox_read = 0;
  std::string outbox;     // ciphertext OpenSSL wrote, not yet given to a write
  std::string in_flight;  // ciphertext an async write is sending
  bool writing = false;
  bool peer_closed = false;  // TCP end of stream
  unsigned char byte = 0;    // the one-byte read that waits for the socket

  // Releases a string's memory once it holds nothing: an idle connection keeps no buffer.
  static void release(std::string& s) { std::string().swap(s); }
};

namespace {

TlsSocket::State* state_of(BIO* bio) { return static_cast<TlsSocket::State*>(BIO_get_data(bio)); }

int bio_read(BIO* bio, char* out, size_t size, size_t* n) {
  BIO_clear_retry_flags(bio);
  auto* s = state_of(bio);
  const size_t available = s->inbox.size() - s->inbox_read;
  if (available == 0) {
    BIO_set_retry_read(bio);  // OpenSSL answers SSL_ERROR_WANT_READ: the operation waits
    return 0;
  }
  *n = std::min(size, available);
  std::copy_n(s->inbox.data() + s->inbox_read, *n, out);
  s->inbox_read += *n;
  if (s->inbox_read == s->inbox.size()) {
    TlsSocket::State::release(s->inbox);
    s->inbox_read = 0;
  }
  return 1;
}

int bio_write(BIO* bio, const char* data, size_t size, size_t* n) {
  BIO_clear_retry_flags(bio);
  state_of(bio)->outbox.append(data, size);
  *n = size;
  return 1;
}

long bio_ctrl(BIO* bio, int cmd, long, void*) {
  switch (cmd) {
    case BIO_CTRL_FLUSH:
      return 1;
    case BIO_CTRL_PENDING: {
      auto* s = state_of(bio);
      return static_cast<long>(s->inbox.size() - s->inbox_read);
    }
    default:
      return 0;
  }
}

int bio_create(BIO* bio) {
  BIO_set_init(bio, 1);
  return 1;
}

// Built once; lives as long as the process.
BIO_METHOD* bio_method() {
  static BIO_METHOD* method = [] {
    BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "ocppgw tls socket");
    BIO_meth_set_read_ex(m, bio_read);
    BIO_meth_set_write_ex(m, bio_write);
    BIO_meth_set_ctrl(m, bio_ctrl);
    BIO_meth_set_create(m, bio_create);
    return m;
  }();
  return method;
}

// The error of an SSL call that returned `ret` <= 0, or nothing when it waits for input.
std::optional<error_code> failure(SSL* ssl, int ret) {
  const int code = SSL_get_error(ssl, ret);
  if (code == SSL_ERROR_WANT_READ) return std::nullopt;
  if (code == SSL_ERROR_ZERO_RETURN) return error_code(net::error::eof);  // close_notify
  const unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e != 0) return error_code(static_cast<int>(e), net::error::get_ssl_category());
  return error_code(net::ssl::error::stream_truncated);
}

}  // namespace

TlsSocket::TlsSocket(net::ip::tcp::socket socket, net::ssl::context& context)
    : state_(std::make_unique<State>(std::move(socket))) {
  state_->ssl.reset(SSL_new(context.native_handle()));
  if (!state_->ssl)
    throw boost::system::system_error(
        error_code(static_cast<int>(ERR_get_error()), net::error::get_ssl_category()), "SSL_new");
  BIO* bio = BIO_new(bio_method());
  BIO_set_data(bio, state_.get());
  SSL_set_bio(state_->ssl.get(), bio, bio);  // one BIO both ways: the SSL owns one reference
}

void TlsSocket::rebind(net::ip::tcp::socket socket) {
  // A tcp_stream cannot be assigned: a new State takes the socket and everything else, and the
  // BIO is pointed at it.
  auto next = std::make_unique<State>(std::move(socket));
  next->ssl = std::move(state_->ssl);
  next->inbox = std::move(state_->inbox);
  next->inbox_read = state_->inbox_read;
  next->outbox = std::move(state_->outbox);
  next->in_flight = std::move(state_->in_flight);
  next->writing = state_->writing;
  next->peer_closed = state_->peer_closed;
  next->byte = state_->byte;
  BIO_set_data(SSL_get_rbio(next->ssl.get()), next.get());
  state_ = std::move(next);
}

TlsSocket::TlsSocket(TlsSocket&&) noexcept = default;
TlsSocket& TlsSocket::operator=(TlsSocket&&) noexcept = default;
TlsSocket::~TlsSocket() = default;

TlsSocket::executor_type TlsSocket::get_executor() { return state_->tcp.get_executor(); }
TlsSocket::next_layer_type& TlsSocket::next_layer() { return state_->tcp; }
SSL* TlsSocket::native_handle() { return state_->ssl.get(); }

bool TlsSocket::has_pending_input() const {
  return state_->inbox.size() > state_->inbox_read || state_->peer_closed ||
         SSL_has_pending(state_->ssl.get()) == 1;
}

size_t TlsSocket::buffered_bytes() const {
  // Heap bytes only: an empty string's inline capacity costs nothing beyond the State itself.
  static const size_t inline_capacity = std::string().capacity();
  size_t total = 0;
  for (const std::string* s : {&state_->inbox, &state_->outbox, &state_->in_flight})
    if (s->capacity() > inline_capacity) total += s->capacity();
  return total;
}

void TlsSocket::start_handshake(net::ssl::stream_base::handshake_type type) {
  if (type == net::ssl::stream_base::server)
    SSL_set_accept_state(state_->ssl.get());
  else
    SSL_set_connect_state(state_->ssl.get());
}

void TlsSocket::start_shutdown() {
  ERR_clear_error();
  SSL_shutdown(state_->ssl.get());  // writes close_notify to the outbox
  ERR_clear_error();
}

TlsSocket::Next TlsSocket::step_read(State* s, net::mutable_buffer into, size_t& n,
                                     error_code& ec) {
  n = 0;
  if (into.size() == 0) return Next::done;
  ERR_clear_error();
  if (SSL_read_ex(s->ssl.get(), into.data(), into.size(), &n) == 1) return Next::done;
  auto error = failure(s->ssl.get(), 0);
  if (!error && !s->peer_closed) return Next::read;
  // TCP ended: after the peer's close_notify that is the end of the stream, else a truncation.
  if (error)
    ec = *error;
  else if (SSL_get_shutdown(s->ssl.get()) & SSL_RECEIVED_SHUTDOWN)
    ec = net::error::eof;
  else
    ec = net::ssl::error::stream_truncated;
  return Next::failed;
}

TlsSocket::Next TlsSocket::step_write(State* s, net::const_buffer from, size_t& n, error_code& ec) {
  n = 0;
  if (from.size() == 0) return Next::done;
  ERR_clear_error();
  // The BIO takes every byte, so SSL_write never waits; it fails only on a broken connection.
  if (SSL_write_ex(s->ssl.get(), from.data(), std::min(from.size(), kMaxRecordPlaintext), &n) == 1)
    return Next::done;
  auto error = failure(s->ssl.get(), 0);
  ec = error ? *error : error_code(net::ssl::error::stream_truncated);
  return Next::failed;
}

TlsSocket::Next TlsSocket::step_handshake(State* s, error_code& ec) {
  ERR_clear_error();
  const int ret = SSL_do_handshake(s->ssl.get());
  if (ret == 1) return Next::done;
  auto error = failure(s->ssl.get(), ret);
  if (!error && !s->peer_closed) return Next::read;
  ec = error ? *error : error_code(net::ssl::error::stream_truncated);
  return Next::failed;
}

boost::beast::tcp_stream& TlsSocket::tcp(State* s) { return s->tcp; }

net::mutable_buffer TlsSocket::wait_byte(State* s) { return net::buffer(&s->byte, 1); }

error_code TlsSocket::received(State* s, error_code ec) {
  if (ec == net::error::eof) {
    // Let OpenSSL see what it has first: the step decides between end and truncation.
    s->peer_closed = true;
    return {};
  }
  if (ec) return ec;
  s->inbox.push_back(static_cast<char>(s->byte));
  // The byte said the socket is readable: take what the kernel holds now, up to a full record,
  // so one wake-up serves a whole record in the common case.
  char chunk[kMaxRecordPlaintext + 512];
  const ssize_t got = ::recv(s->tcp.socket().native_handle(), chunk, sizeof chunk, MSG_DONTWAIT);
  if (got > 0) s->inbox.append(chunk, static_cast<size_t>(got));
  return {};
}

bool TlsSocket::begin_send(State* s) {
  // A shutdown while a write is in progress leaves close_notify behind: the closed socket ends
  // that write anyway, and its buffer must not change under it.
  if (s->writing || s->outbox.empty()) return false;
  s->writing = true;
  s->in_flight.swap(s->outbox);
  return true;
}

net::const_buffer TlsSocket::sending(State* s) { return net::buffer(s->in_flight); }

void TlsSocket::end_send(State* s) {
  s->writing = false;
  State::release(s->in_flight);
}

void TlsSocket::send_now(State* s) {
  if (s->writing || s->outbox.empty()) return;
  const ssize_t sent = ::send(s->tcp.socket().native_handle(), s->outbox.data(), s->outbox.size(),
                              MSG_DONTWAIT | MSG_NOSIGNAL);
  if (sent > 0) s->outbox.erase(0, static_cast<size_t>(sent));
  if (s->outbox.empty()) State::release(s->outbox);
}

void TlsSocket::close_socket(State* s) {
  error_code ignored;
  s->tcp.socket().shutdown(net::ip::tcp::socket::shutdown_both, ignored);
  s->tcp.socket().close(ignored);
}

}  // namespace ocppgw::gateway
