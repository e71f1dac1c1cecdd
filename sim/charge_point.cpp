// sim/charge_point.cpp: behaviour of one simulated charge point. Every frame is built from an
// OutMsg spec when it leaves the outbox; the ground truth is updated only from what the gateway
// acknowledged, so it states what the gateway's tables must contain.
#include "sim/charge_point.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include <boost/beast/core/detail/base64.hpp>
#include <nlohmann/json.hpp>

#include "util/time.hpp"

namespace ocppgw::sim {
namespace {

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

// The parts of an inbound OCPP-J frame we need, found without building a JSON tree.
struct Scanned {
  int type = 0;
  std::string_view id;
  std::string_view error_code;  // CALLERROR only
};

std::optional<std::string_view> scan_string(std::string_view t, size_t& i) {
  while (i < t.size() && (t[i] == ' ' || t[i] == ',')) ++i;
  if (i >= t.size() || t[i] != '"') return std::nullopt;
  const size_t start = ++i;
  while (i < t.size() && t[i] != '"') i += t[i] == '\\' ? 2 : 1;
  if (i >= t.size()) return std::nullopt;
  return t.substr(start, i++ - start);
}

std::optional<Scanned> scan_frame(std::string_view t) {
  size_t i = 0;
  while (i < t.size() && t[i] != '[') ++i;
  ++i;
  while (i < t.size() && t[i] == ' ') ++i;
  if (i >= t.size() || t[i] < '2' || t[i] > '4') return std::nullopt;
  Scanned s;
  s.type = t[i++] - '0';
  auto id = scan_string(t, i);
  if (!id) return std::nullopt;
  s.id = *id;
  if (s.type == 4) {
    if (auto code = scan_string(t, i)) s.error_code = *code;
  }
  return s;
}

int64_t ms_now_system() { return util::now_ms(); }

}  // namespace

double Rng::exponential(double mean) { return -mean * std::log(1.0 - uniform()); }

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
  if (rng_.chance(cfg_.faults.clock_skew)) {
    skew_ms_ = static_cast<int64_t>(cfg_.faults.clock_skew_s * 1000) * (index % 2 ? 1 : -1);
    ++ctx_.truth.clock_skewed_cps;
  }
}

ChargePoint::~ChargePoint() {
  if (transport_) transport_->detach();
}

// ---- connection life cycle ----

