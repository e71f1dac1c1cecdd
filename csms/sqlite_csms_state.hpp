// csms/sqlite_csms_state.hpp: the CSMS decisions of the gateway (rpc::CsmsState) over SQLite;
// the rows each decision implies go into the frame's rpc::WriteSet.
//
// Handlers run on session strands and must not wait for disk, yet frame N+1 of a charge point
// may be handled before frame N is committed. So every decision is taken against in-memory
// state updated at handle time (active 1.6 transactions and their start keys, 2.0.1 sequence
// numbers, known charge points), while the rows that make it durable travel in the frame's
// WriteSet and are committed by the event sink in the same transaction as the frame. Lookups
// that are not kept in memory (id tokens, stopped transactions, starts of earlier runs) read a
// separate read-only WAL connection, guarded by its own mutex. Only the transaction-id
// allocator writes on its own, once per reserved block.
// Thread-safety: all public methods may be called concurrently from any thread.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "csms/certificate_requests.hpp"
#include "csms/ocsp_client.hpp"
#include "rpc/action.hpp"
#include "rpc/transaction_link.hpp"
#include "storage/db.hpp"
#include "storage/tx_id_allocator.hpp"

namespace ocppgw::csms {

enum class UnknownChargePoint { Accept, Pending, Reject };
enum class UnknownIdToken { Accept, Invalid };

// Filled from the config.
struct CsmsPolicy {
  UnknownChargePoint unknown_charge_point = UnknownChargePoint::Accept;
  UnknownIdToken unknown_id_token = UnknownIdToken::Accept;
  int heartbeat_interval_s = 300;
  int32_t node_index = 0;
  int32_t stride = 1;
  std::string id_token_secret;  // HMAC key; the same as rpc::Policy::id_token_secret
  CsrPolicy csr;                // which SignCertificate requests are signed
  // Plug & Charge revocation checks; null: none (certificate_status answers Failed).
  std::shared_ptr<OcspClient> ocsp;
  // Plug & Charge contract certificates (Get15118EVCertificate); empty: none (Failed).
  std::function<rpc::EvCertificateResult(const std::string& charge_point_id,
                                         const rpc::EvCertificateRequest&)>
      ev_certificate_backend;
};

struct ChargePointRecord {
  std::string id;
  std::optional<std::string> registration_status;      // last BootNotification decision
  std::optional<rpc::ValidationMode> validation_mode;  // per-charge-point override
  std::optional<std::string> boot_status;              // the operator's BootNotification answer
  bool registered = false;                             // by an operator (Accepted at boot)
  std::optional<int> security_profile;                 // the least a connection must provide
};

class SqliteCsmsState : public rpc::CsmsState {
 public:
  // transactions16.stop_reason of a transaction ended by a later start on its connector.
  static constexpr std::string_view kSupersededReason = "SupersededByNewStart";

  // Opens (and migrates) `db_path`, loads active 1.6 transactions and known charge points.
  static std::unique_ptr<SqliteCsmsState> open(const std::string& db_path, const CsmsPolicy& policy,
                                               storage::Status* status);
  ~SqliteCsmsState() override;

  // The operator's answer for this charge point (set_boot_status) if there is one; else a
  // registered charge point, or one once Accepted, is Accepted, and an unknown one (or one
  // left Pending/Rejected) gets the policy's answer. The charge point row is upserted.
  rpc::BootDecision boot(rpc::CallContext& ctx, const rpc::BootInfo& info) override;
  // Token list, expiry, policy for unknown tokens; never ConcurrentTx (OCPP 1.6 section 7.2).
  rpc::IdTokenInfo authorize(rpc::CallContext& ctx, std::string_view id_token) override;
  // Idempotent on (charge point, connector, idTag, timestamp, meterStart), also across
  // restarts. A tag active on another connector gets ConcurrentTx and still gets an id. A new
  // start ends the connector's earlier open transactions (stop_reason kSupersededReason).
  rpc::StartTransaction16Result start_transaction(rpc::CallContext& ctx,
                                                  const rpc::StartTransaction16& req) override;
  rpc::StopTransaction16Result stop_transaction(rpc::CallContext& ctx,
                                                const rpc::StopTransaction16& req) override;
  bool transaction_known(rpc::CallContext& ctx, int64_t transaction_id) override;
  // Decided against the in-memory active transactions (rpc/transaction_link.hpp). Unlinked
  // runs are kept in memory only: after a restart a run continues under a new synthetic id,
  // which splits a session but never merges two.
  rpc::TransactionLink16Result link_transaction(rpc::CallContext& ctx,
                                                const rpc::TransactionLink16& req) override;
  rpc::TransactionEvent201Result transaction_event(rpc::CallContext& ctx,
                                                   const rpc::TransactionEvent201& req) override;
  // The policy's contract certificate backend, when there is one; a failure is logged.
  rpc::EvCertificateResult ev_certificate(rpc::CallContext& ctx,
                                          const rpc::EvCertificateRequest& req) override;
  // The policy's OcspClient, when there is one; every answer is logged.
  rpc::OcspResult certificate_status(rpc::CallContext& ctx,
                                     const rpc::OcspRequestData& req) override;
  // check_certificate_request under the policy's CsrPolicy; a refusal is logged.
  rpc::CertificateDecision certificate_request(rpc::CallContext& ctx,
                                               const rpc::CertificateRequest& req) override;
  // Keeps the report and its variables (csms/charge_point_items.hpp).
  void store_report(rpc::CallContext& ctx, const nlohmann::json& request) override;
  // False while the last BootNotification answer to the charge point was Rejected, or Pending
  // unless the central system asked for this action since (csms/requested_messages.hpp).
  bool accepts_call(rpc::CallContext& ctx) override;
  // The follow-up hooks of csms/charge_point_items.hpp; while the charge point is Pending, also
  // notes which of its requests the call asked for.
  void call_result(rpc::CallContext& ctx, const nlohmann::json& request,
                   const nlohmann::json& response) override;
  // Sets (nullopt: clears) the BootNotification answer for one charge point; takes effect at
  // its next BootNotification. The row to persist goes into `writes`.
  void set_boot_status(const std::string& charge_point_id, std::optional<std::string> status,
                       int64_t now_ms, rpc::WriteSet& writes);

