// gateway/ws_session.cpp
#include "gateway/ws_session.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>

#include "csms/charge_point_items.hpp"
#include "gateway/certificate_service.hpp"
#include "gateway/disk_guard.hpp"
#include "gateway/handler_memory.hpp"
#include "rpc/dispatcher.hpp"
#include "rpc/write_set.hpp"
#include "util/hex.hpp"
#include "util/logging.hpp"
#include "util/time.hpp"
#include "util/utf8.hpp"

namespace ocppgw::gateway {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;

constexpr size_t kReadChunk = 64 * 1024;
// What a read at a message start offers, from the connection's previous message (first_read_size
// below): a charge point's messages tend to repeat in size, so most are read whole in one read.
// The bounds: 256 keeps what an idle connection's pending read holds small (its last message is
// usually a Heartbeat); below 1,000 bytes glibc serves the string from its small bins (a larger,
// "large" request merges the arena's freed small chunks first, malloc_consolidate).
constexpr size_t kMinFirstRead = 256;
constexpr size_t kMaxFirstRead = 999;      // std::string allocates one more
constexpr size_t kMaxRawKept = 64 * 1024;  // what an Invalid event keeps of a refused frame
constexpr double kRecentWindowS = 10;      // decay time of a connection's recent byte rate
// Frames this large are dispatched on the bulk pool (see dispatch_offloaded). A typical CALL is
// well under 1 KiB and costs microseconds; at 32 KiB the cost reaches about a millisecond.
constexpr size_t kOffloadBytes = 32 * 1024;

std::string hex_prefix(std::string_view bytes, size_t max_bytes) {
  return "hex:" + util::to_hex(bytes.substr(0, max_bytes));
}

WsStream::Timeouts timeouts_of(const Limits& limits) {
  return {.handshake = std::chrono::seconds(limits.handshake_timeout_s),
          .idle = std::chrono::seconds(limits.idle_timeout_s),
          .keepalive_pings = limits.keepalive_pings};
}

}  // namespace

WsSession::WsSession(HttpStream&& stream, Services& services, std::string charge_point_id,
                     std::string remote_address, int security_profile,
                     const rpc::Protocol& protocol, std::shared_ptr<void> slot,
                     net::const_buffer already_read)
    : ws_(std::move(stream), already_read, timeouts_of(services.config.limits)),
      services_(services),
      charge_point_id_(std::move(charge_point_id)),
      remote_address_(std::move(remote_address)),
      security_profile_(security_profile),
      protocol_(protocol),
      mode_(services.validation_for(charge_point_id_)),
      connected_ms_(util::now_ms()),
      slot_(std::move(slot)),
      frame_metrics_(rpc::FrameMetrics::of(protocol)),
      refilled_(std::chrono::steady_clock::now()),
      rate_timer_(ws_.get_executor()),
      recent_at_(refilled_),
      pending_(ws_.get_executor(), protocol) {
  tokens_ = std::max(1.0, services_.config.limits.max_messages_per_s);
  control_tokens_ = tokens_;
  control_refilled_ = refilled_;
  byte_tokens_ = std::max(services_.config.limits.max_bytes_per_s,
                          static_cast<double>(services_.config.limits.max_frame_bytes));
}

WsSession::~WsSession() = default;

SessionInfo WsSession::info() const {
  return {charge_point_id_, remote_address_, protocol_.version, connected_ms_, security_profile_};
}

rpc::CallContext WsSession::context(int64_t now) {
  return rpc::CallContext{.charge_point_id = charge_point_id_,
                          .version = protocol_.version,
                          .message_id = {},
                          .action = {},
                          .ingest_ts_ms = now,
                          .mode = mode_,
                          .policy = services_.policy,
                          .state = services_.state,
                          .writes = nullptr,
                          .flags = {},
                          .violations = nlohmann::json::array()};
}

void WsSession::run(HttpRequest request) {
  net::dispatch(
      ws_.get_executor(), [self = shared_from_this(), req = std::move(request)]() mutable {
        self->ws_.async_accept(*self, self, req, rpc::subprotocol(self->protocol_.version));
      });
}

