// gateway/ws_session.cpp
#include "gateway/ws_session.hpp"

#include <algorithm>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>

#include "rpc/dispatcher.hpp"
#include "rpc/write_set.hpp"
#include "util/hex.hpp"
#include "util/logging.hpp"
#include "util/time.hpp"

namespace ocppgw::gateway {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;

constexpr size_t kReadChunk = 64 * 1024;
constexpr size_t kMaxRawKept = 64 * 1024;  // what an Invalid event keeps of a refused frame

// The longest prefix of `s` of at most `max` bytes that does not end inside a UTF-8 sequence
// (the frame was cut at our read limit, which may fall in the middle of a character).
std::string utf8_prefix(std::string_view s, size_t max) {
  size_t end = std::min(s.size(), max);
  size_t lead = end;
  while (lead > 0 && (static_cast<unsigned char>(s[lead - 1]) & 0xC0) == 0x80) --lead;
  if (lead > 0) {
    const auto b = static_cast<unsigned char>(s[lead - 1]);
    const size_t need = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
    if (end - (lead - 1) < need) end = lead - 1;
  }
  return std::string(s.substr(0, end));
}

std::string hex_prefix(std::string_view bytes, size_t max_bytes) {
  return "hex:" + util::to_hex(bytes.substr(0, max_bytes));
}

}  // namespace

WsSession::WsSession(HttpStream&& stream, Services& services, std::string charge_point_id,
                     std::string remote_address, const rpc::Protocol& protocol,
                     std::shared_ptr<void> slot, net::const_buffer already_read)
    : ws_(std::move(stream), already_read),
      services_(services),
      charge_point_id_(std::move(charge_point_id)),
      remote_address_(std::move(remote_address)),
      protocol_(protocol),
      mode_(services.validation_for(charge_point_id_)),
      connected_ms_(util::now_ms()),
      slot_(std::move(slot)),
      refilled_(std::chrono::steady_clock::now()),
      rate_timer_(ws_.get_executor()),
      pending_(ws_.get_executor(), protocol) {
  tokens_ = std::max(1.0, services_.config.limits.max_messages_per_s);
}

WsSession::~WsSession() = default;

SessionInfo WsSession::info() const {
  return {charge_point_id_, remote_address_, protocol_.version, connected_ms_};
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
        const auto& limits = self->services_.config.limits;
        self->ws_.tcp().expires_never();  // the websocket timeouts take over
        websocket::stream_base::timeout timeouts{};
        timeouts.handshake_timeout = std::chrono::seconds(limits.handshake_timeout_s);
        timeouts.idle_timeout = std::chrono::seconds(limits.idle_timeout_s);
        timeouts.keep_alive_pings = limits.keepalive_pings;
        self->ws_.set_option(timeouts);
        const std::string subprotocol(rpc::subprotocol(self->protocol_.version));
        self->ws_.set_option(
            websocket::stream_base::decorator([subprotocol](websocket::response_type& res) {
              res.set(http::field::server, "ocppgw");
              res.set(http::field::sec_websocket_protocol, subprotocol);
            }));
        // Our read loop enforces max_frame_bytes itself so that it can keep the start of an
        // oversize frame for the Invalid event; Beast's own limit would discard it unread.
        self->ws_.read_message_max(0);
        self->ws_.auto_fragment(false);
        self->ws_.async_accept(req, [self](beast::error_code ec) { self->on_accept(ec); });
      });
}

void WsSession::on_accept(beast::error_code ec) {
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

bool WsSession::take_token() {
  const double rate = services_.config.limits.max_messages_per_s;
  if (rate <= 0) return true;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - refilled_).count();
  refilled_ = now;
  tokens_ = std::min(std::max(1.0, rate), tokens_ + elapsed * rate);
  if (tokens_ >= 1) {
    tokens_ -= 1;
    return true;
  }
  const auto wait = std::chrono::duration<double>((1 - tokens_) / rate);
  rate_timer_.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(wait));
  rate_timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
    if (!ec) self->do_read();
  });
  return false;
}

