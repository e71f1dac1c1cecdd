// tests/unit/gateway/gateway_fixture.hpp: a real Listener on a loopback port with an in-memory
// EventSink (commits on demand, or fails) and FakeCsmsState, plus a small synchronous Beast
// WebSocket client. Sessions run exactly as in the binary; only storage is replaced.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>

#include "csms/sqlite_csms_state.hpp"
#include "gateway/disk_guard.hpp"
#include "gateway/http_session.hpp"
#include "gateway/listener.hpp"
#include "gateway/services.hpp"
#include "gateway/session_registry.hpp"
#include "gateway/ws_session.hpp"
#include "ocpp16/protocol.hpp"
#include "ocpp201/protocol.hpp"
#include "tests/support/fake_csms_state.hpp"

namespace ocppgw::gateway::testing {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;

// Keeps every entry. auto_commit: completes at once; otherwise commit_next()/commit_all() decide
// when (and in what order). fail: completes with committed=false and turns unhealthy.
class MemorySink : public csms::EventSink {
 public:
  bool auto_commit = true;
  bool fail = false;

  void submit(csms::SinkEntry entry) override {
    std::unique_lock lock(mu_);
    entries_.push_back(Stored{entry.charge_point_id, entry.raw_frame, entry.events, false});
    if (fail) healthy_ = false;
    if (auto_commit || fail) {
      entries_.back().committed = !fail;
      lock.unlock();
      entry.on_durable(!fail);
    } else {
      waiting_.push_back({entries_.size() - 1, std::move(entry.on_durable)});
    }
    cv_.notify_all();
  }
  bool healthy() const override {
    std::lock_guard lock(mu_);
    return healthy_;
  }
  csms::SinkStats stats() const override { return {}; }
  void add_commit_listener(csms::EventSink::CommitListener) override {}
  void stop() override {}

  struct Stored {
    std::string charge_point_id;
    std::string raw;
    std::vector<analytics::Event> events;
    bool committed = false;
  };
  std::vector<Stored> entries() const {
    std::lock_guard lock(mu_);
    return entries_;
  }
  // Waits until `n` entries await a commit (manual mode).
  bool wait_waiting(size_t n) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(5), [&] { return waiting_.size() >= n; });
  }
  bool wait_entries(size_t n) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(5), [&] { return entries_.size() >= n; });
  }
  // Completes the waiting entry at position `i` (0 = oldest still waiting).
  void commit_waiting(size_t i) {
    std::function<void(bool)> done;
    {
      std::lock_guard lock(mu_);
      entries_[waiting_[i].first].committed = true;
      done = std::move(waiting_[i].second);
      waiting_.erase(waiting_.begin() + static_cast<std::ptrdiff_t>(i));
    }
    done(true);
  }
  std::vector<analytics::Event> events_of_type(analytics::EventType t) const {
    std::vector<analytics::Event> out;
    for (const auto& e : entries())
      for (const auto& ev : e.events)
        if (ev.event_type == t) out.push_back(ev);
    return out;
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Stored> entries_;
  std::deque<std::pair<size_t, std::function<void(bool)>>> waiting_;
  bool healthy_ = true;
};

inline Config test_config() {
  Config c;
  c.listen_address = "127.0.0.1";
  c.port = 0;
  c.threads = 2;
  c.limits.max_frame_bytes = 4096;
  c.limits.max_messages_per_s = 0;
  return c;
}

