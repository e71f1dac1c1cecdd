// gateway/ws_stream.cpp
#include "gateway/ws_stream.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>
#include <utility>

#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/rfc7230.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/websocket/error.hpp>

#include "gateway/handler_memory.hpp"
#include "util/utf8.hpp"

namespace ocppgw::gateway {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using Clock = std::chrono::steady_clock;

// What a read for headers and control frames offers (they are at most 14 + 125 bytes; more
// room lets one read take the frames a client sent together).
constexpr size_t kPendingRead = 512;
// A gather list as Asio's write copies it into its state: two words (a std::vector would be
// copied whole, a heap allocation per write, and an array of the largest gather would make
// the state outgrow RecycledBlocks).
struct BufferRange {
  using value_type = net::const_buffer;
  using const_iterator = const net::const_buffer*;
  const net::const_buffer* first;
  size_t count;
  const_iterator begin() const { return first; }
  const_iterator end() const { return first + count; }
};

// Pong frames that may wait for a peer that does not read them: each ping is answered up to
// this, then only the latest (RFC 6455 5.5.3 allows it); the ping allowance closes a flood.
constexpr size_t kMaxQueuedPongs = 16 * 1024;

// RFC 6455 7.4.1: 1007 for text that is not UTF-8, 1002 for the other protocol errors.
uint16_t close_code_for(const boost::system::error_code& ec) {
  return ec == websocket::error::bad_frame_payload ? 1007 : 1002;
}

// Beast's accept checks (websocket/impl/accept.hpp), in its order and with its error codes.
boost::system::error_code check_upgrade(const http::request<http::string_body>& req) {
  if (req.version() != 11) return websocket::error::bad_http_version;
  if (req.method() != http::verb::get) return websocket::error::bad_method;
  if (!req.count(http::field::host)) return websocket::error::no_host;
  const auto connection = req.find(http::field::connection);
  if (connection == req.end()) return websocket::error::no_connection;
  if (!http::token_list{connection->value()}.exists("upgrade"))
    return websocket::error::no_connection_upgrade;
  const auto upgrade = req.find(http::field::upgrade);
  if (upgrade == req.end()) return websocket::error::no_upgrade;
  if (!http::token_list{upgrade->value()}.exists("websocket"))
    return websocket::error::no_upgrade_websocket;
  const auto key = req.find(http::field::sec_websocket_key);
  if (key == req.end()) return websocket::error::no_sec_key;
  if (!ws::is_valid_key(key->value())) return websocket::error::bad_sec_key;
  const auto version = req.find(http::field::sec_websocket_version);
  if (version == req.end()) return websocket::error::no_sec_version;
  if (version->value() != "13") return websocket::error::bad_sec_version;
  return {};
}

std::variant<net::ip::tcp::socket, TlsStream> take_socket(HttpStream& stream) {
  using Result = std::variant<net::ip::tcp::socket, TlsStream>;
  if (stream.index() == 0) {
    // The basic_stream's timer and state go with it: the socket alone is kept.
    auto& tcp = *std::get_if<0>(&stream);
    tcp.expires_never();
    return Result(std::in_place_index<0>, std::move(tcp.socket()));
  }
  auto& tls = *std::get_if<1>(&stream);
  tls.next_layer().expires_never();  // this stream's timer takes over
  return Result(std::in_place_index<1>, std::move(tls));
}

}  // namespace

WsStream::WsStream(HttpStream&& stream, net::const_buffer already_read, Timeouts timeouts)
    : socket_(take_socket(stream)),
      timer_(get_executor()),
      timeouts_(timeouts),
      pending_(static_cast<const char*>(already_read.data()), already_read.size()) {}

WsStream::~WsStream() = default;

WsStream::executor_type WsStream::get_executor() {
  if (socket_.index() == 0) return std::get_if<0>(&socket_)->get_executor();
  return std::get_if<1>(&socket_)->get_executor();
}

WsStream::Socket& WsStream::tcp_socket() {
  if (socket_.index() == 0) return *std::get_if<0>(&socket_);
  return std::get_if<1>(&socket_)->next_layer().socket();
}

template <typename F>
void WsStream::notify(F&& f) {
  if (initiating_ == 0) return std::forward<F>(f)();
  net::post(get_executor(), [k = keep(), f = std::forward<F>(f)]() mutable { f(); });
}

