// tests/unit/gateway/http_stream_test.cpp: a streaming response over a real connection
// (HttpSession handing the connection to StreamingResponse). The head has no Content-Length and
// is chunked on HTTP/1.1; what is written before and after the head arrives in order; the
// request timeout does not cut a stream; the client closing ends it (on_closed); a client that
// does not read is dropped once the queue bound is reached, instead of growing memory; close()
// from the server ends the connection.
#include <atomic>
#include <cerrno>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <sys/socket.h>

#include <gtest/gtest.h>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include "tests/unit/gateway/gateway_fixture.hpp"

namespace ocppgw::gateway {
namespace {

using namespace std::chrono_literals;
namespace net = boost::asio;
namespace http = boost::beast::http;

// Opens a stream on GET /stream and keeps it for the test to write to.
struct StreamRoute {
  std::mutex mu;
  std::shared_ptr<web::ResponseStream> stream;
  std::atomic<int> closed{0};

  explicit StreamRoute(web::Router& router) {
    router.add_stream(http::verb::get, "/stream",
                      [this](web::HttpRequest&& request, const web::PathParams&, web::HttpRespond,
                             const web::StreamOpener& open) {
                        auto head =
                            web::make_response(request, http::status::ok, "", "text/event-stream");
                        auto s = open(std::move(head), [this] { ++closed; });
                        s->write(std::make_shared<const std::string>("first\n"));
                        std::lock_guard lock(mu);
                        stream = std::move(s);
                      });
  }
  std::shared_ptr<web::ResponseStream> get() {
    for (int i = 0; i < 200; ++i) {
      {
        std::lock_guard lock(mu);
        if (stream) return stream;
      }
      std::this_thread::sleep_for(10ms);
    }
    return nullptr;
  }
  bool wait_closed() {
    for (int i = 0; i < 500 && closed == 0; ++i) std::this_thread::sleep_for(10ms);
    return closed == 1;
  }
};

// A blocking client reading the raw bytes of the answer.
class Client {
 public:
  Client(uint16_t port, const std::string& version = "1.1", int receive_buffer = 0)
      : socket_(ioc_) {
    socket_.open(net::ip::tcp::v4());
    if (receive_buffer > 0)
      socket_.set_option(net::socket_base::receive_buffer_size(receive_buffer));
    socket_.connect({net::ip::make_address("127.0.0.1"), port});
    net::write(socket_, net::buffer("GET /stream HTTP/" + version + "\r\nHost: x\r\n\r\n"));
  }
  // Reads until `text` has arrived (or the connection ends); everything read so far.
  const std::string& read_until(const std::string& text) {
    char buf[4096];
    while (received_.find(text) == std::string::npos) {
      boost::system::error_code ec;
      const size_t n = socket_.read_some(net::buffer(buf), ec);
      if (ec) break;
      received_.append(buf, n);
    }
    return received_;
  }
  // True when the server closed the connection (EOF or reset) within 5 s of silence. Plain
  // recv() with SO_RCVTIMEO: Asio's blocking read would wait past the timeout.
  bool closed_by_server() {
    const int fd = socket_.native_handle();
    timeval tv{5, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char buf[65536];
    while (true) {
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n == 0 || (n < 0 && errno == ECONNRESET)) return true;
      if (n < 0) return false;  // timeout
    }
  }
  void close() { socket_.close(); }

 private:
  net::io_context ioc_;
  net::ip::tcp::socket socket_;
  std::string received_;
};

TEST(HttpStream, HeadIsChunkedWithoutLengthAndWritesArriveInOrder) {
  testing::Gateway gw;
  StreamRoute route(gw.router());
  Client client(gw.port());
  auto stream = route.get();
  ASSERT_TRUE(stream);
  client.read_until("first\n");
  ASSERT_TRUE(stream->write(std::make_shared<const std::string>("second\n")));
  const std::string& text = client.read_until("second\n");
  EXPECT_EQ(text.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << text;
  const auto head_end = text.find("\r\n\r\n");
  const std::string head = text.substr(0, head_end);
  EXPECT_NE(head.find("Transfer-Encoding: chunked"), std::string::npos) << head;
  EXPECT_EQ(head.find("Content-Length"), std::string::npos) << head;
  EXPECT_NE(head.find("Content-Type: text/event-stream"), std::string::npos) << head;
  const std::string body = text.substr(head_end + 4);
  EXPECT_LT(body.find("first\n"), body.find("second\n")) << body;
  EXPECT_EQ(body.rfind("6\r\nfirst\n\r\n", 0), 0u) << "one chunk per write batch: " << body;
}

TEST(HttpStream, Http10GetsTheBytesDelimitedByTheConnection) {
  testing::Gateway gw;
  StreamRoute route(gw.router());
  Client client(gw.port(), "1.0");
  ASSERT_TRUE(route.get());
  const std::string& text = client.read_until("first\n");
  EXPECT_EQ(text.find("chunked"), std::string::npos) << text;
  EXPECT_NE(text.find("\r\n\r\nfirst\n"), std::string::npos) << text;
}

TEST(HttpStream, TheRequestTimeoutDoesNotCutAStream) {
  auto config = testing::test_config();
  config.limits.handshake_timeout_s = 1;  // the request timeout of the shared listener
  testing::Gateway gw(config);
  StreamRoute route(gw.router());
  Client client(gw.port());
  auto stream = route.get();
  ASSERT_TRUE(stream);
  client.read_until("first\n");
  std::this_thread::sleep_for(2500ms);
  ASSERT_TRUE(stream->write(std::make_shared<const std::string>("later\n")));
  EXPECT_NE(client.read_until("later\n").find("later\n"), std::string::npos);
  EXPECT_EQ(route.closed, 0);
}

TEST(HttpStream, TheClientClosingEndsTheStream) {
  testing::Gateway gw;
  StreamRoute route(gw.router());
  Client client(gw.port());
  auto stream = route.get();
  ASSERT_TRUE(stream);
  client.read_until("first\n");
  client.close();
  EXPECT_TRUE(route.wait_closed());
  EXPECT_FALSE(stream->write(std::make_shared<const std::string>("gone\n")));
}

TEST(HttpStream, AClientThatDoesNotReadIsDroppedAtTheQueueBound) {
  testing::Gateway gw;
  StreamRoute route(gw.router());
  Client client(gw.port(), "1.1", 4096);  // reads nothing from here on
  auto stream = route.get();
  ASSERT_TRUE(stream);
  const auto chunk = std::make_shared<const std::string>(64 * 1024, 'x');
  size_t accepted = 0;
  // Socket buffers take a few MiB at most; past them the 256 KiB queue fills and write() says no.
  while (accepted < 64 * 1024 * 1024 && stream->write(chunk)) {
    accepted += chunk->size();
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_LT(accepted, 64u * 1024 * 1024) << "the queue never filled";
  EXPECT_TRUE(route.wait_closed());
  EXPECT_TRUE(client.closed_by_server());
}

TEST(HttpStream, CloseFromTheServerEndsTheConnection) {
  testing::Gateway gw;
  StreamRoute route(gw.router());
  Client client(gw.port());
  auto stream = route.get();
  ASSERT_TRUE(stream);
  client.read_until("first\n");
  stream->close();
  EXPECT_TRUE(route.wait_closed());
  EXPECT_TRUE(client.closed_by_server());
}

}  // namespace
}  // namespace ocppgw::gateway