  // Reads the charge point's row again after an operator changed it through another
  // connection (registered, removed, security profile: csms/charge_point_admin.hpp); a row
  // that is gone makes the charge point unknown again.
  void reload_charge_point(const std::string& charge_point_id);
  // The security profile assigned to the charge point, if any.
  std::optional<int> security_profile(std::string_view charge_point_id) const;
  // Per-charge-point validation override (nullopt: use the configured default).
  std::optional<rpc::ValidationMode> validation_mode(std::string_view charge_point_id) const;
  // Known charge point (has booted at least once, or was added by an operator).
  std::optional<ChargePointRecord> charge_point(std::string_view charge_point_id) const;
  size_t active_transaction_count() const;
  // False after the allocator or a read failed; the last error is kept for /health.
  bool healthy() const override;
  std::string last_error() const override;

 private:
  struct ActiveTx16 {
    std::string charge_point_id;
    int64_t connector_id = 0;
    std::string id_tag_hash;
    std::string start_key;
    int64_t start_ts_ms = 0;
  };
  struct Tx201 {
    int64_t last_seq_no = -1;
    bool started = false;
    bool ended = false;
    int64_t seq_gaps = 0;
  };

  SqliteCsmsState(const CsmsPolicy& policy, std::unique_ptr<storage::Db> read_db,
                  std::unique_ptr<storage::TxIdAllocator> allocator);
  storage::Status load();
  std::string start_key(std::string_view cp, const rpc::StartTransaction16& req) const;
  // Token list decision at now_ms, without ConcurrentTx. REQUIRES: mu_ not held.
  rpc::IdTokenInfo lookup_token(std::string_view id_tag_hash, int64_t now_ms);
  // REQUIRES: mu_ held. Whether the tag is in an active transaction on another charge point or
  // connector than (cp, connector), ignoring transaction `except`.
  bool tag_active_elsewhere(const std::string& id_tag_hash, std::string_view cp,
                            int64_t connector_id, std::optional<int32_t> except) const;
  // Reads (read_mu_): the charge point a stored transaction belongs to, and a stored start.
  std::optional<std::string> stored_transaction_owner(int64_t transaction_id);
  std::optional<int32_t> stored_start(const std::string& start_key);
  std::optional<Tx201> stored_tx201(std::string_view cp, std::string_view transaction_id);
  void add_active(int32_t id, ActiveTx16 tx);  // REQUIRES: mu_ held
  void remove_active(int32_t id);              // REQUIRES: mu_ held
  // REQUIRES: mu_ held. Ends the open transactions on req's connector that started no later.
  void end_superseded(rpc::CallContext& ctx, const std::string& cp,
                      const rpc::StartTransaction16& req);
  void fail(const storage::Status& s);

  CsmsPolicy policy_;
  std::unique_ptr<storage::TxIdAllocator> allocator_;

  mutable std::mutex read_mu_;  // guards read_db_
  std::unique_ptr<storage::Db> read_db_;

  mutable std::mutex mu_;  // guards everything below
  std::unordered_map<int32_t, ActiveTx16> active16_;
  std::unordered_map<std::string, int32_t> active_by_key_;
  std::unordered_map<std::string, std::vector<int32_t>> active_by_tag_;
  std::unordered_map<std::string, std::vector<int32_t>> active_by_cp_;
  rpc::LinkMemory link_memory_;
  // Stopped in this run (bounded): answers transaction_known before the stop is committed.
  std::unordered_map<int32_t, std::string> recently_stopped_;
  std::deque<int32_t> recently_stopped_order_;
  std::map<std::pair<std::string, std::string>, Tx201> tx201_;
  std::unordered_map<std::string, ChargePointRecord> charge_points_;
  // Pending charge point -> the actions the central system asked it for since its last boot.
  std::unordered_map<std::string, std::set<std::string, std::less<>>> requested_while_pending_;

  mutable std::mutex error_mu_;  // guards healthy_, last_error_
  bool healthy_ = true;
  std::string last_error_;
};

}  // namespace ocppgw::csms