void WsSession::do_read() {
  if (reading_ || draining_ || finished_) return;
  if (inflight_.size() >= services_.config.limits.max_inflight_per_connection) return;
  // Rate-limit whole messages: the token is taken when a message starts.
  if (buffer_.size() == 0 && !take_token()) return;
  reading_ = true;
  const size_t max = services_.config.limits.max_frame_bytes;
  const size_t limit = std::min(kReadChunk, max + 1 - std::min(max, buffer_.size()));
  ws_.async_read_some(buffer_, limit,
                      [self = shared_from_this()](beast::error_code ec, size_t bytes) {
                        self->on_read(ec, bytes);
                      });
}

void WsSession::on_read(beast::error_code ec, size_t) {
  reading_ = false;
  if (ec) {
    std::string reason;
    if (ec == websocket::error::closed) {
      const auto& cr = ws_.reason();
      reason = "closed by charge point (" + std::to_string(cr.code) +
               (cr.reason.empty() ? "" : " " + std::string(cr.reason.c_str())) + ")";
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
    const std::string bytes = beast::buffers_to_string(buffer_.data());
    buffer_.consume(buffer_.size());
    refuse_frame(hex_prefix(bytes, kMaxRawKept / 2), "binary frame (OCPP-J is text only)",
                 websocket::close_code::unknown_data, "binary frames are not supported");
    return;
  }
  if (buffer_.size() > max) {
    const std::string text = beast::buffers_to_string(buffer_.data());
    buffer_.consume(buffer_.size());
    refuse_frame(utf8_prefix(text, kMaxRawKept),
                 "frame larger than " + std::to_string(max) + " bytes",
                 websocket::close_code::too_big, "frame exceeds " + std::to_string(max) + " bytes");
    return;
  }
  if (!ws_.is_message_done()) {
    do_read();
    return;
  }
  std::string text = beast::buffers_to_string(buffer_.data());
  buffer_.consume(buffer_.size());
  if (draining_) return;  // closing: unanswered, so the charge point will send it again
  handle_text(std::move(text));
  do_read();
}

void WsSession::handle_text(std::string text) {
  const int64_t now = util::now_ms();
  auto writes = std::make_unique<rpc::WriteSet>();
  auto ctx = context(now);
  ctx.writes = writes.get();
  rpc::InboundResult result = rpc::dispatch(protocol_, ctx, text);

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
         std::move(result.reply));
}

void WsSession::refuse_frame(std::string_view raw, std::string_view reason,
                             websocket::close_code code, std::string close_reason) {
  const int64_t now = util::now_ms();
  auto ctx = context(now);
  log::warn("frame_refused", charge_point_id_,
            {{"reason", reason}, {"close_code", std::to_string(static_cast<int>(code))}});
  submit(std::string(raw), now, {rpc::invalid_event(ctx, raw, reason)}, nullptr, {});
  close(code, std::move(close_reason));
}

void WsSession::submit(std::string raw, int64_t received_ms, std::vector<analytics::Event> events,
                       std::unique_ptr<rpc::WriteSet> writes, std::string reply) {
  const uint64_t seq = inflight_base_ + inflight_.size();
  inflight_.push_back({false, std::move(reply)});
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
      write_queue_.erase(write_queue_.begin() + (writing_ ? 1 : 0), write_queue_.end());
      inflight_.clear();
      close(websocket::close_code::internal_error, "event log unavailable");
    }
    return;
  }
  if (seq < inflight_base_ || seq - inflight_base_ >= inflight_.size()) return;
  inflight_[seq - inflight_base_].ready = true;
  flush_replies();
}

void WsSession::flush_replies() {
  while (!inflight_.empty() && inflight_.front().ready) {
    if (!inflight_.front().reply.empty()) send(std::move(inflight_.front().reply));
    inflight_.pop_front();
    ++inflight_base_;
  }
  do_read();
  maybe_finish_close();
}

void WsSession::send(std::string text) {
  if (closing_ || finished_) return;
  write_queue_.push_back(std::move(text));
  if (!writing_) do_write();
}

