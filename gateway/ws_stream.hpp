// gateway/ws_stream.hpp: the server side of a WebSocket (RFC 6455) over plain TCP or TLS, as a
// charge point's connection needs it, holding almost nothing while the connection is idle.
//
// Why not Beast's websocket::stream: an idle charge point connection is the common case, and
// Beast's stream keeps ~2.5 KB of state per connection (its 1,536-byte read buffer among it), a
// ~1 KB composed read pending all the time, and the basic_stream's timer state: together more
// than half of what an idle connection cost (BENCHMARKS.md, "memory per idle connection"). This
// stream keeps the frame state in a few members, holds a received byte only until the owner
// takes it, and waits for an idle connection's next frame with a bare readiness wait: no buffer
// and no read in flight.
//
// What it does: the opening handshake (4.2: 101 with the chosen subprotocol, 400/426 with the
// reason for a request that is not a WebSocket upgrade, Beast's checks and error codes); frames
// read straight into the owner's buffer and unmasked there; text messages checked as UTF-8 as
// they arrive (1007 at the first bad byte); pings answered (every one, up to a bound on the pongs
// waiting; past it only the latest, as 5.5.3 allows); keepalive pings and the idle timeout; the
// closing handshake (7.1) both ways, bounded by the handshake timeout; any protocol error closed
// with 1002 and reported with Beast's websocket error code. No extension is negotiated (RSV bits
// are a protocol error).
//
// The owner (WsSession) hears about each operation through Owner's callbacks, always on the
// connection's strand and never from inside the call that started the operation. Every operation
// in flight holds the owner alive (the `keep_alive` given to async_accept).
// Threading: one strand, as for any Asio stream; one operation of each kind at a time.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include "gateway/tls_stream.hpp"
#include "gateway/ws_frame.hpp"

namespace ocppgw::gateway {

class WsStream {
 public:
  using error_code = boost::system::error_code;
  using executor_type = boost::asio::any_io_executor;

  class Owner {
   public:
    virtual void on_ws_accepted(error_code ec) = 0;
    // The connection has bytes to read (or has ended: then `ec`).
    virtual void on_ws_readable(error_code ec) = 0;
    // `bytes` of the current message were read into the buffer given to async_read_some (0
    // when only control frames arrived: the next message has not begun). Errors:
    // websocket::error::closed after the closing handshake (close_code() has the peer's code),
    // beast::error::timeout at the idle or closing timeout, a websocket::error for a protocol
    // violation (already answered with its close frame), or the socket's error.
    virtual void on_ws_read(error_code ec, std::size_t bytes) = 0;
    virtual void on_ws_written(error_code ec) = 0;
    // The closing handshake started by async_close has ended (or the connection did).
    virtual void on_ws_closed(error_code ec) = 0;
    // A ping or pong arrived (a ping is answered by the stream).
    virtual void on_ws_control(ws::Opcode opcode) = 0;

   protected:
    virtual ~Owner() = default;
  };

  struct Timeouts {
    std::chrono::steady_clock::duration handshake{};  // the closing handshake's bound
    std::chrono::steady_clock::duration idle{};       // zero: none
    bool keepalive_pings = false;  // ping after half the idle time without a byte received
  };

  // `already_read`: bytes the HTTP parser read past the upgrade request (the first frames).
  WsStream(HttpStream&& stream, boost::asio::const_buffer already_read, Timeouts timeouts);
  ~WsStream();
  WsStream(const WsStream&) = delete;
  WsStream& operator=(const WsStream&) = delete;

  executor_type get_executor();
  bool is_tls() const { return socket_.index() == 1; }

  // Answers the upgrade request: 101 with `subprotocol`, or the refusal Beast's accept gave
  // (then on_ws_accepted has the reason's error code).
  void async_accept(Owner& owner, std::shared_ptr<void> keep_alive,
                    const boost::beast::http::request<boost::beast::http::string_body>& request,
                    std::string_view subprotocol);

  // Waits until a read would find bytes, holding no buffer meanwhile.
  void async_wait_readable();
  // Reads payload bytes of the current message (or of the next one, at a message boundary)
  // into `buffer`; one message at a time, never past its end.
  void async_read_some(boost::asio::mutable_buffer buffer);
  bool is_message_done() const { return message_done_; }  // the last read ended its message
  bool got_binary() const { return binary_; }             // the message is binary
  // What to offer the next read: within a message, the bytes left in its current frame (at
  // least `initial` if that frame is not its last); at a message start, `initial`.
  std::size_t read_size_hint(std::size_t initial) const;

  // Sends text messages (one frame each), in order and in one write: replies that became ready
  // together (one commit acknowledges several frames of a connection) cost one send instead of
  // one each. 1 to kMaxTextsPerWrite of them; their bytes must stay valid until on_ws_written,
  // which is called once for them all.
  static constexpr std::size_t kMaxTextsPerWrite = 16;
  void async_write_texts(std::span<const boost::asio::const_buffer> texts);
  // Starts the closing handshake: sends close with `code` and `reason` (after a write in
  // progress) and waits up to the handshake timeout for the peer's close.
  void async_close(uint16_t code, std::string_view reason);
  // Ends the connection at once; operations in flight end with errors.
  void close_now();