void WsSession::on_ws_accepted(beast::error_code ec) {
  if (ec) {
    log::warn("handshake_failed", charge_point_id_,
              {{"remote", remote_address_}, {"error", ec.message()}});
    return;
  }
  accepted_ = true;
  if (auto old = services_.registry.add(charge_point_id_, shared_from_this())) {
    log::info("connection_replaced", charge_point_id_, {{"remote", remote_address_}});
    old->close_async(websocket::close_code::normal, "replaced by a newer connection");
  }
  const std::string subprotocol(rpc::subprotocol(protocol_.version));
  log::info("connected", charge_point_id_,
            {{"remote", remote_address_},
             {"subprotocol", subprotocol},
             {"validation", mode_ == rpc::ValidationMode::Strict ? "strict" : "lenient"}});
  const int64_t now = util::now_ms();
  auto ctx = context(now);
  submit(
      {}, now,
      {rpc::connection_event(ctx, "connected",
                             {{"remote_address", remote_address_}, {"subprotocol", subprotocol}})},
      nullptr, {});
  do_read();
}

void WsSession::on_ws_control(ws::Opcode) {
  const double rate = services_.config.limits.max_messages_per_s;
  if (rate <= 0 || control_flood_) return;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - control_refilled_).count();
  control_refilled_ = now;
  control_tokens_ = std::min(std::max(1.0, rate), control_tokens_ + elapsed * rate);
  if (control_tokens_ >= 1) {
    control_tokens_ -= 1;
    return;
  }
  // Over the allowance: each ping costs a pong, and the read that answers it cannot be paused.
  control_flood_ = true;
  log::warn("control_frame_flood", charge_point_id_,
            {{"remote", remote_address_},
             {"limit_per_s", std::to_string(std::llround(rate))},
             {"action", "closing the connection (1008)"}});
  net::post(ws_.get_executor(), [self = shared_from_this()] {
    self->close(websocket::close_code::policy_error, "too many pings or pongs");
    // While closing, the WebSocket layer reads and drops further pings until the close
    // handshake times out (handshake_timeout), and the close frame may wait behind pongs the
    // client does not read: a flooder gets one second, then the connection is cut.
    self->rate_timer_.expires_after(std::chrono::seconds(1));
    self->rate_timer_.async_wait([self](beast::error_code ec) {
      if (!ec && !self->finished_) self->ws_.close_now();
    });
  });
}

double WsSession::recent_bytes_per_s(std::chrono::steady_clock::time_point now) const {
  const double age = std::chrono::duration<double>(now - recent_at_).count();
  return recent_bytes_ * std::exp(-age / kRecentWindowS) / kRecentWindowS;
}

std::chrono::steady_clock::duration WsSession::read_delay() {
  using std::chrono::duration;
  const auto& limits = services_.config.limits;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = duration<double>(now - refilled_).count();
  refilled_ = now;
  const bool message_start = message_.empty();
  auto after = [](double seconds) {
    return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        duration<double>(seconds));
  };
  if (const double rate = limits.max_bytes_per_s; rate > 0) {
    const double burst = std::max(rate, static_cast<double>(limits.max_frame_bytes));
    byte_tokens_ = std::min(burst, byte_tokens_ + elapsed * rate);
  }
  if (const double rate = limits.max_messages_per_s; rate > 0)
    tokens_ = std::min(std::max(1.0, rate), tokens_ + elapsed * rate);
  if (message_start && services_.disk) {
    const bool allowed = services_.disk->allows(recent_bytes_per_s(now));
    if (allowed != !disk_paused_) {
      disk_paused_ = !allowed;
      if (disk_paused_) {
        services_.disk->pause_started();
        log::warn("reading_paused", charge_point_id_,
                  {{"reason", "free disk space below min_free_disk_bytes"},
                   {"recent_bytes_per_s", std::to_string(recent_bytes_per_s(now))}});
      } else {
        services_.disk->pause_ended();
      }
    }
    if (disk_paused_) return std::chrono::seconds(1);
  }
  if (const double rate = limits.max_bytes_per_s; rate > 0 && byte_tokens_ < 0)
    return after(-byte_tokens_ / rate);
  if (const double rate = limits.max_messages_per_s; rate > 0 && message_start) {
    if (tokens_ < 1) return after((1 - tokens_) / rate);
    tokens_ -= 1;
  }
  return {};
}

