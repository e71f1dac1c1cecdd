// sim/charge_point.hpp: one simulated charge point: connection life cycle (connect, boot,
// offline periods, abrupt drops, storms), the sessions on its connectors, the in-flight window
// of CALLs, fault injection and the ground truth it implies.
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

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "sim/config.hpp"
#include "sim/messages.hpp"
#include "sim/stats.hpp"
#include "sim/transport.hpp"
#include "sim/truth.hpp"

namespace ocppgw::sim {

// Small per-charge-point PRNG (splitmix64): 8 bytes instead of a 2.5 KB mt19937 each.
struct Rng {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  bool chance(double p) { return p > 0 && uniform() < p; }
  double exponential(double mean);
};

// What every charge point of a shard shares.
struct ShardContext {
  ShardContext(boost::asio::io_context& io, boost::asio::ssl::context* ssl_ctx,
               const SimConfig& cfg, const std::vector<Target>& tgts,
               const std::vector<boost::asio::ip::address>& srcs, ShardStats& st, Truth& tr,
               std::chrono::steady_clock::time_point start)
      : ioc(io),
        ssl(ssl_ctx),
        config(cfg),
        targets(tgts),
        sources(srcs),
        stats(st),
        truth(tr),
        t0(start) {}
  boost::asio::io_context& ioc;
  boost::asio::ssl::context* ssl = nullptr;
  const SimConfig& config;
  const std::vector<Target>& targets;
  const std::vector<boost::asio::ip::address>& sources;
  ShardStats& stats;
  Truth& truth;
  std::chrono::steady_clock::time_point t0;
  bool stopping = false;
  Counter storm_pending;  // charge points of this shard still draining a storm
  Counter unmatched;      // answers for message ids we did not have outstanding
  Counter timeouts;
  int64_t now_ms() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                 t0)
        .count();
  }
};

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

  // TransportOwner
  void on_open() override;
  void on_frame(std::string_view text) override;
  void on_closed(const boost::system::error_code& ec, bool was_open) override;

  void on_result(Pending& p, std::string_view text);
  void after_ack_faults(const OutMsg& m);
  void pump();
  void send_call(OutMsg m);
  void send_probe(bool corrupt, const std::string& valid_text);
  void drop(bool abrupt, int64_t reconnect_after_ms);
  void requeue_pending();
  void arm();
  void on_timer();
  void update_busy();

  void start_session(Connector& c);
  void meter_tick(Connector& c, bool in_load = false);
  void stop_session(Connector& c);
  void enqueue(OutMsg m);
  void generate_load();
  OutMsg make(MsgKind kind, Connector* c);
  int64_t device_ts(Connector* c);
  std::string next_message_id() { return std::to_string(++message_seq_); }
  bool waits_for_tx_id(const OutMsg& m) const;
  int64_t power_at(const Session& s, int64_t now) const;

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
};

}  // namespace ocppgw::sim