// ---- the opening handshake ----

void WsStream::async_accept(Owner& owner, std::shared_ptr<void> keep_alive,
                            const http::request<http::string_body>& request,
                            std::string_view subprotocol) {
  owner_ = &owner;
  keep_alive_ = keep_alive;
  http::response<http::string_body> res;
  res.version(request.version());
  res.set(http::field::server, "ocppgw");
  const error_code refusal = check_upgrade(request);
  if (refusal == websocket::error::bad_sec_version) {
    res.result(http::status::upgrade_required);
    res.set(http::field::sec_websocket_version, "13");
  } else if (refusal) {
    res.result(http::status::bad_request);
  } else {
    res.result(http::status::switching_protocols);
    res.set(http::field::upgrade, "websocket");
    res.set(http::field::connection, "upgrade");
    res.set(http::field::sec_websocket_accept,
            ws::accept_key(request[http::field::sec_websocket_key]));
    if (!subprotocol.empty()) res.set(http::field::sec_websocket_protocol, subprotocol);
  }
  if (refusal) {
    res.body() = refusal.message();
    res.prepare_payload();
  }
  std::ostringstream text;
  text << res;
  sending_ = std::move(text).str();
  writing_ = true;
  auto done = [this, k = std::move(keep_alive), refusal](error_code ec, size_t) {
    writing_ = false;
    sending_ = std::string();
    if (!ec) ec = refusal;
    if (!ec) {
      last_received_ = Clock::now();
      arm_timer();
    }
    owner_->on_ws_accepted(ec);
    if (ec) hard_close();
  };
  if (socket_.index() == 0)
    net::async_write(*std::get_if<0>(&socket_), net::buffer(sending_), std::move(done));
  else
    net::async_write(*std::get_if<1>(&socket_), net::buffer(sending_), std::move(done));
}

// ---- reading ----

void WsStream::async_wait_readable() {
  ++initiating_;
  reader_ = Reader::wait;
  const bool ready = !pending_.empty() || reading_stopped() || finished_ ||
                     (is_tls() && std::get_if<1>(&socket_)->has_pending_input());
  if (ready) {
    finish_read({}, 0);
  } else {
    pending_ = std::string();  // idle: no capacity held
    socket_reading_ = true;
    tcp_socket().async_wait(Socket::wait_read, [this, k = keep()](error_code ec) {
      socket_reading_ = false;
      if (hard_closed_) return maybe_finish();
      if (ec) {
        if (!end_) end_ = ec;
        return hard_close();
      }
      finish_read({}, 0);
      maybe_drain();
    });
  }
  --initiating_;
}

void WsStream::async_read_some(net::mutable_buffer buffer) {
  ++initiating_;
  reader_ = Reader::read;
  read_into_ = buffer;
  message_done_ = false;
  read_took_frames_ = false;
  if (finished_)
    finish_read(end_error(), 0);
  else
    read_step();
  --initiating_;
}

std::size_t WsStream::read_size_hint(std::size_t initial) const {
  if (!in_message_ || frame_left_ == 0) return initial;
  const uint64_t left = frame_fin_ ? frame_left_ : std::max<uint64_t>(frame_left_, initial);
  return static_cast<size_t>(std::min<uint64_t>(left, SIZE_MAX));
}

// Takes frames from pending_ into the owner's buffer, and reads from the socket when that is
// not enough: straight into the owner's buffer when nothing is pending (the common case: the
// frames are unmasked where they land, no copy), into pending_ when an incomplete header or
// control frame waits there.
void WsStream::read_step() {
  for (;;) {
    if (reading_stopped()) return maybe_finish();  // the owner hears at the end
    if (pending_.empty()) return read_socket(false);
    auto* dst = static_cast<char*>(read_into_.data());
    const Decoded d = decode(pending_.data(), pending_.size(), dst, read_into_.size());
    pending_.erase(0, d.consumed);
    read_took_frames_ |= d.consumed > 0;
    if (reading_stopped()) continue;
    if (d.delivered > 0 || message_done_) return finish_read({}, d.delivered);
    // Only control frames: the next message has not begun, and the owner need not hold its
    // buffer while it waits for it.
    if (read_took_frames_ && !in_message_ && pending_.empty()) return finish_read({}, 0);
    if (d.consumed == 0) return read_socket(true);
  }
}