void WsSession::wait_then_read(std::chrono::steady_clock::duration delay) {
  rate_timer_.expires_after(delay);
  rate_timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
    if (!ec) self->do_read();
  });
}

void WsSession::do_read() {
  if (reading_ || offloaded_ || draining_ || finished_) return;
  if (inflight_.size() >= services_.config.limits.max_inflight_per_connection) return;
  if (const auto delay = read_delay(); delay.count() > 0) return wait_then_read(delay);
  reading_ = true;
  // Between messages the connection waits for its next bytes holding no buffer: most
  // connections are idle most of the time.
  if (message_.empty()) {
    read_offered_ = 0;
    return ws_.async_wait_readable();
  }
  read_message();
}

void WsSession::on_ws_readable(beast::error_code ec) {
  if (ec) return on_ws_read(ec, 0);
  if (draining_ || finished_) {
    reading_ = false;
    return;
  }
  read_message();
}

void WsSession::read_message() {
  // The message is read into the string it is handed on in: no read buffer of its own and no
  // copy out of one (Beast's dynamic-buffer read offered 1,536 bytes at every message start, a
  // "large" allocation, then the text was copied out and the buffer freed). A read at a message
  // start offers first_read_size_; within a message, what is left of the current frame, so a
  // longer message takes exactly one more read. Up to max_frame_bytes + 1, so that on_read sees
  // an oversize frame and keeps its start.
  const size_t max = services_.config.limits.max_frame_bytes;
  const size_t have = message_.size();
  const size_t wanted =
      have == 0 ? std::max(first_read_size_, kMinFirstRead) : ws_.read_size_hint(kMinFirstRead);
  read_offered_ = std::min({wanted, kReadChunk, max + 1 - std::min(max, have)});
  if (message_.capacity() < have + read_offered_) {
    // Exactly the size needed: growing in place would double the capacity instead.
    std::string grown;
    grown.reserve(have + read_offered_);
    grown.append(message_);
    message_.swap(grown);
  }
  message_.resize(have + read_offered_);
  ws_.async_read_some(net::buffer(message_.data() + have, read_offered_));
}

void WsSession::on_ws_read(beast::error_code ec, size_t bytes) {
  reading_ = false;
  message_.resize(message_.size() - read_offered_ + bytes);
  byte_tokens_ -= static_cast<double>(bytes);
  const auto now = std::chrono::steady_clock::now();
  recent_bytes_ = recent_bytes_per_s(now) * kRecentWindowS + static_cast<double>(bytes);
  recent_at_ = now;
  if (ec) {
    std::string reason;
    if (ec == websocket::error::closed) {
      reason = "closed by charge point (" + std::to_string(ws_.close_code()) +
               (ws_.close_text().empty() ? "" : " " + ws_.close_text()) + ")";
      if (closing_) reason = end_reason_;
    } else if (ec == beast::error::timeout) {
      reason = "idle timeout";
    } else if (closing_ || draining_) {
      reason = end_reason_;
    } else {
      reason = "read error: " + ec.message();
    }
    finish(reason);
    return;
  }
  const size_t max = services_.config.limits.max_frame_bytes;
  if (ws_.got_binary()) {
    const std::string binary = std::exchange(message_, {});
    refuse_frame(hex_prefix(binary, kMaxRawKept / 2), "binary frame (OCPP-J is text only)",
                 websocket::close_code::unknown_data, "binary frames are not supported");
    return;
  }
  if (message_.size() > max) {
    const std::string text = std::exchange(message_, {});
    refuse_frame(util::utf8_prefix(text, kMaxRawKept),
                 "frame larger than " + std::to_string(max) + " bytes",
                 websocket::close_code::too_big, "frame exceeds " + std::to_string(max) + " bytes");
    return;
  }
  if (!ws_.is_message_done()) {
    // Nothing read (only pings or pongs arrived): the next message has not begun, and the
    // connection waits for it without a buffer.
    if (message_.empty()) message_ = std::string();
    do_read();
    return;
  }
  // Handed on whole, not kept at the largest frame's size: most connections idle between
  // frames, and the next read allocates only what it needs (BENCHMARKS.md, "Memory per
  // connection").
  std::string text = std::exchange(message_, {});
  first_read_size_ = std::min(text.size() + text.size() / 2, kMaxFirstRead);
  frame_read_at_ = now;
  if (draining_) return;  // closing: unanswered, so the charge point will send it again
  if (text.size() >= kOffloadBytes && services_.bulk) return dispatch_offloaded(std::move(text));
  handle_text(std::move(text));
  do_read();
}

