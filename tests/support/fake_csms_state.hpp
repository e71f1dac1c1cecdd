// tests/support/fake_csms_state.hpp: an in-memory rpc::CsmsState for handler and dispatcher
// tests. Deterministic and inspectable; no SQLite. Tests set `tokens`, `boot_status`, and read
// back what the handlers asked for.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "rpc/action.hpp"
#include "rpc/transaction_link.hpp"

namespace ocppgw::testing {

class FakeCsmsState : public rpc::CsmsState {
 public:
  std::map<std::string, rpc::IdTokenInfo> tokens;  // unknown tokens -> unknown_token_status
  std::string unknown_token_status = "Invalid";
  std::string boot_status = "Accepted";
  int boot_interval_s = 300;
  int32_t next_transaction_id = 1;
  // (cp, connector, idTag, timestamp, meterStart) -> id, for idempotent starts
  std::map<std::tuple<std::string, int64_t, std::string, int64_t, int64_t>, int32_t> starts;
  std::map<std::pair<std::string, int64_t>, bool> issued;  // (cp, id) -> still active
  // (cp, id) -> what linking needs of a started transaction (the raw idTag stands in for its
  // hash: the fake never hashes).
  std::map<std::pair<std::string, int64_t>, rpc::OpenTx16> open_info;
  std::map<std::pair<std::string, int64_t>, std::string> open_tags;
  rpc::LinkMemory link_memory;
  std::vector<rpc::TransactionLink16> links;
  std::vector<rpc::BootInfo> boots;
  std::vector<rpc::StopTransaction16> stops;
  // 2.0.1: (cp, tx id) -> last seq_no; started/ended
  struct Tx201 {
    int64_t last_seq_no = -1;
    bool started = false;
    bool ended = false;
  };
  std::map<std::pair<std::string, std::string>, Tx201> tx201;
  std::vector<std::tuple<std::string, std::string, nlohmann::json>> reports;  // cp, action, request

  // SignCertificate: unset, the interface's default (no certificate authority).
  std::optional<rpc::CertificateDecision> certificate_decision;
  rpc::CertificateDecision certificate_request(rpc::CallContext& ctx,
                                               const rpc::CertificateRequest& req) override {
    return certificate_decision ? *certificate_decision
                                : rpc::CsmsState::certificate_request(ctx, req);
  }

  // OCSP: by serial number; a serial not in the map gets the interface's default (Failed).
  std::map<std::string, rpc::OcspResult> ocsp;
  std::vector<rpc::OcspRequestData> ocsp_asked;
  rpc::OcspResult certificate_status(rpc::CallContext& ctx,
                                     const rpc::OcspRequestData& req) override {
    ocsp_asked.push_back(req);
    auto it = ocsp.find(req.serial_number);
    return it != ocsp.end() ? it->second : rpc::CsmsState::certificate_status(ctx, req);
  }

  // Get15118EVCertificate: unset, the interface's default (no contract backend).
  std::optional<rpc::EvCertificateResult> ev_certificate_result;
  std::vector<rpc::EvCertificateRequest> ev_certificate_asked;
  rpc::EvCertificateResult ev_certificate(rpc::CallContext& ctx,
                                          const rpc::EvCertificateRequest& req) override {
    ev_certificate_asked.push_back(req);
    return ev_certificate_result ? *ev_certificate_result
                                 : rpc::CsmsState::ev_certificate(ctx, req);
  }

  bool registration_accepted = true;  // false: as after a Pending/Rejected boot answer
  bool accepts_call(rpc::CallContext&) override { return registration_accepted; }
  rpc::BootDecision boot(rpc::CallContext& ctx, const rpc::BootInfo& info) override {
    (void)ctx;
    boots.push_back(info);
    return {boot_status, boot_interval_s};
  }