void WsStream::read_socket(bool into_pending) {
  socket_reading_ = true;
  const size_t before = pending_.size();
  net::mutable_buffer into = read_into_;
  if (into_pending || draining_) {
    pending_.resize(before + kPendingRead);
    into = net::buffer(pending_.data() + before, kPendingRead);
    into_pending = true;
  }
  auto handler = [this, k = keep(), before, into_pending](error_code ec, size_t n) {
    on_socket_read(ec, n, before, into_pending);
  };
  if (socket_.index() == 0)
    std::get_if<0>(&socket_)->async_read_some(into, std::move(handler));
  else
    std::get_if<1>(&socket_)->async_read_some(into, std::move(handler));
}

void WsStream::on_socket_read(error_code ec, size_t n, size_t pending_before, bool into_pending) {
  socket_reading_ = false;
  if (into_pending) pending_.resize(pending_before + n);
  if (hard_closed_) return maybe_finish();
  if (ec) {
    // The peer's end during a teardown is what the teardown waits for.
    if (!end_ && !tearing_down_) end_ = ec;
    return hard_close();
  }
  last_received_ = Clock::now();
  ping_outstanding_ = false;
  if (tearing_down_) {  // bytes after the close: dropped
    pending_.clear();
    return read_socket(true);
  }
  if (!into_pending) {
    // Decoded where it landed: payload moves only toward the buffer's start.
    auto* at = static_cast<char*>(read_into_.data());
    const Decoded d = decode(at, n, at, n);
    read_took_frames_ |= d.consumed > 0;
    if (d.consumed < n) pending_.assign(at + d.consumed, n - d.consumed);
    if (!reading_stopped()) {
      if (d.delivered > 0 || message_done_) return finish_read({}, d.delivered);
      if (read_took_frames_ && !in_message_ && pending_.empty()) return finish_read({}, 0);
    }
  }
  if (draining_) {
    pending_.erase(0, decode(pending_.data(), pending_.size(), nullptr, 0).consumed);
    if (reading_stopped()) return maybe_finish();
    return read_socket(true);
  }
  read_step();
}

// Frames from src[0, n) into dst[0, cap): payload bytes of one message, unmasked; control
// frames as they complete. Stops at the end of a message, when dst is full, at an incomplete
// header, or at a protocol error (fail). dst may be src itself: payload only moves down.
// Without a destination (draining) data frames are skipped.
WsStream::Decoded WsStream::decode(char* src, size_t n, char* dst, size_t cap) {
  Decoded d;
  size_t& pos = d.consumed;
  size_t& out = d.delivered;
  const bool discard = dst == nullptr || close_queued_;
  while (pos < n && !reading_stopped()) {
    if (in_control_) {
      const size_t take = std::min<size_t>(control_left_, n - pos);
      control_.append(src + pos, take);
      pos += take;
      control_left_ = static_cast<uint8_t>(control_left_ - take);
      if (control_left_ > 0) break;
      in_control_ = false;
      on_control_frame();
      continue;
    }
    if (frame_left_ > 0) {
      size_t take = static_cast<size_t>(std::min<uint64_t>(frame_left_, n - pos));
      if (!discard) {
        take = std::min(take, cap - out);
        if (take == 0) break;
        char* to = dst + out;
        if (to != src + pos) std::memmove(to, src + pos, take);
        ws::apply_mask(to, take, mask_, frame_at_);
        if (!binary_ && !utf8_.feed({to, take})) {
          fail(websocket::error::bad_frame_payload);
          break;
        }
        out += take;
      }
      pos += take;
      frame_left_ -= take;
      frame_at_ += take;
      if (frame_left_ == 0 && frame_fin_) {
        end_message();
        if (!discard) break;
      }
      continue;
    }
    ws::FrameHeader header;
    error_code ec;
    const size_t header_size = ws::parse_client_header({src + pos, n - pos}, header, ec);
    if (ec) {
      fail(ec);
      break;
    }
    if (header_size == 0) break;
    pos += header_size;
    if (ws::is_control(header.opcode)) {
      control_opcode_ = header.opcode;
      control_left_ = static_cast<uint8_t>(header.length);
      control_mask_ = header.mask;
      control_.clear();
      in_control_ = control_left_ > 0;
      if (!in_control_) on_control_frame();
      continue;
    }
    if (header.opcode == ws::Opcode::continuation) {
      if (!in_message_) {
        fail(websocket::error::bad_continuation);
        break;
      }
    } else {
      if (in_message_) {
        fail(websocket::error::bad_data_frame);
        break;
      }
      in_message_ = true;
      binary_ = header.opcode == ws::Opcode::binary;
      utf8_.reset();
    }
    frame_fin_ = header.fin;
    frame_left_ = header.length;
    frame_at_ = 0;
    mask_ = header.mask;
    if (frame_left_ == 0 && frame_fin_) {
      end_message();
      if (!discard) break;
    }
  }
  return d;
}