void WsSession::handle_text(std::string text) {
  const int64_t now = util::now_ms();
  auto writes = std::make_unique<rpc::WriteSet>();
  auto ctx = context(now);
  ctx.writes = writes.get();
  rpc::InboundResult result = rpc::dispatch(protocol_, ctx, text);
  on_dispatched(std::move(text), now, std::move(writes), std::move(result));
}

// Parsing, validating and mapping a frame of hundreds of KiB takes tens of milliseconds; on an
// I/O thread that time would be taken from every connection sharing it. Such frames go to the
// bulk pool instead (lower priority), and this connection reads nothing more until the result
// is back, so its frames still change the CSMS state in the order they arrived.
void WsSession::dispatch_offloaded(std::string text) {
  offloaded_ = true;
  net::post(*services_.bulk, [self = shared_from_this(), text = std::move(text)]() mutable {
    const int64_t now = util::now_ms();
    auto writes = std::make_unique<rpc::WriteSet>();
    auto ctx = self->context(now);
    ctx.writes = writes.get();
    auto result = rpc::dispatch(self->protocol_, ctx, text);
    net::post(self->ws_.get_executor(),
              [self, text = std::move(text), now, writes = std::move(writes),
               result = std::move(result)]() mutable {
                self->offloaded_ = false;
                if (self->finished_) return;
                self->on_dispatched(std::move(text), now, std::move(writes), std::move(result));
                self->do_read();
              });
  });
}

void WsSession::on_dispatched(std::string text, int64_t now, std::unique_ptr<rpc::WriteSet> writes,
                              rpc::InboundResult result) {
  frame_metrics_.count(result);
  auto ctx = context(now);
  if (result.response) {
    if (pending_.complete(*result.response)) {
      submit(std::move(text), now, {}, nullptr, {});  // the raw frame is still logged
      return;
    }
    ctx.message_id = result.response->message_id;
    ctx.action = {};
    const bool is_result = result.response->type == rpc::MessageType::CallResult;
    const std::string reason = std::string(is_result ? "CALLRESULT" : "CALLERROR") +
                               " for unknown message id '" + result.response->message_id + "'";
    log::warn("frame_refused", charge_point_id_,
              {{"message_id", result.response->message_id}, {"reason", reason}});
    auto event = rpc::invalid_event(ctx, text, reason);
    submit(std::move(text), now, {std::move(event)}, nullptr, {});
    return;
  }
  if (!result.error.empty()) {
    const std::string id = result.events.empty() || !result.events.front().message_id
                               ? std::string()
                               : *result.events.front().message_id;
    log::warn("frame_refused", charge_point_id_,
              {{"message_id", id},
               {"action", result.events.empty() ? "" : result.events.front().ocpp_action},
               {"reason", result.error}});
  }
  submit(result.stored_frame ? std::move(*result.stored_frame) : std::move(text), now,
         std::move(result.events), writes->empty() ? nullptr : std::move(writes),
         std::move(result.reply), std::move(result.certificate_to_sign));
}

void WsSession::refuse_frame(std::string_view raw, std::string_view reason,
                             websocket::close_code code, std::string close_reason) {
  const int64_t now = util::now_ms();
  auto ctx = context(now);
  frame_metrics_.count_malformed();
  log::warn("frame_refused", charge_point_id_,
            {{"reason", reason}, {"close_code", std::to_string(static_cast<int>(code))}});
  submit(std::string(raw), now, {rpc::invalid_event(ctx, raw, reason)}, nullptr, {});
  close(code, std::move(close_reason));
}

