// tests/unit/gateway/tls_socket_test.cpp: TlsSocket against an independent TLS peer (Asio's
// ssl::stream over OpenSSL's own BIO pair, run synchronously on a thread of its own): the
// handshake, messages smaller and far larger than a record both ways, the two ways a connection
// ends (close_notify, TCP cut) and a peer that does not speak TLS, and no buffer held while idle.
#include "gateway/tls_socket.hpp"

#include <future>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include "tests/support/certificates.hpp"

namespace ocppgw::gateway {
namespace {

namespace net = boost::asio;
using boost::system::error_code;
using net::ip::tcp;

std::string pattern(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + i % 23);
  return s;
}

// A server context with a self-signed certificate, and a client that accepts it.
struct Peers {
  net::io_context io;
  tcp::acceptor acceptor{io, {net::ip::address_v4::loopback(), 0}};
  net::ssl::context server{net::ssl::context::tls_server};
  net::ssl::context client{net::ssl::context::tls_client};

  Peers() {
    auto key = ocppgw::testing::ec_key();
    const std::string cert = ocppgw::testing::ca_pem(key.get(), "localhost");
    const std::string pem = ocppgw::testing::key_pem(key.get());
    server.use_certificate(net::buffer(cert), net::ssl::context::pem);
    server.use_private_key(net::buffer(pem), net::ssl::context::pem);
    SSL_CTX_set_mode(server.native_handle(), SSL_MODE_RELEASE_BUFFERS);  // as tls.cpp does
    // No TLS 1.3 session tickets: a client that closes with a ticket unread in its socket
    // sends a reset, not the clean TCP end a test here needs.
    SSL_CTX_set_num_tickets(server.native_handle(), 0);
    client.set_verify_mode(net::ssl::verify_none);
  }

