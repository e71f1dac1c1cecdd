// sim/truth.cpp: merging shard truths and their JSON summary.
#include "sim/truth.hpp"

#include <nlohmann/json.hpp>

namespace ocppgw::sim {

void Truth::merge(const Truth& o) {
  sessions.insert(sessions.end(), o.sessions.begin(), o.sessions.end());
  statuses.insert(statuses.end(), o.statuses.begin(), o.statuses.end());
  for (const auto& [k, v] : o.sent_by_action) sent_by_action[k] += v;
  for (const auto& [k, v] : o.acked_by_action) acked_by_action[k] += v;
  exact_resends += o.exact_resends;
  business_dups += o.business_dups;
  conflicts += o.conflicts;
  out_of_order += o.out_of_order;
  corrupt += o.corrupt;
  schema_invalid += o.schema_invalid;
  clock_skewed_cps += o.clock_skewed_cps;
  meter_resets += o.meter_resets;
  minus1_frames += o.minus1_frames;
  offline_periods += o.offline_periods;
  offline_frames += o.offline_frames;
  abrupt_disconnects += o.abrupt_disconnects;
  maybe_duplicates += o.maybe_duplicates;
  answered_resends_mismatch += o.answered_resends_mismatch;
  connector_statuses_unknown += o.connector_statuses_unknown;
}

nlohmann::json Truth::summary_json() const {
  int64_t completed = 0, exact = 0, anomalies = 0, minus1 = 0, energy_wh = 0;
  for (const auto& s : sessions) {
    completed += s.completed;
    anomalies += s.anomaly;
    minus1 += s.minus1;
    if (s.final_exact()) {
      ++exact;
      energy_wh += s.energy_wh();
    }
  }
  return {{"sessions", sessions.size()},
          {"sessions_completed", completed},
          {"sessions_final_exact", exact},
          {"sessions_meter_anomaly", anomalies},
          {"sessions_minus1", minus1},
          {"final_energy_wh", energy_wh},
          {"sent_by_action", sent_by_action},
          {"acked_by_action", acked_by_action},
          {"injected",
           {{"exact_resends", exact_resends},
            {"business_duplicates", business_dups},
            {"conflicts", conflicts},
            {"out_of_order", out_of_order},
            {"corrupt_frames", corrupt},
            {"schema_invalid", schema_invalid},
            {"clock_skewed_cps", clock_skewed_cps},
            {"meter_resets", meter_resets},
            {"minus1_frames", minus1_frames},
            {"offline_periods", offline_periods},
            {"offline_frames", offline_frames},
            {"abrupt_disconnects", abrupt_disconnects},
            {"maybe_duplicates", maybe_duplicates}}},
          {"start_resend_id_mismatch", answered_resends_mismatch}};
}

}  // namespace ocppgw::sim
