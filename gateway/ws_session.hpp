// gateway/ws_session.hpp: one charge point's WebSocket connection after the upgrade. It reads
// text frames, runs each through rpc::dispatch, submits the frame with its events and writes to
// the event sink and sends the reply only once the sink reports the commit (ack-after-durable),
// in the order the frames arrived, even though several frames may await their commit at once.
// It also owns the write queue (one write at a time, carrying up to 16 messages: the replies one
// commit releases leave together), the frame-size, message-rate and byte-rate limits, the bound
// on queued outbound bytes (a peer that does not read its replies is cut off), the disk-space
// pause (DiskGuard), Connection events, and the CSMS->charge point calls awaiting an answer
// (PendingCalls). Threading: every member runs on the session's strand (the socket's
// executor). The public methods call(), close_async() and info() may be called from any thread: the
// first two post to the strand, info() reads immutable fields.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket/rfc6455.hpp>

#include "gateway/pending_calls.hpp"
#include "gateway/services.hpp"
#include "gateway/session_registry.hpp"
#include "gateway/tls_stream.hpp"
#include "gateway/ws_stream.hpp"
#include "rpc/dispatcher.hpp"
#include "rpc/frame_metrics.hpp"
#include "util/idle_queue.hpp"

namespace ocppgw::gateway {

class WsSession : public std::enable_shared_from_this<WsSession>, private WsStream::Owner {
 public:
  // `slot` is held for the connection's lifetime (the per-address connection limit).
  // `already_read`: bytes read from the connection after the upgrade request (copied), the
  // start of the first frames.
  // `security_profile`: what the connection provided (0-3), for the session's info().
  WsSession(HttpStream&& stream, Services& services, std::string charge_point_id,
            std::string remote_address, int security_profile, const rpc::Protocol& protocol,
            std::shared_ptr<void> slot, boost::asio::const_buffer already_read = {});
  ~WsSession();

  // Accepts the upgrade request (answering with the negotiated subprotocol) and starts reading.
  void run(HttpRequest request);

  // CSMS->charge point call; see PendingCalls. OCPP-J allows one outstanding CALL per
  // direction, so calls wait in a queue (max_queued_calls; beyond it: NotSent QueueFull) and go
  // out one at a time, in order. Each call that was queued ends in a CsmsCall event. Thread-safe.
  void call(CallRequest request, CallCallback callback);
  // Stops reading, lets frames already read finish (their replies go out), then closes with
  // `code`. Thread-safe.
  void close_async(boost::beast::websocket::close_code code, std::string reason);

  SessionInfo info() const;
  const std::string& charge_point_id() const { return charge_point_id_; }

 private:
  struct Inflight {
    bool ready = false;
    std::string reply;  // empty: nothing to send (e.g. a frame without a readable id)
    std::chrono::steady_clock::time_point read_at;  // of the frame, for the ack latency
    // An accepted SignCertificate: handed to the certificate service once `reply` is sent.
    std::optional<rpc::CertificateRequest> certificate_to_sign;
  };

  // WsStream::Owner
  void on_ws_accepted(boost::beast::error_code ec) override;
  void on_ws_readable(boost::beast::error_code ec) override;
  void on_ws_read(boost::beast::error_code ec, size_t bytes) override;
  void on_ws_written(boost::beast::error_code ec) override;
  void on_ws_closed(boost::beast::error_code ec) override;
  void on_ws_control(ws::Opcode opcode) override;