  rpc::IdTokenInfo authorize(rpc::CallContext& ctx, std::string_view id_token) override {
    (void)ctx;
    auto it = tokens.find(std::string(id_token));
    if (it == tokens.end())
      return rpc::IdTokenInfo{unknown_token_status, std::nullopt, std::nullopt};
    return it->second;
  }

  rpc::StartTransaction16Result start_transaction(rpc::CallContext& ctx,
                                                  const rpc::StartTransaction16& req) override {
    auto key = std::make_tuple(std::string(ctx.charge_point_id), req.connector_id, req.id_tag,
                               req.timestamp_ms, req.meter_start_wh);
    rpc::StartTransaction16Result r;
    r.id_tag_info = authorize(ctx, req.id_tag);
    if (auto it = starts.find(key); it != starts.end()) {
      r.transaction_id = it->second;
      r.replay = true;
      return r;
    }
    r.transaction_id = next_transaction_id++;
    starts[key] = r.transaction_id;
    const std::pair<std::string, int64_t> id{std::string(ctx.charge_point_id), r.transaction_id};
    issued[id] = true;
    open_tags[id] = req.id_tag;
    open_info[id] = {r.transaction_id, req.connector_id, open_tags[id], req.timestamp_ms};
    link_memory.end(id.first, req.connector_id);
    return r;
  }

  rpc::StopTransaction16Result stop_transaction(rpc::CallContext& ctx,
                                                const rpc::StopTransaction16& req) override {
    stops.push_back(req);
    rpc::StopTransaction16Result r;
    auto it = issued.find({std::string(ctx.charge_point_id), req.transaction_id});
    r.known = it != issued.end();
    if (r.known) it->second = false;
    if (r.known) open_info.erase(it->first);
    if (req.id_tag) r.id_tag_info = authorize(ctx, *req.id_tag);
    return r;
  }

  bool transaction_known(rpc::CallContext& ctx, int64_t transaction_id) override {
    return issued.count({std::string(ctx.charge_point_id), transaction_id}) > 0;
  }

  rpc::TransactionLink16Result link_transaction(rpc::CallContext& ctx,
                                                const rpc::TransactionLink16& req) override {
    links.push_back(req);
    std::vector<rpc::OpenTx16> open;
    for (const auto& [key, tx] : open_info)
      if (key.first == ctx.charge_point_id) open.push_back(tx);
    return rpc::resolve_link(open, link_memory, ctx, req, req.id_tag);
  }

  rpc::TransactionEvent201Result transaction_event(rpc::CallContext& ctx,
                                                   const rpc::TransactionEvent201& req) override {
    rpc::TransactionEvent201Result r;
    auto [it, inserted] = tx201.try_emplace({std::string(ctx.charge_point_id), req.transaction_id});
    Tx201& tx = it->second;
    if (inserted && req.event_type != "Started") {
      r.flags.emplace_back(req.event_type == "Ended" ? analytics::flag::kEndedBeforeStarted
                                                     : analytics::flag::kUnknownTransaction);
    }
    if (!inserted && req.seq_no <= tx.last_seq_no)
      r.flags.emplace_back(analytics::flag::kSeqNoRepeated);
    if (!inserted && req.seq_no > tx.last_seq_no + 1)
      r.flags.emplace_back(analytics::flag::kSeqNoGap);
    if (req.offline) r.flags.emplace_back(analytics::flag::kOfflineReplay);
    if (req.seq_no > tx.last_seq_no) tx.last_seq_no = req.seq_no;
    if (req.event_type == "Started") tx.started = true;
    if (req.event_type == "Ended") tx.ended = true;
    if (req.id_token) r.id_token_info = authorize(ctx, *req.id_token);
    return r;
  }

  bool healthy() const override { return error.empty(); }
  std::string last_error() const override { return error; }
  std::string error;  // set by a test to make the state unhealthy

  void store_report(rpc::CallContext& ctx, const nlohmann::json& request) override {
    reports.emplace_back(std::string(ctx.charge_point_id), std::string(ctx.action), request);
  }
};

}  // namespace ocppgw::testing