void WsStream::end_message() {
  in_message_ = false;
  if (!binary_ && !utf8_.complete()) return fail(websocket::error::bad_frame_payload);
  message_done_ = true;
}

void WsStream::on_control_frame() {
  ws::apply_mask(control_.data(), control_.size(), control_mask_, 0);
  if (control_opcode_ == ws::Opcode::ping) {
    owner_->on_ws_control(ws::Opcode::ping);
    if (close_queued_ || reading_stopped()) return;
    uint8_t header[10];
    const size_t header_size = ws::write_server_header(ws::Opcode::pong, control_.size(), header);
    if (pongs_.size() + header_size + control_.size() > kMaxQueuedPongs) pongs_.clear();
    pongs_.append(reinterpret_cast<const char*>(header), header_size).append(control_);
    return pump_writes();
  }
  if (control_opcode_ == ws::Opcode::pong) {
    owner_->on_ws_control(ws::Opcode::pong);
    return;
  }
  // Close (5.5.1): no payload, or a valid code and UTF-8 text.
  if (control_.size() == 1) return fail(websocket::error::bad_close_size);
  if (control_.size() >= 2) {
    const auto code = static_cast<uint16_t>((static_cast<uint8_t>(control_[0]) << 8) |
                                            static_cast<uint8_t>(control_[1]));
    if (!ws::is_valid_close_code(code)) return fail(websocket::error::bad_close_code);
    ws::Utf8Check text;
    const std::string_view reason = std::string_view(control_).substr(2);
    if (!text.feed(reason) || !text.complete()) return fail(websocket::error::bad_close_payload);
    peer_close_code_ = code;
    peer_close_text_ = reason;
  }
  peer_closed_ = true;
  if (close_sent_) return teardown();
  // The answer echoes the code (7.1.5); the teardown follows once it is out (after_close_sent).
  if (!close_queued_) queue_close_frame(peer_close_code_, {});
}

// A protocol error: the close frame that says why, then the teardown; the owner's read ends
// with `ec` once the connection has.
void WsStream::fail(error_code ec) {
  if (end_ || peer_closed_) return;
  end_ = ec;
  if (close_sent_) return teardown();
  if (!close_queued_) queue_close_frame(close_code_for(ec), {});
  close_deadline_ = std::min(close_deadline_, Clock::now() + timeouts_.handshake);
  arm_timer();
}

void WsStream::finish_read(error_code ec, size_t bytes) {
  const Reader reader = std::exchange(reader_, Reader::none);
  if (reader == Reader::none) return;
  notify([this, reader, ec, bytes] {
    if (reader == Reader::wait)
      owner_->on_ws_readable(ec);
    else
      owner_->on_ws_read(ec, bytes);
  });
}

// Once our close frame is out and the owner reads no more, the stream reads for the peer's
// close itself.
void WsStream::maybe_drain() {
  if (!close_sent_ || reading_stopped() || tearing_down_ || reader_ != Reader::none ||
      socket_reading_ || draining_)
    return;
  draining_ = true;
  pending_.erase(0, decode(pending_.data(), pending_.size(), nullptr, 0).consumed);
  if (!reading_stopped()) read_socket(true);
}

WsStream::error_code WsStream::end_error() const {
  if (timed_out_) return beast::error::timeout;
  if (end_) return end_;
  if (peer_closed_ || close_sent_) return websocket::error::closed;
  return net::error::operation_aborted;
}

// ---- writing ----