void WsSession::do_write() {
  writing_ = true;
  ws_.text(true);
  ws_.async_write(net::buffer(write_queue_.front()),
                  [self = shared_from_this()](beast::error_code ec, size_t bytes) {
                    self->on_write(ec, bytes);
                  });
}

void WsSession::on_write(beast::error_code ec, size_t) {
  writing_ = false;
  write_queue_.pop_front();
  if (ec) {
    write_queue_.clear();
    finish(closing_ || draining_ ? end_reason_ : "write error: " + ec.message());
    return;
  }
  if (!write_queue_.empty() && !closing_) {
    do_write();
    return;
  }
  maybe_finish_close();
}

void WsSession::call(std::string action, nlohmann::json payload, std::chrono::milliseconds timeout,
                     CallCallback callback) {
  net::post(ws_.get_executor(), [self = shared_from_this(), action = std::move(action),
                                 payload = std::move(payload), timeout,
                                 callback = std::move(callback)]() mutable {
    CallOutcome refused;
    refused.kind = CallOutcome::Kind::NotSent;
    if (self->draining_ || self->finished_) {
      refused.error_code = "NotConnected";
      refused.error_description = "connection is closing";
      return callback(std::move(refused));
    }
    const std::string schema = action + std::string(self->protocol_.request_suffix);
    if (!self->protocol_.schemas.has(schema)) {
      refused.error_code = "UnknownAction";
      refused.error_description = "OCPP " + std::string(rpc::to_string(self->protocol_.version)) +
                                  " has no action " + action;
      return callback(std::move(refused));
    }
    if (auto check = self->protocol_.schemas.validate(schema, payload); !check.ok) {
      refused.error_code = "InvalidRequest";
      refused.error_description = check.summary();
      refused.violations = std::move(check.violations);
      return callback(std::move(refused));
    }
    const std::string id = self->pending_.add(action, timeout, std::move(callback));
    log::debug("csms_call", self->charge_point_id_, {{"action", action}, {"message_id", id}});
    self->send(rpc::serialize_call(id, action, payload));
  });
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
  close_reason_ = websocket::close_reason(code, reason);
  rate_timer_.cancel();
  maybe_finish_close();
}

void WsSession::maybe_finish_close() {
  if (!draining_ || closing_ || finished_) return;
  // Frames already read are answered before the close (unless the sink failed, which clears
  // them); new frames are no longer read.
  if (!inflight_.empty() || writing_ || !write_queue_.empty()) return;
  if (!accepted_) {
    finish(end_reason_);
    return;
  }
  closing_ = true;
  ws_.async_close(close_reason_, [self = shared_from_this()](beast::error_code) {
    self->finish(self->end_reason_);
  });
}

void WsSession::finish(std::string reason) {
  if (finished_) return;
  finished_ = true;
  rate_timer_.cancel();
  pending_.fail_all(CallOutcome::Kind::Disconnected, reason);
  beast::error_code ignored;
  ws_.tcp().socket().shutdown(net::ip::tcp::socket::shutdown_both, ignored);
  ws_.tcp().socket().close(ignored);
  if (!accepted_) return;
  services_.registry.remove(charge_point_id_, this);
  log::info("disconnected", charge_point_id_, {{"remote", remote_address_}, {"reason", reason}});
  const int64_t now = util::now_ms();
  auto ctx = context(now);
  nlohmann::json details = {{"remote_address", remote_address_},
                            {"subprotocol", std::string(rpc::subprotocol(protocol_.version))},
                            {"reason", reason}};
  if (closing_) details["close_code"] = static_cast<int>(close_reason_.code);
  // Not through submit(): nothing waits for this commit on a finished session.
  csms::SinkEntry entry;
  entry.charge_point_id = charge_point_id_;
  entry.received_ms = now;
  entry.events.push_back(rpc::connection_event(ctx, "disconnected", details));
  entry.on_durable = [](bool) {};
  services_.sink.submit(std::move(entry));
}

}  // namespace ocppgw::gateway