void ChargePoint::connect() {
  if (state_ == State::Connecting || state_ == State::Online || state_ == State::Closed) return;
  state_ = State::Connecting;
  reconnect_ms_ = -1;
  ConnectParams p;
  p.target = &ctx_.targets[static_cast<size_t>(index_) % ctx_.targets.size()];
  p.cp_id = id_;
  p.subprotocol = std::string(subprotocol(version_));
  if (!cfg_.basic_password.empty()) {
    const std::string user_pass = id_ + ":" + cfg_.basic_password;
    std::string b64(boost::beast::detail::base64::encoded_size(user_pass.size()), '\0');
    b64.resize(
        boost::beast::detail::base64::encode(b64.data(), user_pass.data(), user_pass.size()));
    p.authorization = "Basic " + b64;
  }
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
  if (next_fault_ms_ < 0 && !ctx_.stopping) {
    const double per_min = cfg_.faults.offline + cfg_.faults.disconnect;
    if (per_min > 0)
      next_fault_ms_ = ctx_.now_ms() + static_cast<int64_t>(rng_.exponential(60000.0 / per_min));
  }
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

void ChargePoint::storm() {
  if (state_ == State::Closed) return;
  for (int k = 0; k < cfg_.storm_backlog; ++k) {
    for (size_t i = 1; i < connectors_.size(); ++i) {
      auto& c = connectors_[i];
      OutMsg m = make(MsgKind::Meter, &c);
      m.session = c.session;
      m.tx_event = "Updated";
      if (c.session) m.seq_no = c.session->seq_no++;
      m.offline = true;
      m.injected = Injected::StormBacklog;
      outbox_.push_back(std::move(m));
    }
  }
  if (!storm_active_) {
    storm_active_ = true;
    ctx_.storm_pending.add();
  }
  drop(true, -1);
  booted_ = false;  // a storm is a power cut: the charge point boots again
  connect();
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

// ---- schedule ----

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
    if (state_ == State::Online && booted_ && outbox_.size() < 4)
      enqueue(make(MsgKind::Heartbeat, &connectors_[0]));
    next_hb_ms_ = now + static_cast<int64_t>(cfg_.heartbeat_s * 1000);
  }
  if (next_fault_ms_ >= 0 && now >= next_fault_ms_) {
    const auto& f = cfg_.faults;
    if (rng_.uniform() * (f.offline + f.disconnect) < f.offline) {
      want_offline_ = state_ == State::Online;
    } else if (state_ == State::Online) {
      ++ctx_.truth.abrupt_disconnects;
      drop(true, 1000);
    }
    next_fault_ms_ =
        now + static_cast<int64_t>(rng_.exponential(60000.0 / (f.offline + f.disconnect)));
  }
  if (cfg_.mode == RunMode::Fleet) {
    for (size_t i = 1; i < connectors_.size(); ++i) {
      auto& c = connectors_[i];
      if (c.next_ms < 0 || now < c.next_ms) continue;
      if (!c.session) {
        start_session(c);
      } else if (now >= c.session->end_steady_ms) {
        stop_session(c);
      } else {
        meter_tick(c);
        c.next_ms = std::min(now + static_cast<int64_t>(cfg_.meter_interval_s * 1000),
                             c.session->end_steady_ms);
      }
    }
  }
  // Calls unanswered for too long: give up on them so the window moves on.
  const auto limit = std::chrono::steady_clock::now() -
                     std::chrono::milliseconds(static_cast<int64_t>(cfg_.call_timeout_s * 1000));
  while (!pending_.empty() && pending_.front().sent <= limit) {
    ctx_.timeouts.add();
    if (pending_.front().msg.kind == MsgKind::Boot) boot_retry_ms_ = now;
    pending_.erase(pending_.begin());
  }
  pump();
  arm();
}

// ---- sending ----

bool ChargePoint::waits_for_tx_id(const OutMsg& m) const {
  return version_ == Version::v16 && m.session && !m.session->minus1 && m.session->tx_id.empty() &&
         (m.kind == MsgKind::Meter || m.kind == MsgKind::Stop);
}

void ChargePoint::pump() {
  while (state_ == State::Online && pending_.size() < static_cast<size_t>(cfg_.max_inflight)) {
    if (want_offline_) break;
    if (outbox_.empty() && cfg_.mode == RunMode::Load && booted_ && !ctx_.stopping) generate_load();
    if (outbox_.empty()) break;
    OutMsg& front = outbox_.front();
    if (!booted_ && front.kind != MsgKind::Boot) break;
    if (waits_for_tx_id(front)) break;
    OutMsg m = std::move(front);
    outbox_.pop_front();
    send_call(std::move(m));
  }
  if (want_offline_ && pending_.empty() && state_ == State::Online) {
    want_offline_ = false;
    ++ctx_.truth.offline_periods;
    drop(false, static_cast<int64_t>(cfg_.faults.offline_s * 1000));
    return;
  }
  update_busy();
}

void ChargePoint::send_call(OutMsg m) {
  const auto& f = cfg_.faults;
  if (m.message_id.empty()) {
    m.message_id = next_message_id();
    m.text = build_call(m, version_, m.message_id, id_);
    if (m.offline) ++ctx_.truth.offline_frames;
  }
  // Counted per write, exact re-sends included: each written copy is handled and flagged.
  if (m.session && m.session->minus1 && (m.kind == MsgKind::Meter || m.kind == MsgKind::Stop))
    ++ctx_.truth.minus1_frames;
  if (m.injected == Injected::None && !m.maybe_duplicate && m.kind != MsgKind::Boot) {
    if (rng_.chance(f.corrupt)) send_probe(true, m.text);
    if (rng_.chance(f.schema_invalid)) send_probe(false, m.text);
  }
  ++ctx_.truth.sent_by_action[std::string(call_action(m, version_))];
  ctx_.stats.frames_sent.add();
  transport_->send(m.text);
  pending_.push_back({std::move(m), std::chrono::steady_clock::now()});
}

