// gateway/tls_socket.hpp: TLS over a beast::tcp_stream that holds no buffer while the
// connection is idle.
//
// Why not asio::ssl::stream: it gives every connection two 17 KiB buffers of its own and an
// OpenSSL BIO pair with two more, for the connection's whole life: about 70 KB of an idle wss
// connection's 85 KB (BENCHMARKS.md: "a TLS stream that holds no buffer while idle"), and a charge
// point's connection is idle almost all the time. Here OpenSSL reads and writes through a BIO over
// two strings that hold bytes only while they pass (with SSL_MODE_RELEASE_BUFFERS, set on the
// context in tls.cpp, OpenSSL's own record buffers go too), and a read waits for the socket with
// a one-byte read into the object itself before it takes what the kernel holds.
//
// Every wait goes through the tcp_stream (only non-blocking recv/send bypass it), so its expiry
// (expires_after) covers handshakes, reads and writes as it did under asio::ssl::stream. Errors
// keep asio's conventions: OpenSSL errors in asio's SSL category, net::error::eof after the peer's
// close_notify, net::ssl::error::stream_truncated when TCP ends without one.
//
// Threading: one operation of each kind (handshake, read, write) at a time, all on one strand,
// as for any Asio stream. A read may run while a write is in progress; bytes OpenSSL produces
// inside a read (an alert, a KeyUpdate answer) go out with the next write, or at once when none
// is in progress.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include <openssl/ssl.h>
#include <boost/asio/compose.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/ssl/stream_base.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/tcp_stream.hpp>

namespace ocppgw::gateway {

class TlsSocket {
 public:
  struct State;  // the connection (tls_socket.cpp)

  using executor_type = boost::beast::tcp_stream::executor_type;
  using next_layer_type = boost::beast::tcp_stream;
  using native_handle_type = SSL*;

  TlsSocket(boost::asio::ip::tcp::socket socket, boost::asio::ssl::context& context);
  TlsSocket(TlsSocket&&) noexcept;
  TlsSocket& operator=(TlsSocket&&) noexcept;
  ~TlsSocket();

  executor_type get_executor();
  next_layer_type& next_layer();
  SSL* native_handle();
  // Puts `socket` (the same connection's descriptor, on another executor) under the TLS state
  // and drops the old socket object: how a connection moves from the handshake threads to the
  // I/O threads (HttpSession). Nothing may be in progress on the connection.
  void rebind(boost::asio::ip::tcp::socket socket);
  // Bytes this connection's buffers hold (received, produced, being sent): zero when idle.
  std::size_t buffered_bytes() const;
  // True when a read would find bytes without waiting for the socket: ciphertext received and
  // not yet decrypted, a peer's end seen, or plaintext OpenSSL holds from a record a read took
  // only in part.
  bool has_pending_input() const;

  template <typename Handler>
  auto async_handshake(boost::asio::ssl::stream_base::handshake_type type, Handler&& handler) {
    start_handshake(type);
    return boost::asio::async_compose<Handler, void(boost::system::error_code)>(
        HandshakeOp(state_.get()), handler, next_layer());
  }
  template <typename MutableBuffers, typename Handler>
  auto async_read_some(const MutableBuffers& buffers, Handler&& handler) {
    return boost::asio::async_compose<Handler, void(boost::system::error_code, std::size_t)>(
        ReadOp<MutableBuffers>(state_.get(), buffers), handler, next_layer());
  }
  template <typename ConstBuffers, typename Handler>
  auto async_write_some(const ConstBuffers& buffers, Handler&& handler) {
    return boost::asio::async_compose<Handler, void(boost::system::error_code, std::size_t)>(
        WriteOp<ConstBuffers>(state_.get(), buffers), handler, next_layer());
  }
  // Sends close_notify (best effort: the peer's answer is not awaited) and closes the socket.
  template <typename Handler>
  auto async_shutdown(Handler&& handler) {
    start_shutdown();
    return boost::asio::async_compose<Handler, void(boost::system::error_code)>(
        ShutdownOp(state_.get()), handler, next_layer());
  }

 private:
  // What an operation does after an SSL call.
  enum class Next { done, read, failed };

  // The steps (tls_socket.cpp). Each sets `ec` when it returns Next::failed.
  static Next step_read(State* s, boost::asio::mutable_buffer into, std::size_t& n,
                        boost::system::error_code& ec);
  static Next step_write(State* s, boost::asio::const_buffer from, std::size_t& n,
                         boost::system::error_code& ec);
  static Next step_handshake(State* s, boost::system::error_code& ec);
  void start_handshake(boost::asio::ssl::stream_base::handshake_type type);
  void start_shutdown();

  static boost::beast::tcp_stream& tcp(State* s);
  static boost::asio::mutable_buffer wait_byte(State* s);
  // After the one-byte read: keeps the byte and takes whatever else the kernel holds, without
  // blocking. Returns the read's error in the conventions above.
  static boost::system::error_code received(State* s, boost::system::error_code ec);
  // Moves OpenSSL's output to the buffer of the write about to start; false when there is none
  // or a write is already in progress.
  static bool begin_send(State* s);
  static boost::asio::const_buffer sending(State* s);
  static void end_send(State* s);
  // OpenSSL output with no write in progress: one non-blocking send now, the rest with the next
  // write.
  static void send_now(State* s);
  static void close_socket(State* s);

