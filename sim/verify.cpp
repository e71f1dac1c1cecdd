// sim/verify.cpp: the ground-truth checks. SQL lives in store_queries.hpp; this file only says
// what must equal what. Counts that a dropped connection can make ambiguous (a frame written
// just before an abrupt close may or may not have reached the gateway) are checked as ranges
// whose width is the number of such frames, and the report says so.
#include "sim/verify.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <thread>

#include "sim/store_queries.hpp"
#include "storage/db.hpp"

namespace ocppgw::sim {
namespace {

using storage::Db;

std::unique_ptr<Db> open_ro(const std::string& path, std::string* error) {
  if (path.empty() || !std::filesystem::exists(path)) {
    *error = path.empty() ? "not given" : path + " does not exist";
    return nullptr;
  }
  storage::Status st;
  storage::OpenOptions o;
  o.read_only = true;
  auto db = Db::open(path, o, &st);
  if (!db) *error = st.message();
  return db;
}

std::optional<int64_t> scalar(Db& db, std::string_view q) {
  storage::Status st;
  auto* stmt = db.cached(q, &st);
  if (!stmt || !stmt->step()) return std::nullopt;
  auto v = stmt->opt_int64(0);
  stmt->reset();
  return v;
}

std::map<std::string, int64_t> grouped(Db& db, std::string_view q, bool* ok) {
  std::map<std::string, int64_t> out;
  storage::Status st;
  auto* stmt = db.cached(q, &st);
  *ok = stmt != nullptr;
  if (!stmt) return out;
  while (stmt->step()) out[stmt->opt_text(0).value_or("")] = stmt->int64(1);
  *ok = stmt->status().ok();
  stmt->reset();
  return out;
}

std::string norm_status(std::string s) {
  std::string out;
  for (char c : s)
    if (c != '_' && c != ' ') out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

struct Checks {
  Verification v;
  void exact(std::string name, int64_t expected, int64_t actual, std::string detail = {}) {
    v.checks.push_back({std::move(name),
                        expected == actual ? Check::Outcome::Pass : Check::Outcome::Fail,
                        std::to_string(expected), std::to_string(actual), std::move(detail)});
  }
  void range(std::string name, int64_t lo, int64_t hi, int64_t actual, std::string detail = {}) {
    v.checks.push_back(
        {std::move(name),
         actual >= lo && actual <= hi ? Check::Outcome::Pass : Check::Outcome::Fail,
         lo == hi ? std::to_string(lo) : "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]",
         std::to_string(actual), std::move(detail)});
  }
  void skip(std::string name, std::string why) {
    v.checks.push_back({std::move(name), Check::Outcome::Skip, "", "", std::move(why)});
  }
  void boolean(std::string name, bool ok, std::string detail) {
    v.checks.push_back({std::move(name), ok ? Check::Outcome::Pass : Check::Outcome::Fail, "", "",
                        std::move(detail)});
  }
};

// ---- the gateway's event log ----

// -1 frames are linked to their transaction (their energy is checked with every other session);
// what could not be linked has a session of its own, flagged, and nothing is merged into "-1".
void check_minus1_linking(Checks& ck, Db& gw, const Truth& truth) {
  const int64_t linked = scalar(gw, sql::kLinkedEvents).value_or(-1);
  ck.range("event_log.minus1_linked", 1, truth.minus1_frames + truth.maybe_duplicates, linked,
           "frames with transactionId -1 linked to their transaction (TRANSACTION_LINKED_*)");
  ck.exact("event_log.minus1_not_merged", 0, scalar(gw, sql::kMergedMinus1Events).value_or(-1),
           "events left in one shared transaction '-1'");
  ck.exact("event_log.minus1_unlinked_flagged", 0,
           scalar(gw, sql::kUnflaggedSyntheticEvents).value_or(-1),
           "unlinked -1 sessions ('-1:...') without OFFLINE_TRANSACTION");
}

// Every acknowledged frame is logged; at most every written frame is.
void check_event_log(Checks& ck, Db& gw, const Truth& truth, int64_t answered_probes) {
  bool ok = false;
  const auto logged = grouped(gw, sql::kEventsByAction, &ok);
  if (!ok) {
    ck.skip("event_log_by_action", "events table not readable");
  } else {
    for (const auto& [action, sent] : truth.sent_by_action) {
      const auto acked = truth.acked_by_action.count(action) ? truth.acked_by_action.at(action) : 0;
      const auto it = logged.find(action);
      ck.range("event_log." + action, acked, sent, it == logged.end() ? 0 : it->second,
               "events logged for this action: >= acknowledged, <= written");
    }
  }
  const int64_t probes = truth.corrupt + truth.schema_invalid;
  if (auto invalid = scalar(gw, sql::kInvalidEvents)) {
    ck.range("event_log.Invalid", std::min(answered_probes, probes), probes, *invalid,
             "corrupt + schema-invalid frames (lower bound: those the gateway answered)");
  }
  if (truth.minus1_frames > 0) {
    gw.cached(sql::kFlaggedEvents).reset();
    auto& st = gw.cached(sql::kFlaggedEvents);
    st.bind(1, sql::kFlagOfflineTransaction);
    const int64_t flagged = st.step() ? st.int64(0) : -1;
    st.reset();
    ck.range("event_log.flag_offline_transaction", 1, truth.minus1_frames + truth.maybe_duplicates,
             flagged, "frames with transactionId -1 are flagged OFFLINE_TRANSACTION");
    check_minus1_linking(ck, gw, truth);
  }
}

// 1.6 transactions: the gateway's own record of meter start/stop.
void check_transactions16(Checks& ck, Db& gw, const Truth& truth) {
  int64_t checked = 0, bad = 0;
  std::string first_bad;
  storage::Status st;
  auto* stmt = gw.cached(sql::kTransaction16, &st);
  if (!stmt) {
    ck.skip("transactions16", "table not readable: " + st.message());
    return;
  }
  for (const auto& s : truth.sessions) {
    if (s.version != "1.6") continue;
    ++checked;
    stmt->bind(1, s.cp_id).bind(2, static_cast<int64_t>(std::stoll(s.tx_id)));
    bool good = stmt->step() && stmt->int64(0) == s.meter_start_wh;
    if (good && s.completed) good = stmt->opt_int64(1) == s.meter_stop_wh;
    stmt->reset();
    if (!good && bad++ == 0) first_bad = s.cp_id + "/" + s.tx_id;
  }
  ck.exact("transactions16.meter_start_stop", 0, bad,
           std::to_string(checked) + " sessions checked" +
               (first_bad.empty() ? "" : ", first mismatch " + first_bad));
}

// ---- the analytics store ----

// The pipeline runs behind the sink: wait (up to 30 s) until it has taken every logged event.
// Returns the pipeline's raw total.
int64_t check_caught_up(Checks& ck, Db& gw, Db& an) {
  const auto events = scalar(gw, sql::kEventCount).value_or(-1);
  int64_t raw = -1;
  for (int i = 0; i < 300; ++i) {
    raw = scalar(an, sql::kRawTotal).value_or(-1);
    if (raw >= events) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ck.exact("analytics.caught_up", events, raw, "pipeline raw_total vs gateway events");
  return raw;
}

// Every raw event ends in exactly one of silver, duplicates or quarantine.
void check_conservation(Checks& ck, Db& an, int64_t raw) {
  storage::Status st;
  auto* c = an.cached(sql::kConservation, &st);
  if (c && c->step()) {
    const int64_t s = c->int64(0), d = c->int64(1), q = c->int64(2);
    c->reset();
    ck.exact("analytics.conservation", raw, s + d + q,
             "raw = silver " + std::to_string(s) + " + duplicates " + std::to_string(d) +
                 " + quarantine " + std::to_string(q));
  } else {
    ck.skip("analytics.conservation", "table_counts not readable");
  }
}

int64_t count_of(const std::map<std::string, int64_t>& m, std::string_view key) {
  auto it = m.find(std::string(key));
  return it == m.end() ? int64_t{0} : it->second;
}

void check_duplicates(Checks& ck, Db& an, const Truth& truth) {
  bool ok = false;
  const auto dups = grouped(an, sql::kDuplicatesByType, &ok);
  ck.range("analytics.technical_duplicates", truth.exact_resends,
           truth.exact_resends + truth.maybe_duplicates, count_of(dups, sql::kDuplicateTechnical),
           "exact re-sends (+ frames re-sent after a dropped connection)");
  ck.exact("analytics.business_duplicates", truth.business_dups,
           count_of(dups, sql::kDuplicateBusiness), "MeterValues re-sent with a new message id");
}

void check_quarantine(Checks& ck, Db& gw, Db& an, const Truth& truth) {
  bool ok = false;
  const auto quarantine = grouped(an, sql::kQuarantineByReason, &ok);
  ck.range("analytics.quarantine.CONFLICT", 2 * truth.conflicts,
           2 * truth.conflicts + truth.maybe_duplicates, count_of(quarantine, sql::kReasonConflict),
           "both readings of each conflicting key are quarantined");
  const int64_t invalid_logged = scalar(gw, sql::kInvalidEvents).value_or(-1);
  ck.exact("analytics.quarantine.CORRUPT_PAYLOAD", invalid_logged,
           count_of(quarantine, sql::kReasonCorrupt), "every Invalid event of the log");
  for (const auto& [reason, n] : quarantine) {
    if (reason != sql::kReasonConflict && reason != sql::kReasonCorrupt)
      ck.exact("analytics.quarantine." + reason, 0, n, "no fault injects this reason");
  }
}

// Sessions: every final session's energy, exactly. A session with a meter reset has no exact
// energy; it must be flagged instead, and never report negative energy.
void check_sessions(Checks& ck, Db& an, const Truth& truth) {
  int64_t checked = 0, bad = 0, anomalies = 0, anomaly_bad = 0;
  int64_t minus1_checked = 0, minus1_bad = 0;  // the subset whose frames carried -1
  std::string first_bad;
  auto& stmt = an.cached(sql::kSession);
  for (const auto& s : truth.sessions) {
    if (!s.final_exact() && !(s.completed && s.anomaly)) continue;
    stmt.bind(1, s.cp_id).bind(2, s.tx_id);
    const bool found = stmt.step();
    if (s.final_exact()) {
      ++checked;
      const auto kwh = found ? stmt.opt_real(0) : std::nullopt;
      const bool good = found && kwh &&
                        std::fabs(*kwh - static_cast<double>(s.energy_wh()) / 1000.0) < 1e-9 &&
                        stmt.int64(1) == 1 && stmt.text(2) == sql::kSessionCompleted;
      minus1_checked += s.minus1;
      minus1_bad += s.minus1 && !good;
      if (!good && bad++ < 3) {
        first_bad += s.cp_id + "/" + s.tx_id + " expected " + std::to_string(s.energy_wh()) +
                     " Wh got " +
                     (found ? (kwh ? std::to_string(*kwh * 1000) + " Wh " + stmt.text(2) : "null")
                            : "no row") +
                     "; ";
      }
    } else {
      ++anomalies;
      const auto kwh = found ? stmt.opt_real(0) : std::nullopt;
      const bool good = found && (!kwh || *kwh >= 0) &&
                        stmt.text(3).find(sql::kFlagMeterAnomaly) != std::string::npos;
      anomaly_bad += !good;
    }
    stmt.reset();
  }
  if (minus1_checked > 0)
    ck.exact("analytics.sessions.minus1_final_energy", 0, minus1_bad,
             std::to_string(minus1_checked) + " sessions with transactionId -1 frames compared");
  ck.exact("analytics.sessions.final_energy", 0, bad,
           std::to_string(checked) + " final sessions compared" +
               (first_bad.empty() ? "" : "; " + first_bad));
  if (anomalies > 0)
    ck.exact("analytics.sessions.meter_reset_flagged", 0, anomaly_bad,
             std::to_string(anomalies) +
                 " sessions with a meter reset: METER_ANOMALY, no negative energy");
}

// Connector current status: the last status each charge point had acknowledged.
void check_connector_status(Checks& ck, Db& an, const Truth& truth) {
  int64_t bad = 0;
  std::string first_bad;
  auto& stmt = an.cached(sql::kConnectorStatus);
  for (const auto& e : truth.statuses) {
    const bool is201 = e.v201;
    stmt.bind(1, e.cp_id).bind(2, is201 ? e.connector : 0).bind(3, is201 ? 1 : e.connector);
    const bool good = stmt.step() && norm_status(stmt.text(0)) == norm_status(e.status);
    stmt.reset();
    if (!good && bad++ == 0)
      first_bad = e.cp_id + "#" + std::to_string(e.connector) + " " + e.status;
  }
  ck.exact("analytics.connector_current_status", 0, bad,
           std::to_string(truth.statuses.size()) + " connectors" +
               (first_bad.empty() ? "" : ", first mismatch " + first_bad));
}

}  // namespace

int Verification::passed() const {
  return static_cast<int>(std::count_if(checks.begin(), checks.end(),
                                        [](auto& c) { return c.outcome == Check::Outcome::Pass; }));
}
int Verification::failed() const {
  return static_cast<int>(std::count_if(checks.begin(), checks.end(),
                                        [](auto& c) { return c.outcome == Check::Outcome::Fail; }));
}
int Verification::skipped() const {
  return static_cast<int>(std::count_if(checks.begin(), checks.end(),
                                        [](auto& c) { return c.outcome == Check::Outcome::Skip; }));
}

nlohmann::json Verification::to_json() const {
  auto arr = nlohmann::json::array();
  for (const auto& c : checks) {
    arr.push_back({{"name", c.name},
                   {"outcome", c.outcome == Check::Outcome::Pass   ? "pass"
                               : c.outcome == Check::Outcome::Fail ? "fail"
                                                                   : "skip"},
                   {"expected", c.expected},
                   {"actual", c.actual},
                   {"detail", c.detail}});
  }
  return {{"passed", passed()}, {"failed", failed()}, {"skipped", skipped()}, {"checks", arr}};
}

Verification verify(const SimConfig& config, const Truth& truth, int64_t answered_probes) {
  Checks ck;
  ck.exact("start_resend_same_transaction_id", 0, truth.answered_resends_mismatch,
           "a re-sent identical StartTransaction must get the id it got the first time");

  std::string error;
  auto gw = open_ro(config.gateway_db, &error);
  if (!gw) {
    ck.skip("gateway_event_log", "--gateway-db: " + error);
    return ck.v;
  }
  check_event_log(ck, *gw, truth, answered_probes);
  check_transactions16(ck, *gw, truth);

  auto an = open_ro(config.analytics_db, &error);
  if (!an || !scalar(*an, sql::kRawTotal)) {
    ck.skip("analytics", "--analytics-db: " + (an ? std::string("no pipeline_state yet") : error));
    return ck.v;
  }
  const int64_t raw = check_caught_up(ck, *gw, *an);
  check_conservation(ck, *an, raw);
  check_duplicates(ck, *an, truth);
  check_quarantine(ck, *gw, *an, truth);
  check_sessions(ck, *an, truth);
  check_connector_status(ck, *an, truth);
  return ck.v;
}

}  // namespace ocppgw::sim