void ChargePoint::send_probe(bool corrupt, const std::string& valid_text) {
  const std::string mid = next_message_id();
  std::string text;
  if (corrupt) {
    // Same shape as a real frame of this charge point, with this probe's own id.
    const auto after_id = valid_text.find("\",\"");
    text = build_corrupt_call("[2,\"" + mid + valid_text.substr(after_id));
    ++ctx_.truth.corrupt;
  } else {
    text = build_schema_invalid_call(version_, mid, device_ts(&connectors_[0]));
    ++ctx_.truth.schema_invalid;
  }
  ++probes_outstanding_;
  ctx_.stats.frames_sent.add();
  transport_->send(std::move(text));
}

// ---- receiving ----

void ChargePoint::on_frame(std::string_view text) {
  ctx_.stats.frames_received.add();
  const auto s = scan_frame(text);
  if (!s) {
    ctx_.unmatched.add();
    return;
  }
  if (s->type == 2) {
    // The simulator implements no CSMS-initiated action; answering keeps the gateway's
    // pending-call table clean.
    ctx_.stats.csms_calls.add();
    transport_->send("[4,\"" + std::string(s->id) + "\",\"NotImplemented\",\"ocppsim\",{}]");
    return;
  }
  auto it = std::find_if(pending_.begin(), pending_.end(),
                         [&](const Pending& p) { return p.msg.message_id == s->id; });
  if (it == pending_.end()) {
    if (probes_outstanding_ > 0) {
      --probes_outstanding_;
      ctx_.stats.expected_errors.add();
    } else {
      ctx_.unmatched.add();
    }
    return;
  }
  const auto latency = std::chrono::steady_clock::now() - it->sent;
  ctx_.stats.ack_latency.add(static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(latency).count()));
  Pending p = std::move(*it);
  pending_.erase(it);
  if (s->type == 3) {
    ctx_.stats.calls_acked.add();
    on_result(p, text);
  } else {
    ctx_.stats.call_errors.add();
    if (p.msg.kind == MsgKind::Boot) boot_retry_ms_ = ctx_.now_ms() + 2000;
  }
  pump();
  arm();
}

