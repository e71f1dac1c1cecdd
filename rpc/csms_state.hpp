// rpc/csms_state.hpp: what OCPP handlers may ask the central system, and the decisions it
// returns. The interface is version-neutral data in, data out; the implementation over SQLite
// is csms/sqlite_csms_state.hpp, and tests use an in-memory fake. A decision that must be
// persisted is recorded as rows in the frame's WriteSet (rpc/write_set.hpp) and committed by
// the event sink together with the frame, so the answer is never sent before its state is
// durable.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace ocppgw::rpc {

struct CallContext;

struct IdTokenInfo {
  std::string status =
      "Invalid";  // Accepted | Blocked | Expired | Invalid | ConcurrentTx | Unknown
  std::optional<int64_t> expiry_ms;
  std::optional<std::string> parent_id;  // 1.6 parentIdTag / 2.0.1 groupIdToken
};

struct BootInfo {
  std::string vendor;
  std::string model;
  std::optional<std::string> serial_number;
  std::optional<std::string> firmware_version;
  std::optional<std::string> reason;  // 2.0.1
};

struct BootDecision {
  std::string status = "Accepted";  // Accepted | Pending | Rejected
  int interval_s = 300;
};

struct StartTransaction16 {
  int64_t connector_id = 0;
  std::string id_tag;
  int64_t timestamp_ms = 0;
  int64_t meter_start_wh = 0;
  std::optional<int64_t> reservation_id;
};

struct StartTransaction16Result {
  int32_t transaction_id = 0;
  IdTokenInfo id_tag_info;
  bool replay = false;  // an identical StartTransaction was seen before: same id returned
};

struct StopTransaction16 {
  int64_t transaction_id = 0;
  std::optional<std::string> id_tag;
  int64_t timestamp_ms = 0;
  int64_t meter_stop_wh = 0;
  std::optional<std::string> reason;
};

struct StopTransaction16Result {
  bool known = false;  // false: never issued (or -1); answered anyway, flagged on the events
  std::optional<IdTokenInfo> id_tag_info;
};

// 1.6 frames that name a transaction the gateway cannot use as sent: transactionId -1 (the
// charge point started offline and never learned the id) or, for MeterValues, an id never
// issued. The state links them to an open transaction so the session is not split or merged.
enum class LinkRule { None, Connector, IdTag, OnlyOpen, LatestStart };

struct TransactionLink16 {
  std::optional<int64_t> connector_id = std::nullopt;  // MeterValues: link by connector only
  std::optional<std::string> id_tag = std::nullopt;    // StopTransaction (raw; hashed by the state)
  int64_t timestamp_ms = 0;                            // StopTransaction: for the latest-start rule
  bool stop = false;   // a StopTransaction: ends the unlinked run it joins
  bool minus1 = true;  // sent -1: an unlinked frame gets a synthetic run id
};

struct TransactionLink16Result {
  LinkRule rule = LinkRule::None;
  int64_t linked_id = 0;  // the open transaction, when rule != None
  // The canonical transaction_id: the linked id, or (unlinked -1) a synthetic run id
  // "-1:<connector|?>:<ingest ms>:<message id>" that no decimal id can equal; empty: keep as
  // sent.
  std::string transaction_id;
};

struct TransactionEvent201 {
  std::string transaction_id;
  std::string event_type;  // Started | Updated | Ended
  int64_t seq_no = 0;
  int64_t timestamp_ms = 0;
  bool offline = false;
  std::optional<int64_t> evse_id;
  std::optional<int64_t> connector_id;
  std::optional<std::string> id_token;
  std::optional<std::string> stopped_reason;
  std::optional<int64_t> reservation_id;  // consumes that reservation
};

// A certificate signing request (SignCertificate, both versions).
struct CertificateRequest {
  std::string csr_pem;
  // ChargingStationCertificate | V2GCertificate (2.0.1); 1.6 asks for the former only.
  std::string certificate_type = "ChargingStationCertificate";
};

struct CertificateDecision {
  bool accepted = false;
  std::string reason_code;  // why not (at most 20 characters: 2.0.1 statusInfo.reasonCode)
  std::string detail;       // for statusInfo.additionalInfo and the log
  // The CSR itself was wrong (forged signature, another identity, a weak key): the refusal is
  // written as a SecurityEvent. A CSMS without a signer refuses without suspicion.
  bool suspicious = false;
};

// One certificate to check for revocation, as 2.0.1 names it (OCSPRequestDataType): the
// hashes identify the certificate to its issuer's OCSP responder at responder_url.
struct OcspRequestData {
  std::string hash_algorithm;  // SHA256 | SHA384 | SHA512
  std::string issuer_name_hash;
  std::string issuer_key_hash;
  std::string serial_number;
  std::string responder_url;
};

