// sim/charge_point_sessions.cpp: the charging sessions of one charge point and the frames they
// produce: arrivals, starts, meter readings on a power curve, stops, and the MeterValues-heavy
// traffic of load mode. Frames are queued as version-neutral specs (OutMsg); the CALL window
// (charge_point_calls.cpp) sends them. Every member runs on the owning shard's io thread (see
// charge_point.hpp).
#include "sim/charge_point.hpp"

#include <algorithm>

#include "util/time.hpp"

namespace ocppgw::sim {

// ---- frames ----

int64_t ChargePoint::device_ts(Connector* c) {
  int64_t t = util::now_ms() + skew_ms_;
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

// ---- schedule ----

// After a boot: load mode charges on every connector at once, fleet mode draws each
// connector's first arrival.
void ChargePoint::schedule_sessions(int64_t now) {
  for (size_t i = 1; i < connectors_.size(); ++i) {
    auto& c = connectors_[i];
    if (ctx_.stopping || c.session || c.next_ms >= 0) continue;
    if (cfg_.mode == RunMode::Load) {
      start_session(c);
    } else if (cfg_.sessions_per_hour > 0) {
      c.next_ms = now + static_cast<int64_t>(rng_.exponential(3600000.0 / cfg_.sessions_per_hour));
    }
  }
}

// Fleet mode: each connector's deadline is its next arrival, meter reading or planned stop.
void ChargePoint::advance_sessions(int64_t now) {
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

// ---- energy ----

// Full power for 70% of the session, then a linear taper to 20%, like a battery near full.
int64_t ChargePoint::power_at(const Session& s, int64_t now) const {
  const double total = static_cast<double>(s.end_steady_ms - s.started_steady_ms);
  const double x = total > 0 ? static_cast<double>(now - s.started_steady_ms) / total : 0;
  const double factor = x < 0.7 ? 1.0 : std::max(0.2, 1.0 - (x - 0.7) / 0.3 * 0.8);
  return static_cast<int64_t>(cfg_.max_power_w * factor);
}

// The register counts whole Wh, as a real meter does; the fraction carries over to the next
// reading so no energy is lost to rounding. Returns the Wh added.
int64_t ChargePoint::advance_register(Connector& c, double power_w, int64_t now) {
  c.fraction_wh += power_w * static_cast<double>(now - c.last_tick_ms) / 3600000.0;
  c.last_tick_ms = now;
  const auto whole = static_cast<int64_t>(c.fraction_wh);
  c.fraction_wh -= static_cast<double>(whole);
  c.register_wh += whole;
  return whole;
}

// ---- sessions ----

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
  // 1.6 transaction ids are the gateway's; a 2.0.1 charge point names its own.
  if (version_ == Version::v201)
    s->tx_id = "T" + std::to_string(index_) + "-" + std::to_string(session_seq_);
  draw_session_faults(*s);
  c.session = s;
  c.last_tick_ms = now;
  c.fraction_wh = 0;

  // An offline charge point cannot ask for authorisation and starts on its local list.
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
  status.status = std::string(occupied_status(version_));
  outbox_.push_back(std::move(status));
  c.next_ms =
      cfg_.mode == RunMode::Load ? -1 : now + static_cast<int64_t>(cfg_.meter_interval_s * 1000);
  // Queued together and only then sent: pump() may generate load frames for this session, and
  // they must come after its StartTransaction.
  if (state_ == State::Online) pump();
}

void ChargePoint::meter_tick(Connector& c) {
  auto& s = *c.session;
  const int64_t now = ctx_.now_ms();
  const int64_t power = power_at(s, now);
  const int64_t whole = advance_register(c, static_cast<double>(power), now);
  maybe_reset_meter(c, whole);
  s.meter = c.register_wh;
  OutMsg m = make(MsgKind::Meter, &c);
  m.session = c.session;
  m.power_w = power;
  m.tx_event = "Updated";
  m.seq_no = s.seq_no++;
  send_reading(c, std::move(m));
}

void ChargePoint::stop_session(Connector& c) {
  // A reading held back by the out-of-order fault belongs before the stop that ends its session.
  if (c.held) {
    enqueue(std::move(*c.held));
    c.held.reset();
  }
  auto s = c.session;
  const int64_t now = ctx_.now_ms();
  advance_register(c, static_cast<double>(power_at(*s, now)), now);
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

// ---- load mode ----

// Paced load: tokens at rate/count per second, bursts capped by the window. Without a token the
// next one's arrival is armed, since no answer may come to call pump() again.
bool ChargePoint::take_load_token(int64_t now) {
  const double per_cp = cfg_.rate / cfg_.count;
  tokens_ = std::min(tokens_ + static_cast<double>(now - last_token_ms_) * per_cp / 1000.0,
                     static_cast<double>(cfg_.max_inflight));
  last_token_ms_ = now;
  if (tokens_ < 1) {
    next_token_ms_ = now + 1 + static_cast<int64_t>((1 - tokens_) * 1000.0 / per_cp);
    return false;
  }
  tokens_ -= 1;
  next_token_ms_ = -1;
  return true;
}

// One more frame of the MeterValues-heavy mix (90% MeterValues, 5% Heartbeat,
// 5% StatusNotification), spread over the connectors.
void ChargePoint::generate_load() {
  const int64_t now_ms = ctx_.now_ms();
  if (cfg_.rate > 0 && !take_load_token(now_ms)) return;
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
    st.status = std::string(occupied_status(version_));
    outbox_.push_back(std::move(st));
    return;
  }
  // meter_tick enqueues through enqueue(), which would re-enter pump(); build in place instead.
  auto& s = *c.session;
  const int64_t now = ctx_.now_ms();
  advance_register(c, cfg_.max_power_w, now);
  s.meter = c.register_wh;
  OutMsg m = make(MsgKind::Meter, &c);
  m.session = c.session;
  m.power_w = static_cast<int64_t>(cfg_.max_power_w);
  m.tx_event = "Updated";
  m.seq_no = s.seq_no++;
  outbox_.push_back(std::move(m));
}

}  // namespace ocppgw::sim