void WsStream::async_write_texts(std::span<const net::const_buffer> texts) {
  ++initiating_;
  if (close_queued_ || hard_closed_ || tearing_down_) {
    notify([this] { owner_->on_ws_written(websocket::error::closed); });
  } else {
    texts_.assign(texts.begin(), texts.end());
    pump_writes();
  }
  --initiating_;
}

void WsStream::queue_close_frame(uint16_t code, std::string_view reason) {
  uint8_t header[10];
  const std::string_view text = util::utf8_prefix(reason, ws::kMaxControlPayload - 2);
  const size_t payload = code == 0 ? 0 : 2 + text.size();
  const size_t header_size = ws::write_server_header(ws::Opcode::close, payload, header);
  close_frame_.assign(reinterpret_cast<const char*>(header), header_size);
  if (code != 0) {
    close_frame_.push_back(static_cast<char>(code >> 8));
    close_frame_.push_back(static_cast<char>(code & 0xFF));
    close_frame_.append(text);
  }
  close_queued_ = true;
  pongs_ = std::string();
  ping_queued_ = false;
  pump_writes();
}

void WsStream::pump_writes() {
  if (writing_ || hard_closed_ || tearing_down_ || close_sent_ || close_in_sending_) return;
  if (texts_.empty() && pongs_.empty() && !ping_queued_ && !close_queued_) return;
  // sending_: the messages' frame headers, then the control frames.
  sending_.clear();
  std::array<uint8_t, kMaxTextsPerWrite> header_sizes{};
  for (size_t i = 0; i < texts_.size(); ++i) {
    uint8_t header[10];
    header_sizes[i] =
        static_cast<uint8_t>(ws::write_server_header(ws::Opcode::text, texts_[i].size(), header));
    sending_.append(reinterpret_cast<const char*>(header), header_sizes[i]);
  }
  const size_t headers_end = sending_.size();
  text_sending_ = !texts_.empty();
  sending_.append(pongs_);
  pongs_ = std::string();
  if (ping_queued_) {
    uint8_t header[10];
    sending_.append(reinterpret_cast<const char*>(header),
                    ws::write_server_header(ws::Opcode::ping, 0, header));
  }
  ping_queued_ = false;
  if (close_queued_) {
    sending_.append(close_frame_);
    close_in_sending_ = true;
  }
  writing_ = true;
  auto done = WithRecycledMemory([this, k = keep()](error_code ec, size_t) { on_written(ec); });
  if (text_sending_) {
    // Each message's header and payload, then the control frames. The gather list takes
    // texts_'s place until on_written (the owner queues no more messages before then).
    std::vector<net::const_buffer> gather;
    gather.reserve(2 * texts_.size() + 1);
    size_t at = 0;
    for (size_t i = 0; i < texts_.size(); ++i) {
      gather.push_back(net::buffer(sending_.data() + at, header_sizes[i]));
      gather.push_back(texts_[i]);
      at += header_sizes[i];
    }
    gather.push_back(net::buffer(sending_.data() + headers_end, sending_.size() - headers_end));
    texts_ = std::move(gather);
  }
  if (socket_.index() == 0) {
    // One sendmsg; the write holds two pointers into the gather list.
    if (text_sending_)
      net::async_write(*std::get_if<0>(&socket_), BufferRange{texts_.data(), texts_.size()},
                       std::move(done));
    else
      net::async_write(*std::get_if<0>(&socket_), net::buffer(sending_), std::move(done));
  } else {
    if (text_sending_) {
      std::string whole;
      whole.reserve(net::buffer_size(texts_));
      for (const auto& part : texts_)
        whole.append(static_cast<const char*>(part.data()), part.size());
      sending_.swap(whole);
      texts_ = {};
    }
    net::async_write(*std::get_if<1>(&socket_), net::buffer(sending_), std::move(done));
  }
}

void WsStream::on_written(error_code ec) {
  writing_ = false;
  const bool text = std::exchange(text_sending_, false);
  const bool close = std::exchange(close_in_sending_, false);
  sending_ = std::string();  // an idle connection holds no write memory
  if (text) texts_ = {};     // the write's gather list (messages queued meanwhile stay)
  if (close && !ec) close_sent_ = true;
  if (ec && !hard_closed_) {
    if (!end_ && !tearing_down_) end_ = ec;
    hard_close();
  }
  if (text) owner_->on_ws_written(ec);
  if (close && !ec) after_close_sent();
  pump_writes();
  maybe_finish();
}