void WsSession::submit(std::string raw, int64_t received_ms, std::vector<analytics::Event> events,
                       std::unique_ptr<rpc::WriteSet> writes, std::string reply,
                       std::optional<rpc::CertificateRequest> certificate_to_sign) {
  const uint64_t seq = inflight_base_ + inflight_.size();
  inflight_.emplace_back(
      Inflight{false, std::move(reply), frame_read_at_, std::move(certificate_to_sign)});
  csms::SinkEntry entry;
  entry.charge_point_id = charge_point_id_;
  entry.raw_frame = std::move(raw);
  entry.received_ms = received_ms;
  entry.events = std::move(events);
  entry.writes = std::move(writes);
  entry.on_durable = [self = shared_from_this(), seq](bool committed) {
    net::post(self->ws_.get_executor(),
              [self, seq, committed] { self->on_durable(seq, committed); });
  };
  services_.sink.submit(std::move(entry));
}

void WsSession::on_durable(uint64_t seq, bool committed) {
  if (!committed) {
    if (!finished_ && !closing_) {
      log::error("commit_failed", charge_point_id_,
                 {{"remote", remote_address_}, {"action", "closing without reply"}});
      end_reason_ = "event log commit failed";
      drop_unsent_writes();
      inflight_.clear();
      close(websocket::close_code::internal_error, "event log unavailable");
    }
    return;
  }
  if (seq < inflight_base_ || seq - inflight_base_ >= inflight_.size()) return;
  inflight_[seq - inflight_base_].ready = true;
  // Flushed once the strand has run what is queued on it: the acknowledgements of this
  // connection's other frames in the same commit come right behind this one, and their
  // replies then leave in the same write.
  if (flush_posted_) return;
  flush_posted_ = true;
  net::post(ws_.get_executor(), [self = shared_from_this()] {
    self->flush_posted_ = false;
    self->flush_replies();
  });
}

void WsSession::flush_replies() {
  // The replies ready now go out in one write: one send instead of one each, for us and for
  // the charge point.
  holding_writes_ = true;
  while (!inflight_.empty() && inflight_.front().ready) {
    // Popped before sending: send() may end the session (outbound overflow) and clear inflight_.
    std::string reply = std::move(inflight_.front().reply);
    const auto read_at = inflight_.front().read_at;
    auto certificate_to_sign = std::move(inflight_.front().certificate_to_sign);
    inflight_.pop_front();
    ++inflight_base_;
    if (reply.empty()) continue;
    frame_metrics_.observe_ack(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - read_at).count());
    send(std::move(reply));
    // After the answer: CertificateSigned must not reach the charge point before "Accepted".
    if (certificate_to_sign && services_.certificates)
      services_.certificates->submit(charge_point_id_, protocol_.version,
                                     std::move(*certificate_to_sign));
  }
  holding_writes_ = false;
  if (!writing_ && !write_queue_.empty() && !closing_ && !finished_) do_write();
  do_read();
  maybe_finish_close();
}

void WsSession::send(std::string text) {
  if (closing_ || finished_) return;
  queued_bytes_ += text.size();
  write_queue_.emplace_back(std::move(text));
  if (queued_bytes_ > services_.config.limits.max_outbound_bytes) return close_for_overflow();
  if (!writing_ && !holding_writes_) do_write();
}

// The peer sends but does not read: its replies would pile up here without bound. Closing
// loses nothing acknowledged (every queued reply's frame is already committed; the charge
// point sends unanswered frames again), and the connection is logged once, as it ends.
void WsSession::close_for_overflow() {
  log::warn("outbound_overflow", charge_point_id_,
            {{"remote", remote_address_},
             {"queued_bytes", std::to_string(queued_bytes_)},
             {"max_outbound_bytes", std::to_string(services_.config.limits.max_outbound_bytes)}});
  drop_unsent_writes();
  inflight_.clear();
  finish("outbound queue over max_outbound_bytes (the charge point does not read)");
}