struct OcspResult {
  enum class Status { Good, Revoked, Unknown, Failed };
  Status status = Status::Failed;
  std::string reason;  // why Failed, for statusInfo and the event
  // The responder's signed answer, DER in base64 as GetCertificateStatus carries it (empty for
  // Failed).
  std::string response_base64;
};

// 2.0.1 Get15118EVCertificate: the EV's EXI-encoded certificate installation or update request,
// for the mobility operator's contract certificate pool.
struct EvCertificateRequest {
  std::string action;          // Install | Update
  std::string schema_version;  // iso15118SchemaVersion
  std::string exi_request;     // base64
};

struct EvCertificateResult {
  bool accepted = false;
  std::string exi_response;  // base64, when accepted
  std::string reason_code;   // why not (at most 20 characters)
  std::string reason;
};

struct TransactionEvent201Result {
  std::vector<std::string> flags;  // analytics::flag values (unknown tx, seq gaps, ...)
  std::optional<IdTokenInfo> id_token_info;
};

// What handlers may ask. Methods run on the calling session's strand, must be thread-safe
// across sessions, and record what must be persisted into ctx (committed with the frame).
class CsmsState {
 public:
  virtual ~CsmsState() = default;
  virtual BootDecision boot(CallContext& ctx, const BootInfo& info) = 0;
  virtual IdTokenInfo authorize(CallContext& ctx, std::string_view id_token) = 0;
  virtual StartTransaction16Result start_transaction(CallContext& ctx,
                                                     const StartTransaction16& req) = 0;
  virtual StopTransaction16Result stop_transaction(CallContext& ctx,
                                                   const StopTransaction16& req) = 0;
  // 1.6 MeterValues: is this id one we issued to this charge point?
  virtual bool transaction_known(CallContext& ctx, int64_t transaction_id) = 0;
  // Decides which open transaction (if any) a -1 / never-issued 1.6 frame belongs to; see
  // TransactionLink16. Does not stop anything: a linked stop then calls stop_transaction.
  virtual TransactionLink16Result link_transaction(CallContext& ctx,
                                                   const TransactionLink16& req) = 0;
  virtual TransactionEvent201Result transaction_event(CallContext& ctx,
                                                      const TransactionEvent201& req) = 0;
  // A report the charge point sent of its own state (2.0.1 NotifyReport, ReportChargingProfiles,
  // NotifyDisplayMessages; ctx.action says which), schema-valid: kept per charge point.
  virtual void store_report(CallContext& ctx, const nlohmann::json& request) = 0;
  // Whether the CSR is one the central system will have signed (rpc::request_certificate acts on
  // the answer). The default: no certificate authority.
  virtual CertificateDecision certificate_request(CallContext& /*ctx*/,
                                                  const CertificateRequest& /*req*/) {
    return {false, "NoCertAuthority", "no certificate authority is configured on this CSMS", false};
  }
  // The revocation status of one certificate from its OCSP responder (2.0.1 Authorize with
  // iso15118CertificateHashData, GetCertificateStatus). The default: no checks configured.
  virtual OcspResult certificate_status(CallContext& /*ctx*/, const OcspRequestData& /*req*/) {
    return {OcspResult::Status::Failed, "no OCSP responder is allowed on this CSMS", {}};
  }
  // The contract certificate pool's answer to an EV's request. The default: no pool.
  virtual EvCertificateResult ev_certificate(CallContext& /*ctx*/,
                                             const EvCertificateRequest& /*req*/) {
    return {
        false, {}, "NoContractBackend", "no ISO 15118 contract certificate backend is configured"};
  }
  // Whether the charge point may send `ctx.action`: false while its last BootNotification
  // answer was Pending or Rejected (the dispatcher then answers SecurityError).
  virtual bool accepts_call(CallContext& /*ctx*/) { return true; }
  // A CSMS->charge point call `ctx.action` ended in a schema-valid CALLRESULT: record what it
  // changed of the charge point's state (configuration, reservations, ...) into ctx.writes.
  virtual void call_result(CallContext& /*ctx*/, const nlohmann::json& /*request*/,
                           const nlohmann::json& /*response*/) {}
  // False once the state could not decide something it had to (e.g. no transaction id could
  // be reserved); /health reports it so operators learn before charge points do.
  virtual bool healthy() const { return true; }
  virtual std::string last_error() const { return {}; }
};
}  // namespace ocppgw::rpc
