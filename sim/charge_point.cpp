// sim/charge_point.cpp: the connection life cycle of a simulated charge point (connect, boot,
// offline periods, the final stop and close) and the single timer that drives all of its
// schedules. Every member runs on the owning shard's io thread (see charge_point.hpp).
#include "sim/charge_point.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>

#include <boost/beast/core/detail/base64.hpp>

namespace ocppgw::sim {
namespace {

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

// The user name of HTTP Basic auth is the charge point id, so each charge point has its own.
std::string basic_authorization(const std::string& cp_id, const std::string& password) {
  const std::string user_pass = cp_id + ":" + password;
  std::string b64(boost::beast::detail::base64::encoded_size(user_pass.size()), '\0');
  b64.resize(boost::beast::detail::base64::encode(b64.data(), user_pass.data(), user_pass.size()));
  return "Basic " + b64;
}

}  // namespace

ChargePoint::ChargePoint(ShardContext& ctx, int index, std::string id, Version version,
                         uint64_t seed)
    : ctx_(ctx),
      cfg_(ctx.config),
      index_(index),
      id_(std::move(id)),
      version_(version),
      rng_{seed},
      timer_(ctx.ioc) {
  connectors_.resize(static_cast<size_t>(cfg_.connectors) + 1);
  for (size_t i = 0; i < connectors_.size(); ++i) {
    auto& c = connectors_[i];
    c.id = static_cast<int>(i);
    c.register_wh = static_cast<int64_t>(rng_.next() % 1'000'000);
    c.acked_status.clear();
  }
  maybe_skew_clock();
}

ChargePoint::~ChargePoint() {
  if (transport_) transport_->detach();
}

void ChargePoint::connect() {
  if (state_ == State::Connecting || state_ == State::Online || state_ == State::Closed) return;
  state_ = State::Connecting;
  reconnect_ms_ = -1;
  ConnectParams p;
  p.target = &ctx_.targets[static_cast<size_t>(index_) % ctx_.targets.size()];
  p.cp_id = id_;
  p.subprotocol = std::string(subprotocol(version_));
  if (!cfg_.basic_password.empty()) p.authorization = basic_authorization(id_, cfg_.basic_password);
  if (!ctx_.sources.empty())
    p.source = ctx_.sources[static_cast<size_t>(index_) % ctx_.sources.size()];
  transport_ = make_transport(ctx_.ioc, ctx_.ssl, std::move(p), this);
  transport_->start();
  update_busy();
}

void ChargePoint::on_open() {
  state_ = State::Online;
  counted_connected_ = true;
  ctx_.stats.connected.add();
  ctx_.stats.connects.add();
  if (booted_) ctx_.stats.booted.add();  // back from an offline period: no new boot
  if (!booted_) {
    outbox_.push_front(make(MsgKind::Boot, &connectors_[0]));
  }
  schedule_connection_faults();
  pump();
  arm();
}

void ChargePoint::on_closed(const boost::system::error_code& ec, bool was_open) {
  transport_.reset();
  if (state_ == State::Closed) return;
  if (!was_open) {
    ctx_.stats.connect_failures.add();
    if (ctx_.stats.connect_failures.get() <= 3)
      std::fprintf(stderr, "ocppsim: %s: connection failed: %s\n", id_.c_str(),
                   ec.message().c_str());
  }
  drop(false, 1000 + static_cast<int64_t>(rng_.next() % 1000));
}

// Leaves the Online/Connecting state; the transport is already gone or is dropped here.
void ChargePoint::drop(bool abrupt, int64_t reconnect_after_ms) {
  if (transport_) {
    transport_->detach();
    if (abrupt)
      transport_->close_abrupt();
    else
      transport_->close_clean();
    transport_.reset();
  }
  if (counted_connected_) {
    counted_connected_ = false;
    ctx_.stats.connected.add(-1);
    ctx_.stats.disconnects.add();
    if (booted_) ctx_.stats.booted.add(-1);
  }
  requeue_pending();
  delayed_answers_.clear();  // answers to CALLs of a connection that is gone
  probes_outstanding_ = 0;
  state_ = State::Offline;
  // < 0: the caller decides; 0: at once; > 0: after that many ms.
  reconnect_ms_ = reconnect_after_ms <= 0 ? -1 : ctx_.now_ms() + reconnect_after_ms;
  if (reconnect_after_ms == 0) connect();
  update_busy();
  arm();
}

// Unanswered CALLs go back to the front of the outbox with their id and bytes: firmware
// re-sends what it never saw answered, so the gateway may see these twice.
void ChargePoint::requeue_pending() {
  for (auto it = pending_.rbegin(); it != pending_.rend(); ++it) {
    it->msg.maybe_duplicate = true;
    ++ctx_.truth.maybe_duplicates;
    outbox_.push_front(std::move(it->msg));
  }
  pending_.clear();
}

void ChargePoint::begin_stop() {
  for (size_t i = 1; i < connectors_.size(); ++i) {
    if (connectors_[i].session) stop_session(connectors_[i]);
    connectors_[i].next_ms = -1;
  }
  want_offline_ = false;
  next_fault_ms_ = -1;
  next_hb_ms_ = -1;
  if (state_ == State::Offline) connect();
  pump();
  update_busy();
}

void ChargePoint::close() {
  if (transport_) {
    transport_->detach();
    transport_->close_clean();
    transport_.reset();
  }
  if (counted_connected_) {
    counted_connected_ = false;
    ctx_.stats.connected.add(-1);
    if (booted_) ctx_.stats.booted.add(-1);
  }
  state_ = State::Closed;
  timer_.cancel();
}

void ChargePoint::record_truth() {
  for (size_t i = 0; i < connectors_.size(); ++i) {
    const auto& c = connectors_[i];
    if (!c.acked_status.empty())
      ctx_.truth.statuses.push_back({id_, c.id, c.acked_status, version_ == Version::v201});
  }
}

std::string ChargePoint::describe() const {
  std::string d = id_ + ": state " + std::to_string(static_cast<int>(state_)) +
                  (booted_ ? " booted" : " not-booted") + ", outbox " +
                  std::to_string(outbox_.size()) + ", pending " + std::to_string(pending_.size());
  if (!outbox_.empty()) {
    d += ", front " + std::string(call_action(outbox_.front(), version_)) +
         (waits_for_tx_id(outbox_.front()) ? " (waits for tx id)" : "") + " connector " +
         std::to_string(outbox_.front().connector);
    for (const auto& m : outbox_)
      d += std::string(" ") + std::string(call_action(m, version_)).substr(0, 5) +
           std::to_string(m.connector);
  }
  for (const auto& c : connectors_)
    if (c.held) d += ", holds a reading on connector " + std::to_string(c.id);
  return d;
}

// The busy gauge is what the fleet's drain waits for, so it must cover every frame that has
// not reached the gateway yet, including a reading held back by the out-of-order fault.
void ChargePoint::update_busy() {
  bool held = false;
  for (const auto& c : connectors_) held |= c.held.has_value();
  const bool b =
      state_ != State::Online || !booted_ || !outbox_.empty() || !pending_.empty() || held;
  if (b != busy_) {
    busy_ = b;
    ctx_.stats.busy.add(b ? 1 : -1);
  }
  if (storm_active_ && state_ == State::Online && booted_ && outbox_.empty() && pending_.empty()) {
    storm_active_ = false;
    ctx_.storm_pending.add(-1);
  }
}

// Arming only the earliest deadline, not one timer per schedule, keeps a large fleet at one
// pending timer per charge point.
void ChargePoint::arm() {
  if (state_ == State::Closed) return;
  int64_t due = kNever;
  auto consider = [&](int64_t t) {
    if (t >= 0 && t < due) due = t;
  };
  consider(next_hb_ms_);
  consider(next_fault_ms_);
  consider(reconnect_ms_);
  consider(boot_retry_ms_);
  consider(next_token_ms_);
  for (const auto& c : connectors_) consider(c.next_ms);
  if (!delayed_answers_.empty()) consider(delayed_answers_.front().due_ms);
  if (!pending_.empty())
    consider(std::chrono::duration_cast<std::chrono::milliseconds>(pending_.front().sent - ctx_.t0)
                 .count() +
             static_cast<int64_t>(cfg_.call_timeout_s * 1000));
  if (due == kNever || (armed_ms_ >= 0 && armed_ms_ <= due)) return;
  armed_ms_ = due;
  timer_.expires_at(ctx_.t0 + std::chrono::milliseconds(due));
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;  // cancelled: a newer, earlier deadline was armed
    armed_ms_ = -1;
    on_timer();
  });
}

void ChargePoint::on_timer() {
  if (state_ == State::Closed) return;
  const int64_t now = ctx_.now_ms();
  if (reconnect_ms_ >= 0 && now >= reconnect_ms_ && state_ == State::Offline) connect();
  if (boot_retry_ms_ >= 0 && now >= boot_retry_ms_) {
    boot_retry_ms_ = -1;
    outbox_.push_front(make(MsgKind::Boot, &connectors_[0]));
  }
  if (next_hb_ms_ >= 0 && now >= next_hb_ms_) {
    // Skipped while frames queue up: a heartbeat would only lengthen the backlog.
    if (state_ == State::Online && booted_ && outbox_.size() < 4)
      enqueue(make(MsgKind::Heartbeat, &connectors_[0]));
    next_hb_ms_ = now + static_cast<int64_t>(cfg_.heartbeat_s * 1000);
  }
  if (next_fault_ms_ >= 0 && now >= next_fault_ms_) on_connection_fault(now);
  send_due_answers(now);
  if (cfg_.mode == RunMode::Fleet) advance_sessions(now);
  expire_calls(now);
  pump();
  arm();
}

}  // namespace ocppgw::sim