  void do_read();
  // Allocates what the message's first read offers and reads (the connection has bytes).
  void read_message();
  void handle_text(std::string text);
  void dispatch_offloaded(std::string text);
  void on_dispatched(std::string text, int64_t now, std::unique_ptr<rpc::WriteSet> writes,
                     rpc::InboundResult result);
  void refuse_frame(std::string_view raw, std::string_view reason,
                    boost::beast::websocket::close_code code, std::string close_reason);
  // Submits the frame's entry and reserves its place in the reply order.
  void submit(std::string raw, int64_t received_ms, std::vector<analytics::Event> events,
              std::unique_ptr<rpc::WriteSet> writes, std::string reply,
              std::optional<rpc::CertificateRequest> certificate_to_sign = std::nullopt);
  void on_durable(uint64_t seq, bool committed);
  void flush_replies();
  void send(std::string text);
  void do_write();
  void close(boost::beast::websocket::close_code code, std::string reason);
  void maybe_finish_close();
  void finish(std::string reason);
  // How long reading must wait for the message-rate, byte-rate and disk limits (zero: read
  // now). Takes the message token only when it returns zero at the start of a message.
  std::chrono::steady_clock::duration read_delay();
  void wait_then_read(std::chrono::steady_clock::duration delay);
  double recent_bytes_per_s(std::chrono::steady_clock::time_point now) const;
  void close_for_overflow();
  void drop_unsent_writes();
  struct QueuedCall {
    CallRequest request;
    CallCallback callback;
  };
  void send_next_call();
  // Submits the CsmsCall event (and the follow-up state rows); `then` runs on the strand once
  // they are committed (or the commit failed).
  void record_call(const CallRequest& request, const CallOutcome& outcome, int64_t started_ms,
                   std::function<void()> then = {});
  rpc::CallContext context(int64_t now_ms);

  WsStream ws_;  // plain or TLS
  Services& services_;
  const std::string charge_point_id_;
  const std::string remote_address_;
  const int security_profile_;
  const rpc::Protocol& protocol_;
  const rpc::ValidationMode mode_;
  const int64_t connected_ms_;
  std::shared_ptr<void> slot_;
  rpc::FrameMetrics& frame_metrics_;

  // The message being read, read straight into the string that carries it on (see do_read);
  // between reads it holds exactly the bytes read so far.
  std::string message_;
  size_t read_offered_ = 0;     // bytes the pending read may fill past message_'s content
  size_t first_read_size_ = 0;  // what a read at the next message start offers (do_read)
  std::chrono::steady_clock::time_point frame_read_at_;  // when the last whole frame was read
  bool reading_ = false;                                 // a wait for bytes or a read is in flight
  bool offloaded_ = false;  // a frame is being dispatched on the bulk pool
  // Beside the flags above, where the alignment of what follows leaves room: every open
  // connection holds a session.
  uint8_t writing_ = 0;                 // messages at write_queue_'s front in the write in flight
  bool holding_writes_ = false;         // flush_replies is queueing replies to send in one write
  bool flush_posted_ = false;           // a flush_replies is queued on the strand
  util::IdleQueue<Inflight> inflight_;  // front has sequence number inflight_base_
  uint64_t inflight_base_ = 0;
  util::IdleQueue<std::string> write_queue_;

  // Token buckets for the per-connection message and byte rates (the byte bucket may go
  // negative: a frame is read whole, and the debt delays the next one).
  double tokens_ = 0;
  double byte_tokens_ = 0;
  std::chrono::steady_clock::time_point refilled_;
  boost::asio::steady_timer rate_timer_;
  // Pings and pongs: an allowance of their own, as large as the message rate. The stream answers
  // a ping inside the read, so a flood of them cannot be slowed down like frames; beyond the
  // allowance the connection is closed (1008).
  double control_tokens_ = 0;
  std::chrono::steady_clock::time_point control_refilled_;
  bool control_flood_ = false;
  // Bytes read, decayed over ~10 s: what the disk guard ranks writers by.
  double recent_bytes_ = 0;
  std::chrono::steady_clock::time_point recent_at_;
  bool disk_paused_ = false;
  size_t queued_bytes_ = 0;  // in write_queue_

  PendingCalls pending_;
  util::IdleQueue<QueuedCall> call_queue_;  // waiting for the outstanding call to end

  bool accepted_ = false;
  bool draining_ = false;  // close requested: read no more, close once replies are out
  bool closing_ = false;   // async_close issued
  bool finished_ = false;
  uint16_t close_code_ = 0;  // of the close frame to send
  std::string close_text_;
  std::string end_reason_;  // for the disconnect log line and event
};

}  // namespace ocppgw::gateway