  // The first non-empty buffer of a sequence (an operation serves one; write_some semantics).
  template <typename Buffer, typename Buffers>
  static Buffer first_buffer(const Buffers& buffers) {
    for (auto it = boost::asio::buffer_sequence_begin(buffers);
         it != boost::asio::buffer_sequence_end(buffers); ++it) {
      const Buffer buffer(*it);
      if (buffer.size() > 0) return buffer;
    }
    return Buffer();
  }

  // Where an operation is.
  enum class Phase { start, awaiting_byte, sending, posted };

  // What every operation below shares. One that ends before it awaited anything completes
  // through a post, so that a handler never runs inside the call that started it.
  template <bool WithBytes>
  struct OpBase {
    explicit OpBase(State* state) : s(state) {}
    State* s;
    Phase phase = Phase::start;
    bool suspended = false;
    boost::system::error_code result;
    std::size_t bytes = 0;

    template <typename Self>
    static void complete(Self& self, boost::system::error_code ec, std::size_t n) {
      if constexpr (WithBytes)
        self.complete(ec, n);
      else
        self.complete(ec);
    }
    template <typename Self>
    void finish(Self& self, boost::system::error_code ec, std::size_t n) {
      if (suspended) return complete(self, ec, n);
      result = ec;
      bytes = n;
      phase = Phase::posted;
      boost::asio::post(tcp(s).get_executor(), std::move(self));
    }
    template <typename Self>
    void await_byte(Self& self) {
      phase = Phase::awaiting_byte;
      suspended = true;
      tcp(s).async_read_some(wait_byte(s), std::move(self));
    }
    template <typename Self>
    void send(Self& self) {
      phase = Phase::sending;
      suspended = true;
      boost::asio::async_write(tcp(s), sending(s), std::move(self));
    }
  };

  template <typename MutableBuffers>
  struct ReadOp : OpBase<true> {
    MutableBuffers buffers;
    ReadOp(State* state, const MutableBuffers& b) : OpBase<true>(state), buffers(b) {}

    template <typename Self>
    void operator()(Self& self, boost::system::error_code ec = {}, std::size_t = 0) {
      if (phase == Phase::posted) return self.complete(result, bytes);
      if (phase == Phase::awaiting_byte && (ec = received(s, ec))) return self.complete(ec, 0);
      std::size_t n = 0;
      switch (step_read(s, first_buffer<boost::asio::mutable_buffer>(buffers), n, ec)) {
        case Next::done:
          send_now(s);
          return finish(self, {}, n);
        case Next::failed:
          send_now(s);  // the alert that tells the peer why
          return finish(self, ec, 0);
        case Next::read:
          return await_byte(self);
      }
    }
  };

  template <typename ConstBuffers>
  struct WriteOp : OpBase<true> {
    ConstBuffers buffers;
    WriteOp(State* state, const ConstBuffers& b) : OpBase<true>(state), buffers(b) {}

    template <typename Self>
    void operator()(Self& self, boost::system::error_code ec = {}, std::size_t = 0) {
      if (phase == Phase::posted) return self.complete(result, bytes);
      if (phase == Phase::sending) {
        end_send(s);
        if (ec) return self.complete(ec, 0);
        // A read may have left OpenSSL output meanwhile: it goes out before this completes.
        if (begin_send(s)) return send(self);
        return self.complete({}, bytes);
      }
      if (step_write(s, first_buffer<boost::asio::const_buffer>(buffers), bytes, ec) ==
          Next::failed)
        return finish(self, ec, 0);
      if (begin_send(s)) return send(self);
      finish(self, {}, bytes);  // an empty buffer
    }
  };

  struct HandshakeOp : OpBase<false> {
    using OpBase::OpBase;
    bool established = false;

    template <typename Self>
    void operator()(Self& self, boost::system::error_code ec = {}, std::size_t = 0) {
      if (phase == Phase::posted) return self.complete(result);
      if (phase == Phase::sending) {
        end_send(s);
        if (ec) return self.complete(ec);
        if (established) return self.complete({});
      } else if (phase == Phase::awaiting_byte && (ec = received(s, ec))) {
        return self.complete(ec);
      }
      const Next next = step_handshake(s, ec);
      if (next == Next::failed) {
        send_now(s);  // the alert that tells the peer why
        return finish(self, ec, 0);
      }
      established = next == Next::done;
      // The peer gets our flight before we wait for its next one.
      if (begin_send(s)) return send(self);
      if (established) return finish(self, {}, 0);
      await_byte(self);
    }
  };

  struct ShutdownOp : OpBase<false> {
    using OpBase::OpBase;
    template <typename Self>
    void operator()(Self& self, boost::system::error_code = {}, std::size_t = 0) {
      if (phase == Phase::posted) return self.complete(result);
      if (phase == Phase::sending) {
        end_send(s);
        close_socket(s);
        return self.complete({});
      }
      if (begin_send(s)) return send(self);
      close_socket(s);
      finish(self, {}, 0);
    }
  };

  std::unique_ptr<State> state_;
};

}  // namespace ocppgw::gateway
