// csms/ocsp_client.hpp: asks a certificate's OCSP responder (RFC 6960) whether it is revoked,
// for ISO 15118 Plug & Charge (2.0.1 Authorize with iso15118CertificateHashData and
// GetCertificateStatus). The certificate comes as its issuer's name and key hashes and serial
// number, exactly what an OCSP CertID holds, so no certificate is needed here.
// The responder URL comes from the charge point, so only hosts the operator allows are asked
// (anything else would let a charge point make the CSMS send requests into its own network),
// and a response counts only when its signature chains to the configured trust anchors and its
// nonce, if echoed, is ours. Answers (not failures) are cached for cache_ttl. A request blocks its
// caller for at most `timeout`: handlers run on the session's strand, so a slow responder delays
// that strand's charge points by that much, and the cache keeps it to the first Authorize of a
// certificate. docs/configuration.md, "Plug & Charge". Thread-safe.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "rpc/csms_state.hpp"
#include "util/status.hpp"

namespace ocppgw::csms {

struct OcspPolicy {
  std::vector<std::string> allowed_hosts;  // "host:port" (port 80 when the URL names none)
  std::string trust_file;                  // PEM: the roots (and intermediates) responses chain to
  std::chrono::seconds timeout{3};
  std::chrono::seconds cache_ttl{300};
};

// "" when `text` (comma-separated host:port list) is usable, else why not; fills `hosts`.
std::string parse_ocsp_hosts(std::string_view text, std::vector<std::string>& hosts);

class OcspClient {
 public:
  // Reads the trust anchors; nullptr (and why in `status`) when they cannot be read.
  static std::unique_ptr<OcspClient> open(OcspPolicy policy, util::Status* status);
  ~OcspClient();
  OcspClient(const OcspClient&) = delete;
  OcspClient& operator=(const OcspClient&) = delete;

  rpc::OcspResult check(const rpc::OcspRequestData& request);

 private:
  struct Trust;
  OcspClient(OcspPolicy policy, std::unique_ptr<Trust> trust);
  rpc::OcspResult ask(const rpc::OcspRequestData& request) const;

  OcspPolicy policy_;
  std::unique_ptr<Trust> trust_;
  struct Cached {
    rpc::OcspResult result;
    std::chrono::system_clock::time_point until;
  };
  std::mutex mu_;
  std::map<std::string, Cached, std::less<>> cache_;
};

}  // namespace ocppgw::csms