void ChargePoint::on_result(Pending& p, std::string_view text) {
  OutMsg& m = p.msg;
  ++ctx_.truth.acked_by_action[std::string(call_action(m, version_))];
  switch (m.kind) {
    case MsgKind::Boot: {
      const auto j = nlohmann::json::parse(text, nullptr, false);
      const bool accepted = j.is_array() && j.size() >= 3 && j[2].value("status", "") == "Accepted";
      if (!accepted) {
        boot_retry_ms_ = ctx_.now_ms() + 2000;
        break;
      }
      booted_ = true;
      ctx_.stats.booted.add();
      // Statuses go out before anything that waited for the boot (storm backlog).
      const size_t first = version_ == Version::v16 ? 0 : 1;  // 2.0.1 has no connector 0
      for (size_t i = connectors_.size(); i-- > first;) {
        auto& c = connectors_[i];
        OutMsg st = make(MsgKind::Status, &c);
        st.status = c.session ? (version_ == Version::v16 ? "Charging" : "Occupied") : "Available";
        outbox_.push_front(std::move(st));
      }
      const int64_t now = ctx_.now_ms();
      if (cfg_.heartbeat_s > 0 && next_hb_ms_ < 0 && !ctx_.stopping)
        next_hb_ms_ = now + static_cast<int64_t>(rng_.uniform() * cfg_.heartbeat_s * 1000);
      for (size_t i = 1; i < connectors_.size(); ++i) {
        auto& c = connectors_[i];
        if (ctx_.stopping || c.session || c.next_ms >= 0) continue;
        if (cfg_.mode == RunMode::Load) {
          start_session(c);
        } else if (cfg_.sessions_per_hour > 0) {
          c.next_ms =
              now + static_cast<int64_t>(rng_.exponential(3600000.0 / cfg_.sessions_per_hour));
        }
      }
      break;
    }
    case MsgKind::Start: {
      auto& s = *m.session;
      if (version_ == Version::v16) {
        const auto j = nlohmann::json::parse(text, nullptr, false);
        int64_t tx = 0;
        if (j.is_array() && j.size() >= 3 && j[2].contains("transactionId") &&
            j[2]["transactionId"].is_number_integer())
          tx = j[2]["transactionId"].get<int64_t>();
        const std::string tx_text = std::to_string(tx);
        if (!s.tx_id.empty() && s.tx_id != tx_text) ++ctx_.truth.answered_resends_mismatch;
        if (s.tx_id.empty()) s.tx_id = tx_text;
      }
      if (s.truth_index < 0) {
        s.truth_index = static_cast<int>(ctx_.truth.sessions.size());
        ExpectedSession e;
        e.cp_id = id_;
        e.tx_id = s.tx_id;
        e.version = std::string(version_name(version_));
        e.connector = s.connector;
        e.meter_start_wh = s.meter_start;
        e.start_ts_ms = s.start_ts;
        e.minus1 = s.minus1;
        e.clock_skewed = skew_ms_ != 0;
        ctx_.truth.sessions.push_back(std::move(e));
      }
      break;
    }
    case MsgKind::Stop: {
      auto& s = *m.session;
      if (s.truth_index >= 0) {
        auto& e = ctx_.truth.sessions[static_cast<size_t>(s.truth_index)];
        e.completed = true;
        e.meter_stop_wh = m.meter_wh;
        e.stop_ts_ms = m.ts_ms;
        e.anomaly = s.anomaly;
      }
      break;
    }
    case MsgKind::Status: {
      auto& c = connectors_[static_cast<size_t>(m.connector)];
      if (m.ts_ms >= c.acked_status_ts && m.injected == Injected::None) {
        c.acked_status = m.status;
        c.acked_status_ts = m.ts_ms;
      }
      break;
    }
    default:
      break;
  }
  if (m.injected == Injected::None && !m.maybe_duplicate) after_ack_faults(m);
}

// Faults that only make sense once the original was acknowledged: the gateway has it.
void ChargePoint::after_ack_faults(const OutMsg& m) {
  // At most one fault per original frame: overlapping faults on one business key would make
  // the expected duplicate and quarantine counts depend on the pipeline's tie-breaking.
  const auto& f = cfg_.faults;
  const bool mid_session_meter = m.kind == MsgKind::Meter && m.session && !m.session->minus1;
  const double r = rng_.uniform();
  OutMsg copy = m;
  if (m.kind != MsgKind::Boot && r < f.resend) {
    copy.injected = Injected::ExactResend;
    ++ctx_.truth.exact_resends;
  } else if (mid_session_meter && r < f.resend + f.business_dup) {
    copy.message_id.clear();
    copy.text.clear();
    copy.injected = Injected::BusinessDup;
    ++ctx_.truth.business_dups;
  } else if (mid_session_meter && r < f.resend + f.business_dup + f.conflict) {
    copy.message_id.clear();
    copy.text.clear();
    copy.meter_wh += 1 + static_cast<int64_t>(rng_.next() % 50);
    copy.injected = Injected::Conflict;
    ++ctx_.truth.conflicts;
  } else {
    return;
  }
  outbox_.push_front(std::move(copy));
}

// ---- sessions ----

int64_t ChargePoint::device_ts(Connector* c) {
  int64_t t = ms_now_system() + skew_ms_;
  // Strictly increasing per connector: two readings of one connector never share a business key
  // unless a fault means them to.
  if (c) {
    if (t <= c->last_ts) t = c->last_ts + 1;
    c->last_ts = t;
  }
  return t;
}

OutMsg ChargePoint::make(MsgKind kind, Connector* c) {
  OutMsg m;
  m.kind = kind;
  m.connector = c ? c->id : 0;
  m.ts_ms = device_ts(c);
  m.offline = state_ != State::Online;
  if (c && kind == MsgKind::Meter) m.meter_wh = c->register_wh;
  return m;
}

