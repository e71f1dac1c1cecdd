// sim/charge_point_faults.cpp: every way a simulated charge point misbehaves on purpose (clock
// skew, offline periods, abrupt disconnects, reconnect storms, meter resets, transactionId -1,
// out-of-order readings, corrupt and schema-invalid frames, re-sends, duplicates, conflicts),
// each next to the ground-truth counter it implies. The rates come from SimConfig::faults; every
// draw uses the charge point's own Rng, so a run is reproducible per seed. Every member runs on
// the owning shard's io thread (see charge_point.hpp).
#include "sim/charge_point.hpp"

namespace ocppgw::sim {

// ---- per charge point ----

// Alternating signs put skewed clocks both ahead of and behind the gateway's.
void ChargePoint::maybe_skew_clock() {
  if (rng_.chance(cfg_.faults.clock_skew)) {
    skew_ms_ = static_cast<int64_t>(cfg_.faults.clock_skew_s * 1000) * (index_ % 2 ? 1 : -1);
    ++ctx_.truth.clock_skewed_cps;
  }
}

// ---- connection ----

// Offline periods and abrupt disconnects share one Poisson process; on_connection_fault picks
// which one each event is, in proportion to the two rates.
void ChargePoint::schedule_connection_faults() {
  if (next_fault_ms_ < 0 && !ctx_.stopping) {
    const double per_min = cfg_.faults.offline + cfg_.faults.disconnect;
    if (per_min > 0)
      next_fault_ms_ = ctx_.now_ms() + static_cast<int64_t>(rng_.exponential(60000.0 / per_min));
  }
}

void ChargePoint::on_connection_fault(int64_t now) {
  const auto& f = cfg_.faults;
  if (rng_.uniform() * (f.offline + f.disconnect) < f.offline) {
    // Taken by pump() once the window is empty.
    want_offline_ = state_ == State::Online;
  } else if (state_ == State::Online) {
    ++ctx_.truth.abrupt_disconnects;
    drop(true, 1000);
  }
  next_fault_ms_ =
      now + static_cast<int64_t>(rng_.exponential(60000.0 / (f.offline + f.disconnect)));
}

// A clean close; what the charge point generates meanwhile is queued and replayed on reconnect.
void ChargePoint::go_offline() {
  want_offline_ = false;
  ++ctx_.truth.offline_periods;
  drop(false, static_cast<int64_t>(cfg_.faults.offline_s * 1000));
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

// ---- sessions ----

void ChargePoint::draw_session_faults(Session& s) {
  if (rng_.chance(cfg_.faults.meter_reset)) s.reset_at_tick = 1 + static_cast<int>(rng_.next() % 3);
  // Once per charge point keeps most offline-started sessions ordinary ones, so both kinds are
  // exercised in every run.
  if (version_ == Version::v16 && s.offline_start && !used_minus1_ &&
      rng_.chance(cfg_.faults.txid_minus1)) {
    s.minus1 = used_minus1_ = true;
  }
}

// Counts the session's readings; at the drawn one the register restarts from zero, keeping
// only the energy of this tick.
void ChargePoint::maybe_reset_meter(Connector& c, int64_t whole_wh) {
  auto& s = *c.session;
  if (++s.ticks == s.reset_at_tick) {
    c.register_wh = whole_wh;
    s.anomaly = true;
    ++ctx_.truth.meter_resets;
  }
}

// A reading goes out in order unless the out-of-order fault holds it back; a held reading then
// follows the next one.
void ChargePoint::send_reading(Connector& c, OutMsg m) {
  if (c.held) {
    OutMsg held = std::move(*c.held);
    c.held.reset();
    enqueue(std::move(m));
    enqueue(std::move(held));
    return;
  }
  if (rng_.chance(cfg_.faults.out_of_order)) {
    ++ctx_.truth.out_of_order;
    c.held = std::move(m);
    return;
  }
  enqueue(std::move(m));
}

// ---- frames ----

void ChargePoint::maybe_send_probes(const OutMsg& m) {
  if (m.injected == Injected::None && !m.maybe_duplicate && m.kind != MsgKind::Boot) {
    if (rng_.chance(cfg_.faults.corrupt)) send_probe(true, m.text);
    if (rng_.chance(cfg_.faults.schema_invalid)) send_probe(false, m.text);
  }
}

// A probe takes no place in the CALL window: the gateway answers it with a CALLERROR, if at
// all, and the event log counts it as Invalid.
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

}  // namespace ocppgw::sim