class Gateway {
 public:
  explicit Gateway(Config config = test_config(), bool with_201 = true,
                   std::shared_ptr<const ListenerSecurity> security = nullptr)
      : config_(std::move(config)),
        services_{config_,
                  policy_,
                  state_,
                  sink,
                  registry,
                  with_201
                      ? std::vector<const rpc::Protocol*>{&ocpp16::protocol(), &ocpp201::protocol()}
                      : std::vector<const rpc::Protocol*>{&ocpp16::protocol()},
                  router_.handler(),
                  {},
                  nullptr,
                  nullptr} {
    add_health_sections(health_, services_);
    health_.add_routes(router_);
    // As in the binary (gateway/app): the listener and the handshakes on a context of their own,
    // the upgraded sessions on the I/O context.
    services_.sessions = &ioc_;
    beast::error_code ec;
    listener_ = std::make_shared<Listener>(
        handshake_ioc_, net::ip::tcp::endpoint(net::ip::make_address("127.0.0.1"), 0), services_,
        ec, std::move(security));
    EXPECT_FALSE(ec) << ec.message();
    listener_->run();
    for (int i = 0; i < 2; ++i) threads_.emplace_back([this] { ioc_.run(); });
    handshake_thread_ = std::thread([this] { handshake_ioc_.run(); });
  }
  ~Gateway() {
    listener_->stop();
    for (const auto& s : registry.sessions())
      s->close_async(websocket::close_code::going_away, "test over");
    for (int i = 0; i < 100 && registry.size() > 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    handshake_work_.reset();
    handshake_ioc_.stop();
    handshake_thread_.join();
    work_.reset();
    ioc_.stop();
    for (auto& t : threads_) t.join();
  }
  uint16_t port() const { return listener_->port(); }
  // Occupies the listener's context (its one thread) for `duration`; the flag turns true when
  // it is free again.
  std::shared_ptr<std::atomic<bool>> block_handshakes(std::chrono::milliseconds duration) {
    auto over = std::make_shared<std::atomic<bool>>(false);
    std::promise<void> started;
    auto blocking = started.get_future();
    net::post(handshake_ioc_, [over, duration, &started] {
      started.set_value();
      std::this_thread::sleep_for(duration);
      *over = true;
    });
    blocking.wait();
    return over;
  }
  // Before the first connection.
  void set_disk_guard(DiskGuard* disk) { services_.disk = disk; }
  // Before the first request: routes beside /health (e.g. a streaming one).
  web::Router& router() { return router_; }
  ocppgw::testing::FakeCsmsState& state() { return state_; }

  MemorySink sink;
  SessionRegistry registry;

 private:
  Config config_;
  rpc::Policy policy_;
  ocppgw::testing::FakeCsmsState state_;
  net::io_context ioc_{2};
  std::optional<net::executor_work_guard<net::io_context::executor_type>> work_{
      ioc_.get_executor()};
  net::io_context handshake_ioc_{1};
  std::optional<net::executor_work_guard<net::io_context::executor_type>> handshake_work_{
      handshake_ioc_.get_executor()};
  web::Health health_;
  web::Router router_;
  Services services_;
  std::shared_ptr<Listener> listener_;
  std::vector<std::thread> threads_;
  std::thread handshake_thread_;
};

// A synchronous client: connect, send, receive, and the close code the server sent.
class Client {
 public:
  // receive_buffer_bytes > 0: a small socket receive buffer, for a peer that reads slowly.
  Client(uint16_t port, const std::string& target, const std::string& subprotocols,
         const std::string& authorization = {}, int receive_buffer_bytes = 0)
      : ws_(ioc_) {
    if (receive_buffer_bytes > 0) {
      auto& socket = beast::get_lowest_layer(ws_).socket();
      socket.open(net::ip::tcp::v4());
      socket.set_option(net::socket_base::receive_buffer_size(receive_buffer_bytes));
    }
    beast::get_lowest_layer(ws_).connect(
        net::ip::tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
    ws_.set_option(websocket::stream_base::decorator(
        [subprotocols, authorization](websocket::request_type& req) {
          if (!subprotocols.empty())
            req.set(beast::http::field::sec_websocket_protocol, subprotocols);
          if (!authorization.empty()) req.set(beast::http::field::authorization, authorization);
        }));
    websocket::response_type res;
    beast::error_code ec;
    ws_.handshake(res, "127.0.0.1", target, ec);
    if (ec) ADD_FAILURE() << "handshake failed: " << ec.message();
    subprotocol = std::string(res[beast::http::field::sec_websocket_protocol]);
    beast::get_lowest_layer(ws_).expires_after(std::chrono::seconds(5));
  }
  void send(const std::string& text) {
    ws_.text(true);
    ws_.write(net::buffer(text));
  }
  // One text message sent as one WebSocket frame per part (continuation frames after the first).
  void send_fragments(const std::vector<std::string>& parts) {
    ws_.text(true);
    for (size_t i = 0; i < parts.size(); ++i)
      ws_.write_some(i + 1 == parts.size(), net::buffer(parts[i]));
  }
  void send_binary(const std::string& bytes) {
    ws_.binary(true);
    ws_.write(net::buffer(bytes));
  }
  // The next text frame, or nullopt when the connection closed (close_code is then set).
  std::optional<std::string> receive() {
    beast::flat_buffer buffer;
    beast::error_code ec;
    beast::get_lowest_layer(ws_).expires_after(std::chrono::seconds(5));
    ws_.read(buffer, ec);
    if (ec) {
      if (ec == websocket::error::closed) close_code = ws_.reason().code;
      return std::nullopt;
    }
    return beast::buffers_to_string(buffer.data());
  }
  nlohmann::json receive_json() {
    auto text = receive();
    EXPECT_TRUE(text) << "connection closed";
    return text ? nlohmann::json::parse(*text) : nlohmann::json();
  }
  void close() {
    beast::error_code ec;
    ws_.close(websocket::close_code::normal, ec);
  }

  std::string subprotocol;
  std::optional<int> close_code;

 private:
  net::io_context ioc_;
  websocket::stream<beast::tcp_stream> ws_;
};

// Status of a raw upgrade request (101 when the server switched protocols); `authorization`
// is sent as the Authorization header when not empty, and *response receives the response
// header.
inline int upgrade_status(uint16_t port, const std::string& target, const std::string& subprotocols,
                          const std::string& authorization = {},
                          beast::http::response<beast::http::string_body>* response = nullptr) {
  namespace http = beast::http;
  net::io_context ioc;
  beast::tcp_stream stream(ioc);
  stream.connect({net::ip::make_address("127.0.0.1"), port});
  stream.expires_after(std::chrono::seconds(5));
  http::request<http::empty_body> req{http::verb::get, target, 11};
  req.set(http::field::host, "127.0.0.1");
  req.set(http::field::upgrade, "websocket");
  req.set(http::field::connection, "Upgrade");
  req.set(http::field::sec_websocket_key, "dGhlIHNhbXBsZSBub25jZQ==");
  req.set(http::field::sec_websocket_version, "13");
  if (!subprotocols.empty()) req.set(http::field::sec_websocket_protocol, subprotocols);
  if (!authorization.empty()) req.set(http::field::authorization, authorization);
  http::write(stream, req);
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.skip(false);
  http::read_header(stream, buffer, parser);
  if (response) *response = parser.get();
  return static_cast<int>(parser.get().result_int());
}

inline std::string call(const std::string& id, const std::string& action,
                        const nlohmann::json& payload) {
  return nlohmann::json::array({2, id, action, payload}).dump();
}

}  // namespace ocppgw::gateway::testing
