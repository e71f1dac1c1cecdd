// gateway/certificate_service.hpp: what follows an accepted SignCertificate. The handler only
// decides (rpc/certificate_request.hpp); once the charge point has its answer, the session hands
// the request here, it is signed off the I/O threads (the signer may run a command) and
// CertificateSigned goes back through the same command path as an operator's call, so it is
// queued behind any outstanding call and recorded as a CsmsCall event.
// Threading: submit() from any thread; signing runs on one worker thread.
#pragma once

#include <memory>
#include <mutex>
#include <set>
#include <string>

#include <boost/asio/thread_pool.hpp>

#include "gateway/certificate_signer.hpp"
#include "rpc/csms_state.hpp"
#include "rpc/rpc_error.hpp"
#include "web/csms_commands.hpp"

namespace ocppgw::gateway {

class CertificateService {
 public:
  CertificateService(std::unique_ptr<CertificateSigner> signer, web::CsmsCommands& commands);
  ~CertificateService();  // waits for the signing in progress

  // Signs `request` and sends CertificateSigned in `version`'s shape. One request per charge
  // point is in progress at a time: a repeat meanwhile is dropped (logged), since the one in
  // progress answers it; a charge point asking again later gets a new certificate.
  void submit(std::string charge_point_id, rpc::OcppVersion version,
              rpc::CertificateRequest request);

 private:
  void sign_and_send(const std::string& charge_point_id, rpc::OcppVersion version,
                     const rpc::CertificateRequest& request);
  // The charge points with a request in progress; shared with the CertificateSigned callback,
  // which may run after this service is gone (a session ending during shutdown).
  struct InProgress {
    std::mutex mu;
    std::set<std::string, std::less<>> ids;
    void finish(const std::string& charge_point_id);
  };

  std::unique_ptr<CertificateSigner> signer_;
  web::CsmsCommands& commands_;
  std::shared_ptr<InProgress> in_progress_ = std::make_shared<InProgress>();
  boost::asio::thread_pool worker_{1};
};

}  // namespace ocppgw::gateway