void ChargePoint::enqueue(OutMsg m) {
  outbox_.push_back(std::move(m));
  if (state_ == State::Online) pump();
}

int64_t ChargePoint::power_at(const Session& s, int64_t now) const {
  const double total = static_cast<double>(s.end_steady_ms - s.started_steady_ms);
  const double x = total > 0 ? static_cast<double>(now - s.started_steady_ms) / total : 0;
  const double factor = x < 0.7 ? 1.0 : std::max(0.2, 1.0 - (x - 0.7) / 0.3 * 0.8);
  return static_cast<int64_t>(cfg_.max_power_w * factor);
}

void ChargePoint::start_session(Connector& c) {
  const int64_t now = ctx_.now_ms();
  auto s = std::make_shared<Session>();
  s->connector = c.id;
  // One tag per session: a shared tag would get ConcurrentTx on the second connector.
  s->id_tag =
      cfg_.id_tag_prefix + "-" + std::to_string(index_) + "-" + std::to_string(++session_seq_);
  s->meter_start = c.register_wh;
  s->meter = c.register_wh;
  s->started_steady_ms = now;
  const double min_s = cfg_.meter_interval_s;
  const double dur_s =
      cfg_.mode == RunMode::Load ? 1e9 : std::max(min_s, rng_.exponential(cfg_.session_s));
  s->end_steady_ms = now + static_cast<int64_t>(dur_s * 1000);
  s->offline_start = state_ != State::Online;
  if (version_ == Version::v201)
    s->tx_id = "T" + std::to_string(index_) + "-" + std::to_string(session_seq_);
  if (rng_.chance(cfg_.faults.meter_reset))
    s->reset_at_tick = 1 + static_cast<int>(rng_.next() % 3);
  // Once per charge point: two -1 stops would share the business key (cp, "-1").
  if (version_ == Version::v16 && s->offline_start && !used_minus1_ &&
      rng_.chance(cfg_.faults.txid_minus1)) {
    s->minus1 = used_minus1_ = true;
  }
  c.session = s;
  c.last_tick_ms = now;
  c.fraction_wh = 0;

  if (!s->offline_start) {
    OutMsg a = make(MsgKind::Authorize, &connectors_[0]);
    a.session = s;
    outbox_.push_back(std::move(a));
  }
  OutMsg st = make(MsgKind::Start, &c);
  st.session = s;
  st.meter_wh = s->meter_start;
  st.tx_event = "Started";
  st.seq_no = s->seq_no++;
  s->start_ts = st.ts_ms;
  outbox_.push_back(std::move(st));
  OutMsg status = make(MsgKind::Status, &c);
  status.status = version_ == Version::v16 ? "Charging" : "Occupied";
  outbox_.push_back(std::move(status));
  c.next_ms =
      cfg_.mode == RunMode::Load ? -1 : now + static_cast<int64_t>(cfg_.meter_interval_s * 1000);
  // Queued together and only then sent: pump() may generate load frames for this session, and
  // they must come after its StartTransaction.
  if (state_ == State::Online) pump();
}

void ChargePoint::meter_tick(Connector& c, bool in_load) {
  auto& s = *c.session;
  const int64_t now = ctx_.now_ms();
  const int64_t power = power_at(s, now);
  c.fraction_wh +=
      static_cast<double>(power) * static_cast<double>(now - c.last_tick_ms) / 3600000.0;
  c.last_tick_ms = now;
  const auto whole = static_cast<int64_t>(c.fraction_wh);
  c.fraction_wh -= static_cast<double>(whole);
  c.register_wh += whole;
  if (++s.ticks == s.reset_at_tick) {
    c.register_wh = whole;  // the register restarted from zero
    s.anomaly = true;
    ++ctx_.truth.meter_resets;
  }
  s.meter = c.register_wh;
  OutMsg m = make(MsgKind::Meter, &c);
  m.session = c.session;
  m.power_w = power;
  m.tx_event = "Updated";
  m.seq_no = s.seq_no++;
  if (c.held) {
    OutMsg held = std::move(*c.held);
    c.held.reset();
    enqueue(std::move(m));
    enqueue(std::move(held));
    return;
  }
  if (!in_load && rng_.chance(cfg_.faults.out_of_order)) {
    ++ctx_.truth.out_of_order;
    c.held = std::move(m);
    return;
  }
  enqueue(std::move(m));
}