void WsStream::after_close_sent() {
  // An answer to the peer's close, or the close after a protocol error: the end follows.
  if (peer_closed_ || end_) return teardown();
  // Ours: the peer's close is awaited (up to the handshake timeout), read by the owner's read
  // if one is in flight, else by the stream.
  close_deadline_ = std::min(close_deadline_, Clock::now() + timeouts_.handshake);
  arm_timer();
  maybe_drain();
}

// ---- ending ----

void WsStream::async_close(uint16_t code, std::string_view reason) {
  ++initiating_;
  owner_closing_ = true;
  if (finished_) {
    notify([this] {
      owner_closing_ = false;
      owner_->on_ws_closed(end_error());
    });
  } else if (!close_queued_) {
    queue_close_frame(code, reason);
    close_deadline_ = std::min(close_deadline_, Clock::now() + timeouts_.handshake);
    arm_timer();
  }
  --initiating_;
}

void WsStream::close_now() {
  ++initiating_;
  hard_close();
  --initiating_;
}

void WsStream::teardown() {
  if (tearing_down_ || hard_closed_) return;
  tearing_down_ = true;
  close_deadline_ = std::min(close_deadline_, Clock::now() + timeouts_.handshake);
  arm_timer();
  if (is_tls()) {
    // close_notify, then TlsSocket closes the socket.
    std::get_if<1>(&socket_)->async_shutdown([this, k = keep()](error_code) { hard_close(); });
    return;
  }
  // FIN after the close frame, then read until the peer's FIN: closing with its bytes unread
  // would send a reset, which may destroy the close frame before the peer reads it.
  error_code ignored;
  tcp_socket().shutdown(Socket::shutdown_send, ignored);
  // Posted: a teardown may start inside decode(), which may be walking pending_.
  net::post(get_executor(), [this, k = keep()] {
    if (socket_reading_ || hard_closed_) return;
    pending_.clear();
    read_socket(true);
  });
}

void WsStream::hard_close() {
  if (hard_closed_) return;
  hard_closed_ = true;
  timer_.cancel();
  error_code ignored;
  tcp_socket().shutdown(Socket::shutdown_both, ignored);
  tcp_socket().close(ignored);
  maybe_finish();
}

// The owner hears of the end once the socket is closed and nothing of it is in flight.
void WsStream::maybe_finish() {
  if (!hard_closed_ || socket_reading_ || writing_ || finished_) return;
  finished_ = true;
  pending_ = std::string();
  finish_read(end_error(), 0);
  if (owner_closing_) {
    notify([this] {
      owner_closing_ = false;
      owner_->on_ws_closed(end_error());
    });
  }
}

void WsStream::arm_timer() {
  if (hard_closed_) return;
  Clock::time_point next = close_deadline_;
  if (timeouts_.idle.count() > 0 && close_deadline_ == Clock::time_point::max()) {
    const bool ping_next = timeouts_.keepalive_pings && !ping_outstanding_;
    next = last_received_ + (ping_next ? timeouts_.idle / 2 : timeouts_.idle);
  }
  if (next == Clock::time_point::max()) return;
  timer_.expires_at(next);
  timer_.async_wait([this, k = keep()](error_code ec) { on_timer(ec); });
}

// The idle timer is lazy: bytes received only move last_received_, and the timer, when it
// fires, sets itself again from there.
void WsStream::on_timer(error_code ec) {
  if (ec || hard_closed_) return;
  const auto now = Clock::now();
  bool expired = now >= close_deadline_;
  if (!expired && timeouts_.idle.count() > 0 && close_deadline_ == Clock::time_point::max()) {
    const auto silent = now - last_received_;
    expired = silent >= timeouts_.idle;
    if (!expired && timeouts_.keepalive_pings && !ping_outstanding_ &&
        silent >= timeouts_.idle / 2) {
      ping_outstanding_ = true;
      ping_queued_ = true;
      pump_writes();
    }
  }
  if (expired) {
    timed_out_ = true;
    return hard_close();
  }
  arm_timer();
}

}  // namespace ocppgw::gateway
