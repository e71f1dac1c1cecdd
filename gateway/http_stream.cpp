// gateway/http_stream.cpp: see http_stream.hpp.
#include "gateway/http_stream.hpp"

#include <cstdio>
#include <utility>

#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>

#include "util/logging.hpp"

namespace ocppgw::gateway {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

StreamingResponse::StreamingResponse(net::any_io_executor executor, Options options,
                                     std::function<void()> on_closed)
    : executor_(std::move(executor)),
      options_(std::move(options)),
      on_closed_(std::move(on_closed)),
      opened_(std::chrono::steady_clock::now()) {}

void StreamingResponse::start(HttpStream&& stream, std::shared_ptr<void> slot,
                              web::HttpResponse head) {
  stream_.emplace(std::move(stream));
  slot_ = std::move(slot);
  head_ = std::make_unique<http::response<http::empty_body>>(std::move(head.base()));
  chunked_ = head_->version() >= 11;
  head_->keep_alive(false);  // the stream is the connection's last response
  if (chunked_) head_->chunked(true);
  serializer_ = std::make_unique<http::response_serializer<http::empty_body>>(*head_);
  // close() ran first: the stream has ended already, without its connection.
  if (finished_) return close_connection();
  // Only the end of the connection is read from now on, without a timeout (the read's timer is
  // set now, while nothing is pending); each write gets write_timeout (set before it, which
  // then touches the write's timer only, the read being pending).
  auto& tcp = tcp_layer(*stream_);
  tcp.expires_never();
  read_until_closed();
  tcp.expires_after(options_.write_timeout);
  visit_stream(*stream_, [&](auto& s) {
    http::async_write_header(s, *serializer_,
                             [self = shared_from_this()](beast::error_code ec, size_t) {
                               if (self->finished_) return;
                               if (ec)
                                 return self->finish("writing the head failed: " + ec.message());
                               std::lock_guard lock(self->mu_);
                               self->started_ = true;
                               if (!self->queue_.empty() && !self->writing_) {
                                 self->writing_ = true;
                                 net::post(self->executor_, [self] { self->write_queued(); });
                               }
                             });
  });
}

void StreamingResponse::read_until_closed() {
  visit_stream(*stream_, [&](auto& s) {
    s.async_read_some(net::buffer(discard_),
                      [self = shared_from_this()](beast::error_code ec, size_t) {
                        if (self->finished_) return;
                        // Whatever a client sends on a stream is not a request: discarded.
                        if (!ec) return self->read_until_closed();
                        self->finish(ec == net::error::eof ? "client closed" : ec.message());
                      });
  });
}

bool StreamingResponse::write(std::shared_ptr<const std::string> bytes) {
  bool post_write = false;
  {
    std::lock_guard lock(mu_);
    if (closed_) return false;
    if (queued_bytes_ + bytes->size() > options_.max_queued_bytes) {
      closed_ = true;
      net::post(executor_, [self = shared_from_this()] {
        self->finish("the client does not read: over " +
                         std::to_string(self->options_.max_queued_bytes) + " bytes queued",
                     true);
      });
      return false;
    }
    queued_bytes_ += bytes->size();
    queue_.push_back(std::move(bytes));
    post_write = started_ && !writing_;
    if (post_write) writing_ = true;
  }
  if (post_write) net::post(executor_, [self = shared_from_this()] { self->write_queued(); });
  return true;
}

void StreamingResponse::close() {
  {
    std::lock_guard lock(mu_);
    closed_ = true;
  }
  net::post(executor_, [self = shared_from_this()] { self->finish("closed by the gateway"); });
}

void StreamingResponse::write_queued() {
  if (finished_) return;
  size_t total = 0;
  {
    std::lock_guard lock(mu_);
    // Everything queued goes out in one write (one chunk).
    while (!queue_.empty()) {
      total += queue_.front()->size();
      in_flight_.push_back(std::move(queue_.front()));
      queue_.pop_front();
    }
    if (in_flight_.empty()) {
      writing_ = false;
      return;
    }
  }
  buffers_.clear();
  if (chunked_) {
    char size[32];
    std::snprintf(size, sizeof size, "%zx\r\n", total);
    chunk_header_ = size;
    buffers_.push_back(net::buffer(chunk_header_));
  }
  for (const auto& bytes : in_flight_) buffers_.push_back(net::buffer(*bytes));
  if (chunked_) buffers_.push_back(net::buffer("\r\n", 2));
  tcp_layer(*stream_).expires_after(options_.write_timeout);
  visit_stream(*stream_, [&](auto& s) {
    net::async_write(s, buffers_, [self = shared_from_this()](beast::error_code ec, size_t) {
      self->on_written(ec);
    });
  });
}

void StreamingResponse::on_written(beast::error_code ec) {
  if (finished_) return;
  if (ec)
    return finish(
        ec == beast::error::timeout
            ? "the client took no data for " + std::to_string(options_.write_timeout.count()) + " s"
            : "write failed: " + ec.message(),
        ec == beast::error::timeout);
  size_t written = 0;
  for (const auto& bytes : in_flight_) written += bytes->size();
  in_flight_.clear();
  {
    std::lock_guard lock(mu_);
    queued_bytes_ -= written;
    if (queue_.empty()) {
      writing_ = false;
      return;
    }
  }
  write_queued();
}

void StreamingResponse::finish(std::string_view reason, bool dropped) {
  if (finished_) return;
  finished_ = true;
  {
    std::lock_guard lock(mu_);
    closed_ = true;
    queue_.clear();
  }
  const std::string seconds = std::to_string(
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - opened_)
          .count());
  (dropped ? log::warn : log::info)(dropped ? "stream_dropped" : "stream_closed", "",
                                    {{"remote", options_.remote},
                                     {"target", options_.target},
                                     {"reason", reason},
                                     {"seconds", seconds}});
  close_connection();
  if (auto on_closed = std::exchange(on_closed_, nullptr)) on_closed();
}

void StreamingResponse::close_connection() {
  if (stream_) {
    // Closing the socket ends the pending read and write; their handlers see finished_.
    beast::error_code ignored;
    auto& tcp = tcp_layer(*stream_);
    tcp.socket().shutdown(net::ip::tcp::socket::shutdown_both, ignored);
    tcp.close();
  }
  slot_.reset();
}

}  // namespace ocppgw::gateway