  // Runs `client` on a thread of its own against the accepted connection, and `server` (a
  // coroutine over the TlsSocket) on the io_context, until both end.
  template <typename Client, typename Server>
  void run(Client client_side, Server server_side) {
    const auto port = acceptor.local_endpoint().port();
    auto done = std::async(std::launch::async, [&, port] {
      net::io_context client_io;
      net::ssl::stream<tcp::socket> stream(client_io, client);
      stream.next_layer().connect({net::ip::address_v4::loopback(), port});
      client_side(stream);
    });
    TlsSocket socket(acceptor.accept(), server);
    net::co_spawn(io, server_side(socket), [](std::exception_ptr e) {
      if (e) std::rethrow_exception(e);
    });
    io.run();
    done.get();
  }
};

using Client = net::ssl::stream<tcp::socket>;

TEST(TlsSocket, CarriesSmallAndLargeMessagesBothWaysAndHoldsNoBufferWhileIdle) {
  Peers peers;
  const std::string large = pattern(100'000);  // about seven records
  std::vector<size_t> idle_bytes;
  error_code end;
  peers.run(
      [&](Client& c) {
        c.handshake(net::ssl::stream_base::client);
        net::write(c, net::buffer(std::string("hello")));
        std::string reply(5, '\0');
        net::read(c, net::buffer(reply));
        EXPECT_EQ(reply, "world");
        net::write(c, net::buffer(large));
        std::string echo(large.size(), '\0');
        net::read(c, net::buffer(echo));
        EXPECT_TRUE(echo == large);
        c.shutdown();  // close_notify, and waits for the server's
      },
      [&](TlsSocket& s) -> net::awaitable<void> {
        co_await s.async_handshake(net::ssl::stream_base::server, net::use_awaitable);
        idle_bytes.push_back(s.buffered_bytes());
        std::string hello(5, '\0');
        co_await net::async_read(s, net::buffer(hello), net::use_awaitable);
        EXPECT_EQ(hello, "hello");
        co_await net::async_write(s, net::buffer(std::string("world")), net::use_awaitable);
        idle_bytes.push_back(s.buffered_bytes());
        std::string got(large.size(), '\0');
        co_await net::async_read(s, net::buffer(got), net::use_awaitable);
        EXPECT_TRUE(got == large);
        co_await net::async_write(s, net::buffer(got), net::use_awaitable);
        idle_bytes.push_back(s.buffered_bytes());
        char byte;
        const size_t n = co_await s.async_read_some(net::buffer(&byte, 1),
                                                    net::redirect_error(net::use_awaitable, end));
        EXPECT_EQ(n, 0u);
        co_await s.async_shutdown(net::use_awaitable);  // answers the client's close_notify
      });
  EXPECT_EQ(end, net::error::eof) << end.message();
  EXPECT_EQ(idle_bytes, (std::vector<size_t>{0, 0, 0}));
}

TEST(TlsSocket, ServerShutdownEndsTheClientsStream) {
  Peers peers;
  error_code client_end;
  peers.run(
      [&](Client& c) {
        c.handshake(net::ssl::stream_base::client);
        char byte;
        c.read_some(net::buffer(&byte, 1), client_end);
      },
      [&](TlsSocket& s) -> net::awaitable<void> {
        co_await s.async_handshake(net::ssl::stream_base::server, net::use_awaitable);
        co_await s.async_shutdown(net::use_awaitable);
      });
  // close_notify arrived: Asio reports the end of the stream, not a truncation.
  EXPECT_EQ(client_end, net::error::eof) << client_end.message();
}

TEST(TlsSocket, TcpCutWithoutCloseNotifyIsATruncation) {
  Peers peers;
  error_code end;
  peers.run(
      [&](Client& c) {
        c.handshake(net::ssl::stream_base::client);
        c.next_layer().close();
      },
      [&](TlsSocket& s) -> net::awaitable<void> {
        co_await s.async_handshake(net::ssl::stream_base::server, net::use_awaitable);
        char byte;
        co_await s.async_read_some(net::buffer(&byte, 1),
                                   net::redirect_error(net::use_awaitable, end));
      });
  EXPECT_EQ(end, net::ssl::error::stream_truncated) << end.message();
}

TEST(TlsSocket, APeerThatDoesNotSpeakTlsFailsTheHandshakeWithOpenSslsReason) {
  Peers peers;
  error_code handshake;
  peers.run(
      [&](Client& c) {
        net::write(c.next_layer(), net::buffer(std::string("GET / HTTP/1.1\r\n\r\n")));
        error_code ec;
        char buf[64];
        c.next_layer().read_some(net::buffer(buf), ec);  // until the server closes
      },
      [&](TlsSocket& s) -> net::awaitable<void> {
        co_await s.async_handshake(net::ssl::stream_base::server,
                                   net::redirect_error(net::use_awaitable, handshake));
        s.next_layer().close();  // as the session does when it goes away
      });
  EXPECT_EQ(handshake.category(), net::error::get_ssl_category()) << handshake.message();
  EXPECT_NE(handshake.message().find("http request"), std::string::npos) << handshake.message();
}

TEST(TlsSocket, AReadAndAWriteRunAtTheSameTime) {
  // The WebSocket session keeps a read pending while it writes; both complete.
  Peers peers;
  std::string from_client;
  peers.run(
      [&](Client& c) {
        c.handshake(net::ssl::stream_base::client);
        std::string reply(6, '\0');
        net::read(c, net::buffer(reply));
        EXPECT_EQ(reply, "server");
        net::write(c, net::buffer(std::string("client")));
      },
      [&](TlsSocket& s) -> net::awaitable<void> {
        co_await s.async_handshake(net::ssl::stream_base::server, net::use_awaitable);
        auto read = std::make_shared<std::string>(6, '\0');
        net::async_read(s, net::buffer(*read), [read, &from_client](error_code ec, size_t) {
          if (!ec) from_client = *read;
        });
        co_await net::async_write(s, net::buffer(std::string("server")), net::use_awaitable);
      });
  EXPECT_EQ(from_client, "client");
}

TEST(TlsSocket, RebindKeepsTheConnectionAndWhatItHasReceived) {
  // How a connection leaves the handshake threads (HttpSession): the same descriptor on a new
  // socket object; the record received before the move is read after it.
  Peers peers;
  std::string after;
  peers.run(
      [&](Client& c) {
        c.handshake(net::ssl::stream_base::client);
        net::write(c, net::buffer(std::string("hello")));
        net::write(c, net::buffer(std::string("again")));
        std::string reply(5, '\0');
        net::read(c, net::buffer(reply));
        EXPECT_EQ(reply, "world");
        c.shutdown();
      },
      [&](TlsSocket& s) -> net::awaitable<void> {
        co_await s.async_handshake(net::ssl::stream_base::server, net::use_awaitable);
        std::string hello(5, '\0');
        co_await net::async_read(s, net::buffer(hello), net::use_awaitable);
        EXPECT_EQ(hello, "hello");
        auto& old = s.next_layer().socket();
        const auto protocol = old.local_endpoint().protocol();
        const auto descriptor = old.release();
        tcp::socket moved(peers.io);
        moved.assign(protocol, descriptor);
        s.rebind(std::move(moved));
        EXPECT_EQ(s.next_layer().socket().native_handle(), descriptor);
        after.assign(5, '\0');
        co_await net::async_read(s, net::buffer(after), net::use_awaitable);
        co_await net::async_write(s, net::buffer(std::string("world")), net::use_awaitable);
        char byte;
        error_code end;
        co_await s.async_read_some(net::buffer(&byte, 1),
                                   net::redirect_error(net::use_awaitable, end));
        EXPECT_EQ(end, net::error::eof) << end.message();
        co_await s.async_shutdown(net::use_awaitable);
      });
  EXPECT_EQ(after, "again");
}

}  // namespace
}  // namespace ocppgw::gateway