// The messages being written keep their buffers until their handler runs.
void WsSession::drop_unsent_writes() {
  write_queue_.erase_from(write_queue_.begin() + static_cast<std::ptrdiff_t>(writing_));
  queued_bytes_ = 0;
  for (auto& text : write_queue_) queued_bytes_ += text.size();
}

void WsSession::do_write() {
  std::array<net::const_buffer, WsStream::kMaxTextsPerWrite> texts;
  writing_ = static_cast<uint8_t>(std::min(write_queue_.size(), texts.size()));
  for (size_t i = 0; i < writing_; ++i) texts[i] = net::buffer(write_queue_[i]);
  frame_metrics_.count_write(writing_);
  ws_.async_write_texts({texts.data(), writing_});
}

void WsSession::on_ws_written(beast::error_code ec) {
  for (; writing_ > 0; --writing_) {
    queued_bytes_ -= write_queue_.front().size();
    write_queue_.pop_front();
  }
  if (ec) {
    write_queue_.clear();
    queued_bytes_ = 0;
    finish(closing_ || draining_ ? end_reason_ : "write error: " + ec.message());
    return;
  }
  if (!write_queue_.empty() && !closing_) {
    do_write();
    return;
  }
  maybe_finish_close();
}

void WsSession::call(CallRequest request, CallCallback callback) {
  net::post(ws_.get_executor(), [self = shared_from_this(), request = std::move(request),
                                 callback = std::move(callback)]() mutable {
    CallOutcome refused;
    refused.kind = CallOutcome::Kind::NotSent;
    const std::string version(rpc::to_string(self->protocol_.version));
    if (self->draining_ || self->finished_) {
      refused.error_code = "NotConnected";
      refused.error_description = "connection is closing";
    } else if (!self->protocol_.is_csms_call(request.action)) {
      refused.error_code = "UnknownAction";
      refused.error_description =
          "OCPP " + version + " has no CSMS->charge point action '" + request.action + "'";
    } else if (auto check = self->protocol_.schemas.validate(
                   request.action + std::string(self->protocol_.request_suffix), request.payload);
               !check.ok) {
      refused.error_code = "InvalidRequest";
      refused.error_description = check.summary();
      refused.violations = std::move(check.violations);
    } else if (self->call_queue_.size() >= self->services_.config.limits.max_queued_calls) {
      refused.error_code = "QueueFull";
      refused.error_description =
          std::to_string(self->call_queue_.size()) + " calls already wait for this charge point";
    } else {
      self->call_queue_.emplace_back(QueuedCall{std::move(request), std::move(callback)});
      self->send_next_call();
      return;
    }
    callback(std::move(refused));
  });
}

void WsSession::send_next_call() {
  if (pending_.size() > 0 || call_queue_.empty()) return;
  if (draining_ || finished_) {
    // Never sent: they end as the connection did.
    auto queue = call_queue_.take();
    for (auto& q : queue) {
      CallOutcome out;
      out.kind = CallOutcome::Kind::Disconnected;
      out.error_description = end_reason_.empty() ? "connection closed" : end_reason_;
      record_call(q.request, out, util::now_ms());
      q.callback(std::move(out));
    }
    return;
  }
  QueuedCall next = std::move(call_queue_.front());
  call_queue_.pop_front();
  const int64_t started = util::now_ms();
  const std::string action = next.request.action;
  auto done = [self = shared_from_this(), request = next.request,
               callback = std::move(next.callback), started](CallOutcome outcome) {
    // The caller hears the outcome once its CsmsCall event and the state it implies are
    // durable, so a read right after the answer sees them.
    self->record_call(
        request, outcome, started,
        [callback = std::move(callback), outcome]() mutable { callback(std::move(outcome)); });
    self->send_next_call();
  };
  const std::string id = pending_.add(action, next.request.timeout, std::move(done));
  log::debug("csms_call", charge_point_id_, {{"action", action}, {"message_id", id}});
  send(rpc::serialize_call(id, action, next.request.payload));
}

