// sim/charge_point_calls.cpp: the window of in-flight CALLs of one charge point. Frames leave
// the outbox in order, at most max_inflight unanswered at a time, and are serialised only then
// so a 1.6 frame queued before its StartTransaction was answered still carries the transaction
// id the gateway assigned. The ground truth is updated only from what the gateway acknowledged,
// so it states what the gateway's tables must contain. Every member runs on the owning shard's
// io thread (see charge_point.hpp).
#include "sim/charge_point.hpp"

#include <algorithm>
#include <optional>

#include <nlohmann/json.hpp>

namespace ocppgw::sim {
namespace {

// The parts of an inbound OCPP-J frame we need, found without building a JSON tree: only boot
// and 1.6 start answers need their payload, and those are parsed where they are handled.
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

}  // namespace

// ---- sending ----

// A 1.6 reading or stop cannot be spelled before the gateway has assigned the transaction id.
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
  // An offline period begins only once every CALL in flight was answered, so none of them is
  // left ambiguous by the close.
  if (want_offline_ && pending_.empty() && state_ == State::Online) {
    go_offline();
    return;
  }
  update_busy();
}

void ChargePoint::send_call(OutMsg m) {
  if (m.message_id.empty()) {
    m.message_id = next_message_id();
    m.text = build_call(m, version_, m.message_id, id_);
    if (m.offline) ++ctx_.truth.offline_frames;
  }
  // Counted per write, exact re-sends included: each written copy is handled and flagged.
  if (m.session && m.session->minus1 && (m.kind == MsgKind::Meter || m.kind == MsgKind::Stop))
    ++ctx_.truth.minus1_frames;
  maybe_send_probes(m);
  ++ctx_.truth.sent_by_action[std::string(call_action(m, version_))];
  ctx_.stats.frames_sent.add();
  transport_->send(m.text);
  pending_.push_back({std::move(m), std::chrono::steady_clock::now()});
}

// Calls unanswered for too long are given up so the window moves on; a lost boot is retried at
// once because nothing else may be sent before it.
void ChargePoint::expire_calls(int64_t now) {
  const auto limit = std::chrono::steady_clock::now() -
                     std::chrono::milliseconds(static_cast<int64_t>(cfg_.call_timeout_s * 1000));
  while (!pending_.empty() && pending_.front().sent <= limit) {
    ctx_.timeouts.add();
    if (pending_.front().msg.kind == MsgKind::Boot) boot_retry_ms_ = now;
    pending_.erase(pending_.begin());
  }
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
    on_csms_call(text);
    return;
  }
  auto it = std::find_if(pending_.begin(), pending_.end(),
                         [&](const Pending& p) { return p.msg.message_id == s->id; });
  if (it == pending_.end()) {
    // Probes are not in the window: their answers carry ids we never kept.
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

// A CALL of the gateway is answered as configured, at once or after the delay (kept in order:
// OCPP-J allows one outstanding CALL per direction, so there is at most one in practice).
void ChargePoint::on_csms_call(std::string_view text) {
  ctx_.stats.csms_calls.add();
  auto answer = answer_csms_call(text, version_, cfg_.csms_answer);
  if (!answer) return;
  if (cfg_.csms_answer_delay_ms <= 0) {
    transport_->send(std::move(*answer));
    return;
  }
  delayed_answers_.push_back(
      {ctx_.now_ms() + static_cast<int64_t>(cfg_.csms_answer_delay_ms), std::move(*answer)});
  arm();
}

void ChargePoint::send_due_answers(int64_t now) {
  while (!delayed_answers_.empty() && delayed_answers_.front().due_ms <= now) {
    if (transport_ && state_ == State::Online)
      transport_->send(std::move(delayed_answers_.front().text));
    delayed_answers_.pop_front();
  }
}

void ChargePoint::on_result(Pending& p, std::string_view text) {
  OutMsg& m = p.msg;
  ++ctx_.truth.acked_by_action[std::string(call_action(m, version_))];
  switch (m.kind) {
    case MsgKind::Boot:
      on_boot_answer(text);
      break;
    case MsgKind::Start:
      on_start_answer(*m.session, text);
      break;
    case MsgKind::Stop:
      on_stop_answer(m);
      break;
    case MsgKind::Status:
      on_status_answer(m);
      break;
    default:
      break;
  }
  if (m.injected == Injected::None && !m.maybe_duplicate) after_ack_faults(m);
}

void ChargePoint::on_boot_answer(std::string_view text) {
  const auto j = nlohmann::json::parse(text, nullptr, false);
  const bool accepted = j.is_array() && j.size() >= 3 && j[2].value("status", "") == "Accepted";
  if (!accepted) {
    boot_retry_ms_ = ctx_.now_ms() + 2000;
    return;
  }
  booted_ = true;
  ctx_.stats.booted.add();
  // Statuses go out before anything that waited for the boot (storm backlog).
  const size_t first = version_ == Version::v16 ? 0 : 1;  // 2.0.1 has no connector 0
  for (size_t i = connectors_.size(); i-- > first;) {
    auto& c = connectors_[i];
    OutMsg st = make(MsgKind::Status, &c);
    st.status = std::string(c.session ? occupied_status(version_) : "Available");
    outbox_.push_front(std::move(st));
  }
  const int64_t now = ctx_.now_ms();
  // A random phase keeps a fleet that booted together from sending its heartbeats in step.
  if (cfg_.heartbeat_s > 0 && next_hb_ms_ < 0 && !ctx_.stopping)
    next_hb_ms_ = now + static_cast<int64_t>(rng_.uniform() * cfg_.heartbeat_s * 1000);
  schedule_sessions(now);
}

// The first acknowledged start of a session creates its row in the ground truth; an exact
// re-send of it must not create a second one.
void ChargePoint::on_start_answer(Session& s, std::string_view text) {
  if (version_ == Version::v16) {
    // 1.6: the gateway assigns the transaction id; 2.0.1 sessions carry their own.
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
}

void ChargePoint::on_stop_answer(const OutMsg& m) {
  const auto& s = *m.session;
  if (s.truth_index < 0) return;
  auto& e = ctx_.truth.sessions[static_cast<size_t>(s.truth_index)];
  e.completed = true;
  e.meter_stop_wh = m.meter_wh;
  e.stop_ts_ms = m.ts_ms;
  e.anomaly = s.anomaly;
}

// The analytics store keeps the status with the latest device timestamp, so an answer that
// arrives late must not overwrite a newer status. Injected copies only repeat a status that
// its original already recorded.
void ChargePoint::on_status_answer(const OutMsg& m) {
  auto& c = connectors_[static_cast<size_t>(m.connector)];
  if (m.ts_ms >= c.acked_status_ts && m.injected == Injected::None) {
    c.acked_status = m.status;
    c.acked_status_ts = m.ts_ms;
  }
}

}  // namespace ocppgw::sim
