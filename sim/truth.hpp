// sim/truth.hpp: the ground truth of a run: what the fleet sent and what the gateway's tables
// must therefore contain. Each shard records into its own Truth on its own thread; the fleet
// merges them after the io threads have stopped.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace ocppgw::sim {

struct ExpectedSession {
  std::string cp_id;
  std::string tx_id;
  std::string version;
  int connector = 0;
  int64_t meter_start_wh = 0;
  int64_t meter_stop_wh = 0;
  int64_t start_ts_ms = 0;
  int64_t stop_ts_ms = 0;
  bool completed = false;  // a StopTransaction / Ended was acknowledged
  bool anomaly = false;    // meter reset inside the session: energy is not start/stop exact
  // Later frames carried transactionId -1. The gateway links them to this transaction (by
  // connector for readings, by the unique idTag for the stop), so the energy is still exact.
  bool minus1 = false;
  bool clock_skewed = false;
  // Energy the analytics session must report, when it is exact.
  bool final_exact() const { return completed && !anomaly; }
  int64_t energy_wh() const { return meter_stop_wh - meter_start_wh; }
};

struct ExpectedStatus {
  std::string cp_id;
  int connector = 0;
  std::string status;  // last status sent and acknowledged
  bool v201 = false;   // 2.0.1 statuses are keyed by evse (connector 1 of it)
};

struct Truth {
  std::vector<ExpectedSession> sessions;
  std::vector<ExpectedStatus> statuses;
  // Frames, keyed by OCPP action.
  std::map<std::string, int64_t> sent_by_action;   // every CALL we wrote (incl. injected)
  std::map<std::string, int64_t> acked_by_action;  // answered by CALLRESULT
  // Injected faults (each is one frame, i.e. one canonical event, unless said otherwise).
  int64_t exact_resends = 0;
  int64_t business_dups = 0;
  int64_t conflicts = 0;
  int64_t out_of_order = 0;
  int64_t corrupt = 0;
  int64_t schema_invalid = 0;
  int64_t clock_skewed_cps = 0;
  int64_t meter_resets = 0;
  int64_t minus1_frames = 0;
  int64_t offline_periods = 0;
  int64_t offline_frames = 0;  // frames generated while offline, replayed later
  int64_t abrupt_disconnects = 0;
  int64_t maybe_duplicates = 0;           // unanswered frames re-sent after a dropped connection
  int64_t answered_resends_mismatch = 0;  // re-sent StartTransaction got a different id
  int64_t connector_statuses_unknown = 0;

  void merge(const Truth& other);
  nlohmann::json summary_json() const;
};

}  // namespace ocppgw::sim