void WsSession::record_call(const CallRequest& request, const CallOutcome& outcome,
                            int64_t started_ms, std::function<void()> then) {
  const int64_t now = util::now_ms();
  auto ctx = context(now);
  ctx.action = request.action;
  ctx.message_id = outcome.message_id;
  nlohmann::json details = {
      {"requested_by", request.requested_by},
      {"request", csms::redacted_call_request(request.action, request.payload)},
      {"outcome", std::string(to_string(outcome.kind))},
      {"duration_ms", now - started_ms}};
  if (outcome.kind == CallOutcome::Kind::Result) {
    details["response"] = outcome.payload;
    if (!outcome.violations.empty()) {
      nlohmann::json v = nlohmann::json::array();
      for (const auto& x : outcome.violations)
        v.push_back({{"path", x.path}, {"message", x.message}});
      details["response_violations"] = std::move(v);
    }
  } else {
    details["error"] = {{"code", outcome.error_code},
                        {"description", outcome.error_description},
                        {"details", outcome.error_details}};
  }
  csms::SinkEntry entry;
  if (outcome.ok()) {
    // Follow-up hooks (csms/charge_point_items.hpp): what the result changed of the charge
    // point's state is committed with its CsmsCall event.
    auto writes = std::make_unique<rpc::WriteSet>();
    ctx.writes = writes.get();
    services_.state.call_result(ctx, request.payload, outcome.payload);
    ctx.writes = nullptr;
    if (!writes->empty()) entry.writes = std::move(writes);
  }
  entry.charge_point_id = charge_point_id_;
  entry.received_ms = now;
  entry.events.push_back(rpc::csms_call_event(ctx, details));
  entry.on_durable = [self = shared_from_this(), then = std::move(then)](bool) {
    if (then) net::post(self->ws_.get_executor(), then);
  };
  services_.sink.submit(std::move(entry));
}

void WsSession::close_async(websocket::close_code code, std::string reason) {
  net::post(ws_.get_executor(), [self = shared_from_this(), code, reason = std::move(reason)] {
    self->close(code, reason);
  });
}

void WsSession::close(websocket::close_code code, std::string reason) {
  if (draining_ || finished_) return;
  draining_ = true;
  if (end_reason_.empty()) end_reason_ = reason;
  close_code_ = static_cast<uint16_t>(code);
  close_text_ = std::move(reason);
  rate_timer_.cancel();
  maybe_finish_close();
}

void WsSession::maybe_finish_close() {
  if (!draining_ || closing_ || finished_) return;
  // Frames already read are answered before the close (unless the sink failed, which clears
  // them); new frames are no longer read.
  if (!inflight_.empty() || writing_ > 0 || !write_queue_.empty()) return;
  if (!accepted_) {
    finish(end_reason_);
    return;
  }
  closing_ = true;
  ws_.async_close(close_code_, close_text_);
}

void WsSession::on_ws_closed(beast::error_code) { finish(end_reason_); }

void WsSession::finish(std::string reason) {
  if (finished_) return;
  finished_ = true;
  rate_timer_.cancel();
  if (disk_paused_) services_.disk->pause_ended();
  disk_paused_ = false;
  pending_.fail_all(CallOutcome::Kind::Disconnected, reason);
  send_next_call();  // finished: the queued calls end as Disconnected
  ws_.close_now();
  if (!accepted_) return;
  services_.registry.remove(charge_point_id_, this);
  log::info("disconnected", charge_point_id_, {{"remote", remote_address_}, {"reason", reason}});
  const int64_t now = util::now_ms();
  auto ctx = context(now);
  nlohmann::json details = {{"remote_address", remote_address_},
                            {"subprotocol", std::string(rpc::subprotocol(protocol_.version))},
                            {"reason", reason}};
  if (closing_) details["close_code"] = static_cast<int>(close_code_);
  // Not through submit(): nothing waits for this commit on a finished session.
  csms::SinkEntry entry;
  entry.charge_point_id = charge_point_id_;
  entry.received_ms = now;
  entry.events.push_back(rpc::connection_event(ctx, "disconnected", details));
  entry.on_durable = [](bool) {};
  services_.sink.submit(std::move(entry));
}

}  // namespace ocppgw::gateway