  // The close frame the peer sent (code 0: none, or it had no code).
  uint16_t close_code() const { return peer_close_code_; }
  const std::string& close_text() const { return peer_close_text_; }

 private:
  using Socket = boost::asio::ip::tcp::socket;
  // The owner's operation in flight, if any.
  enum class Reader : uint8_t { none, wait, read };
  struct Decoded {
    std::size_t consumed = 0;   // raw bytes taken (headers, payloads, control frames)
    std::size_t delivered = 0;  // payload bytes written to the destination
  };

  Socket& tcp_socket();
  std::shared_ptr<void> keep() const { return keep_alive_.lock(); }
  // Calls the owner: at once from a completion, posted from inside an owner's call.
  template <typename F>
  void notify(F&& f);

  // Reading.
  void read_step();
  void read_socket(bool into_pending);
  void on_socket_read(error_code ec, std::size_t n, std::size_t pending_before, bool into_pending);
  Decoded decode(char* src, std::size_t n, char* dst, std::size_t cap);
  void end_message();
  void on_control_frame();
  void fail(error_code ec);
  void finish_read(error_code ec, std::size_t bytes);
  void maybe_drain();
  // No more frames will be taken: the peer closed, a protocol error, or the end.
  bool reading_stopped() const { return peer_closed_ || end_ || hard_closed_; }
  error_code end_error() const;

  // Writing.
  void pump_writes();
  void on_written(error_code ec);
  void queue_close_frame(uint16_t code, std::string_view reason);
  void after_close_sent();

  // Ending: teardown() sends FIN (or close_notify) and reads until the peer's end, so that the
  // close frame is not lost to a reset; hard_close() closes the socket; the owner hears of the
  // end once nothing is in flight (maybe_finish).
  void teardown();
  void hard_close();
  void maybe_finish();
  void arm_timer();
  void on_timer(error_code ec);

  std::variant<Socket, TlsStream> socket_;
  boost::asio::steady_timer timer_;
  Owner* owner_ = nullptr;
  std::weak_ptr<void> keep_alive_;
  Timeouts timeouts_;

  // Read side. pending_ holds raw bytes received past what a read could take (the next
  // frames, an incomplete header or control frame): empty, without capacity, while idle.
  std::string pending_;
  std::string control_;  // a control frame's payload as it arrives
  boost::asio::mutable_buffer read_into_;
  uint64_t frame_left_ = 0;  // payload bytes of the current frame not yet read
  uint64_t frame_at_ = 0;    // payload bytes of the current frame read (the mask's offset)
  std::array<uint8_t, 4> mask_{};
  std::array<uint8_t, 4> control_mask_{};
  ws::Utf8Check utf8_;
  ws::Opcode control_opcode_ = ws::Opcode::ping;
  uint8_t control_left_ = 0;
  bool in_control_ = false;
  bool frame_fin_ = false;
  bool in_message_ = false;
  bool message_done_ = false;
  bool binary_ = false;
  bool read_took_frames_ = false;  // the owner's read has taken at least one frame or header
  Reader reader_ = Reader::none;
  bool socket_reading_ = false;  // a socket read or wait is in flight
  bool draining_ = false;        // reading for the peer's close or end, not for the owner
  int initiating_ = 0;           // inside an owner's call: notifications are posted
  std::chrono::steady_clock::time_point last_received_;

  // Write side: the owner's messages, then the control frames waiting (the latest pong, a
  // keepalive ping, the close frame), in one gather write. sending_ holds the messages' frame
  // headers and the control frames being written (over TLS, the whole write: TlsSocket
  // encrypts one buffer per call). texts_ holds the owner's messages until their write starts,
  // then, over plain TCP, that write's gather list until it completes. Neither holds memory
  // between writes.
  std::vector<boost::asio::const_buffer> texts_;
  std::string sending_;
  std::string pongs_;  // pong frames waiting, encoded
  std::string close_frame_;
  bool text_sending_ = false;
  bool ping_queued_ = false;
  bool ping_outstanding_ = false;
  bool close_queued_ = false;
  bool close_in_sending_ = false;
  bool writing_ = false;

  // Ending: close_sent_ once our close frame is out; peer_closed_ once the peer's close frame
  // arrived; end_ is why the connection ended otherwise (a protocol error, a socket error).
  bool close_sent_ = false;
  bool peer_closed_ = false;
  bool owner_closing_ = false;  // async_close called: on_ws_closed is owed
  bool tearing_down_ = false;
  bool hard_closed_ = false;
  bool finished_ = false;  // the owner has heard of the end
  bool timed_out_ = false;
  error_code end_;
  uint16_t peer_close_code_ = 0;
  std::string peer_close_text_;
  std::chrono::steady_clock::time_point close_deadline_ =
      std::chrono::steady_clock::time_point::max();
};

}  // namespace ocppgw::gateway
