// sim/charge_point.hpp: one simulated charge point: its connection, the sessions on its
// connectors, its window of in-flight CALLs, the faults it injects and the ground truth those
// imply. The class is implemented in four files, one job each:
//   charge_point.cpp           connection life cycle (connect, boot, offline, close) and the
//                              one timer that drives every schedule
//   charge_point_calls.cpp     the CALL window: outbox to wire, answers back to the truth;
//                              answers to the gateway's own CALLs
//   charge_point_sessions.cpp  sessions: arrivals, meter readings, energy, load-mode traffic
//   charge_point_faults.cpp    every deliberate misbehaviour and the truth counters it implies
// Threading: a ChargePoint belongs to one shard and every member runs on that shard's single
// io thread (no strand, no lock). One steady_timer per charge point drives all its schedules.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/steady_timer.hpp>

#include "sim/config.hpp"
#include "sim/messages.hpp"
#include "sim/rng.hpp"
#include "sim/shard_context.hpp"
#include "sim/transport.hpp"

namespace ocppgw::sim {

class ChargePoint final : public TransportOwner {
 public:
  ChargePoint(ShardContext& ctx, int index, std::string id, Version version, uint64_t seed);
  ~ChargePoint();
  ChargePoint(const ChargePoint&) = delete;
  ChargePoint& operator=(const ChargePoint&) = delete;

  void connect();
  void storm();         // drop the connection and reconnect at once with boot + backlog
  void begin_stop();    // end of the run: stop sessions, come back online, drain
  void close();         // final clean close
  void record_truth();  // connector statuses (sessions are recorded as they are answered)
  bool busy() const { return busy_; }
  // One line on why the charge point is still busy (printed when a drain times out).
  std::string describe() const;
  const std::string& id() const { return id_; }

 private:
  enum class State { Idle, Connecting, Online, Offline, Closed };

  struct Connector {
    int id = 0;
    std::shared_ptr<Session> session;
    int64_t register_wh = 0;
    double fraction_wh = 0;
    int64_t next_ms = -1;  // next arrival, meter tick or stop; -1: nothing scheduled
    int64_t last_tick_ms = 0;
    int64_t last_ts = 0;
    std::optional<OutMsg> held;  // out-of-order fault
    std::string acked_status;
    int64_t acked_status_ts = 0;
  };

  struct Pending {
    OutMsg msg;
    std::chrono::steady_clock::time_point sent;
  };

  // An answer to a CALL of the gateway, held for --csms-answer-delay.
  struct DelayedAnswer {
    int64_t due_ms;
    std::string text;
  };

  // ---- charge_point.cpp: connection life cycle and schedule ----
  void on_open() override;
  void on_closed(const boost::system::error_code& ec, bool was_open) override;
  void drop(bool abrupt, int64_t reconnect_after_ms);
  void requeue_pending();
  void update_busy();
  void arm();
  void on_timer();

  // ---- charge_point_calls.cpp: the CALL window ----
  void on_frame(std::string_view text) override;
  void on_csms_call(std::string_view text);
  void send_due_answers(int64_t now);
  void on_result(Pending& p, std::string_view text);
  void on_boot_answer(std::string_view text);
  void on_start_answer(Session& s, std::string_view text);
  void on_stop_answer(const OutMsg& m);
  void on_status_answer(const OutMsg& m);
  void pump();
  void send_call(OutMsg m);
  void expire_calls(int64_t now);
  std::string next_message_id() { return std::to_string(++message_seq_); }
  bool waits_for_tx_id(const OutMsg& m) const;

  // ---- charge_point_sessions.cpp: sessions and the frames they produce ----
  OutMsg make(MsgKind kind, Connector* c);
  int64_t device_ts(Connector* c);
  void enqueue(OutMsg m);
  void schedule_sessions(int64_t now);
  void advance_sessions(int64_t now);
  void start_session(Connector& c);
  void meter_tick(Connector& c);
  void stop_session(Connector& c);
  int64_t power_at(const Session& s, int64_t now) const;
  int64_t advance_register(Connector& c, double power_w, int64_t now);
  bool take_load_token(int64_t now);
  void generate_load();

  // ---- charge_point_faults.cpp: injected faults ----
  void maybe_skew_clock();
  void schedule_connection_faults();
  void on_connection_fault(int64_t now);
  void go_offline();
  void draw_session_faults(Session& s);
  void maybe_reset_meter(Connector& c, int64_t whole_wh);
  void send_reading(Connector& c, OutMsg m);
  void maybe_send_probes(const OutMsg& m);
  void send_probe(bool corrupt, const std::string& valid_text);
  void after_ack_faults(const OutMsg& m);

  ShardContext& ctx_;
  const SimConfig& cfg_;
  int index_;
  std::string id_;
  Version version_;
  Rng rng_;
  int64_t skew_ms_ = 0;
  State state_ = State::Idle;
  bool booted_ = false;
  bool busy_ = false;
  bool want_offline_ = false;
  bool storm_active_ = false;
  bool counted_connected_ = false;
  uint64_t message_seq_ = 0;
  uint64_t session_seq_ = 0;
  size_t load_rr_ = 0;
  int probes_outstanding_ = 0;
  bool used_minus1_ = false;
  double tokens_ = 0;
  int64_t last_token_ms_ = 0;
  int64_t next_token_ms_ = -1;
  int64_t last_load_hb_ms_ = -1000;
  int64_t next_hb_ms_ = -1;
  int64_t next_fault_ms_ = -1;
  int64_t reconnect_ms_ = -1;
  int64_t boot_retry_ms_ = -1;
  int64_t armed_ms_ = -1;
  std::shared_ptr<Transport> transport_;
  boost::asio::steady_timer timer_;
  std::vector<Connector> connectors_;  // index 0 is the charge point itself
  std::deque<OutMsg> outbox_;
  std::vector<Pending> pending_;
  std::deque<DelayedAnswer> delayed_answers_;  // due in order: the delay is the same for all
};

}  // namespace ocppgw::sim
