// rpc/transaction_link.hpp: the linking rules for 1.6 frames sent with transactionId -1 (or,
// for MeterValues, an id never issued), shared by every rpc::CsmsState so the SQLite state and
// the test fake decide alike. The caller collects the charge point's open transactions and
// keeps the LinkMemory under its own lock; these functions only decide.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "rpc/csms_state.hpp"

namespace ocppgw::rpc {

// One open 1.6 transaction of the charge point the frame came from.
struct OpenTx16 {
  int64_t id = 0;
  int64_t connector_id = 0;
  std::string_view id_tag_hash;
  int64_t start_ts_ms = 0;
};

// What linking must remember between frames. For each charge point and connector, the synthetic
// session of the current run of -1 frames that could not be linked: a run ends at the next
// StartTransaction on the connector or at the -1 StopTransaction that joins it, so two runs
// never share a session. And each charge point's last -1 StopTransaction, so a re-send of it
// (same message id, after a lost answer) gets the same answer instead of being linked to, and
// stopping, another open transaction. Not thread-safe.
class LinkMemory {
 public:
  // The earlier answer to this -1 StopTransaction, when it is a re-send.
  std::optional<TransactionLink16Result> repeated_stop(const std::string& charge_point_id,
                                                       std::string_view message_id) const;
  void remember_stop(const std::string& charge_point_id, std::string_view message_id,
                     const TransactionLink16Result& result);
  // The session id of an unlinked -1 frame: a MeterValues joins (or opens) its connector's run;
  // a StopTransaction (no connector) joins and ends the charge point's only run, or stands
  // alone when there is none or several.
  std::string join(const std::string& charge_point_id, std::optional<int64_t> connector_id,
                   bool stop, int64_t ingest_ts_ms, std::string_view message_id);
  // A StartTransaction on the connector: later -1 frames belong to a new run.
  void end(const std::string& charge_point_id, int64_t connector_id);

 private:
  std::map<std::pair<std::string, int64_t>, std::string> runs_;
  std::map<std::string, std::pair<std::string, TransactionLink16Result>> last_stop_;
};

// "-1:<connector or ?>:<ingest ms>:<message id>": the colons keep it apart from every decimal id
// the gateway issues, and the message id keeps two runs opened in one millisecond apart.
std::string synthetic_run_id(std::optional<int64_t> connector_id, int64_t ingest_ts_ms,
                             std::string_view message_id);

// The rules, in order: a MeterValues links to the open transaction on its connector (the latest
// started, should an older one have lost its stop); a StopTransaction to the only open one with
// its idTag, else the only open one, else the one whose start is the single latest at or before
// the Stop's timestamp. Anything else (no such
// transaction, a tie) is unlinked: a -1 frame then gets its run's synthetic id, a never-issued
// id is kept as sent.
TransactionLink16Result resolve_link(std::span<const OpenTx16> open, LinkMemory& runs,
                                     const CallContext& ctx, const TransactionLink16& req,
                                     const std::optional<std::string>& id_tag_hash);

}  // namespace ocppgw::rpc
