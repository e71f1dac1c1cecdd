// gateway/certificate_service.cpp
#include "gateway/certificate_service.hpp"

#include <boost/asio/post.hpp>

#include "csms/certificate_requests.hpp"
#include "util/logging.hpp"

namespace ocppgw::gateway {

CertificateService::CertificateService(std::unique_ptr<CertificateSigner> signer,
                                       web::CsmsCommands& commands)
    : signer_(std::move(signer)), commands_(commands) {}

CertificateService::~CertificateService() { worker_.join(); }

void CertificateService::submit(std::string charge_point_id, rpc::OcppVersion version,
                                rpc::CertificateRequest request) {
  {
    std::lock_guard lock(in_progress_->mu);
    if (!in_progress_->ids.insert(charge_point_id).second) {
      log::warn("certificate_request_dropped", charge_point_id,
                {{"reason", "a certificate for this charge point is being issued already"}});
      return;
    }
  }
  boost::asio::post(worker_,
                    [this, id = std::move(charge_point_id), version, request = std::move(request)] {
                      sign_and_send(id, version, request);
                    });
}

void CertificateService::sign_and_send(const std::string& charge_point_id, rpc::OcppVersion version,
                                       const rpc::CertificateRequest& request) {
  std::string error;
  const std::string chain = signer_->sign(charge_point_id, csms::armoured_csr(request.csr_pem),
                                          request.certificate_type, &error);
  if (chain.empty()) {
    // Nothing is sent: the charge point's own timer asks again (2.0.1 A02.FR.17/18, the
    // security whitepaper for 1.6), and the operator sees why here.
    log::error("certificate_not_issued", charge_point_id, {{"reason", error}});
    return in_progress_->finish(charge_point_id);
  }
  nlohmann::json payload = {{"certificateChain", chain}};
  if (version == rpc::OcppVersion::v201) payload["certificateType"] = request.certificate_type;
  commands_.call(
      charge_point_id, "CertificateSigned", std::move(payload), "gateway",
      [in_progress = in_progress_, charge_point_id](web::CommandOutcome outcome) {
        const bool accepted = outcome.kind == web::CommandOutcome::Kind::Result &&
                              outcome.payload.is_object() &&
                              outcome.payload.value("status", "") == "Accepted";
        if (accepted)
          log::info("certificate_signed", charge_point_id, {{"status", "Accepted"}});
        else
          log::warn("certificate_not_installed", charge_point_id,
                    {{"outcome", std::string(web::outcome_name(outcome.kind))},
                     {"status", outcome.payload.is_object() ? outcome.payload.value("status", "")
                                                            : std::string()},
                     {"description", outcome.description}});
        in_progress->finish(charge_point_id);
      });
}

void CertificateService::InProgress::finish(const std::string& charge_point_id) {
  std::lock_guard lock(mu);
  ids.erase(charge_point_id);
}

}  // namespace ocppgw::gateway