void ChargePoint::stop_session(Connector& c) {
  if (c.held) {
    enqueue(std::move(*c.held));
    c.held.reset();
  }
  auto s = c.session;
  const int64_t now = ctx_.now_ms();
  c.fraction_wh += static_cast<double>(power_at(*s, now)) *
                   static_cast<double>(now - c.last_tick_ms) / 3600000.0;
  c.last_tick_ms = now;
  const auto whole = static_cast<int64_t>(c.fraction_wh);
  c.fraction_wh -= static_cast<double>(whole);
  c.register_wh += whole;
  OutMsg m = make(MsgKind::Stop, &c);
  m.session = s;
  m.meter_wh = c.register_wh;
  m.tx_event = "Ended";
  m.seq_no = s->seq_no++;
  s->stop_queued = true;
  c.session.reset();
  enqueue(std::move(m));
  OutMsg status = make(MsgKind::Status, &c);
  status.status = "Available";
  enqueue(std::move(status));
  c.next_ms =
      ctx_.stopping || cfg_.mode == RunMode::Load || cfg_.sessions_per_hour <= 0
          ? -1
          : now + static_cast<int64_t>(rng_.exponential(3600000.0 / cfg_.sessions_per_hour));
}

// Load mode: one more frame of the MeterValues-heavy mix (90% MeterValues, 5% Heartbeat,
// 5% StatusNotification), spread over the connectors.
void ChargePoint::generate_load() {
  const int64_t now_ms = ctx_.now_ms();
  if (cfg_.rate > 0) {
    // Paced load: tokens at rate/count per second, bursts capped by the window.
    const double per_cp = cfg_.rate / cfg_.count;
    tokens_ = std::min(tokens_ + static_cast<double>(now_ms - last_token_ms_) * per_cp / 1000.0,
                       static_cast<double>(cfg_.max_inflight));
    last_token_ms_ = now_ms;
    if (tokens_ < 1) {
      next_token_ms_ = now_ms + 1 + static_cast<int64_t>((1 - tokens_) * 1000.0 / per_cp);
      return;
    }
    tokens_ -= 1;
    next_token_ms_ = -1;
  }
  const double r = rng_.uniform();
  // Heartbeats carry no timestamp (event time = receive time): two within one millisecond would
  // share a business key, so keep them apart.
  if (r < 0.05 && now_ms - last_load_hb_ms_ >= 5) {
    last_load_hb_ms_ = now_ms;
    outbox_.push_back(make(MsgKind::Heartbeat, &connectors_[0]));
    return;
  }
  const size_t n = connectors_.size() - 1;
  auto& c = connectors_[1 + (load_rr_++ % n)];
  if (!c.session) return;
  if (r < 0.10 && r >= 0.05) {
    OutMsg st = make(MsgKind::Status, &c);
    st.status = version_ == Version::v16 ? "Charging" : "Occupied";
    outbox_.push_back(std::move(st));
    return;
  }
  // meter_tick enqueues through enqueue(), which would re-enter pump(); build in place instead.
  auto& s = *c.session;
  const int64_t now = ctx_.now_ms();
  c.fraction_wh +=
      static_cast<double>(cfg_.max_power_w) * static_cast<double>(now - c.last_tick_ms) / 3600000.0;
  c.last_tick_ms = now;
  const auto whole = static_cast<int64_t>(c.fraction_wh);
  c.fraction_wh -= static_cast<double>(whole);
  c.register_wh += whole;
  s.meter = c.register_wh;
  OutMsg m = make(MsgKind::Meter, &c);
  m.session = c.session;
  m.power_w = static_cast<int64_t>(cfg_.max_power_w);
  m.tx_event = "Updated";
  m.seq_no = s.seq_no++;
  outbox_.push_back(std::move(m));
}

}  // namespace ocppgw::sim
