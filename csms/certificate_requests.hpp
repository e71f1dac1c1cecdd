// csms/certificate_requests.hpp: which certificate signing requests (SignCertificate) the
// central system has signed. A charge point may only obtain a certificate for its own identity:
// the certificate is what profile 3 later authenticates it by (CN = charge point id), so signing
// a CSR for another id would hand that identity over. Pure: no I/O, any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rpc/csms_state.hpp"

namespace ocppgw::csms {

struct CsrPolicy {
  bool signer_configured = false;  // a CA or a signing command (gateway config csr_*)
  int min_rsa_bits = 2048;         // 0: RSA keys are refused
  std::vector<std::string> ec_curves = {"P-256", "P-384"};  // NIST names; empty: EC refused
  std::string organization;                                 // set: the subject's O must equal it
};

// Parses the config's csr_key_types ("rsa:2048,ec:P-256,ec:P-384": RSA of at least 2048 bits,
// EC on those curves) into `policy`; returns an error text, empty when it parsed.
std::string parse_csr_key_types(std::string_view text, CsrPolicy& policy);
std::string format_csr_key_types(const CsrPolicy& policy);

// The CSR as PEM: some charge points send the base64 body without the armour lines.
std::string armoured_csr(std::string_view csr);

// The checks, in order, each with its reason code (2.0.1 statusInfo.reasonCode):
//   NoCertAuthority      no signer configured (not suspicious)
//   UnsupportedCertType  certificateType V2GCertificate: ISO 15118 SECC certificates come from
//                        the V2G PKI, not from this CA (not suspicious)
//   InvalidCSR           not one PEM PKCS#10 request
//   InvalidCSRSignature  the request is not signed by the key it carries
//   KeyNotAllowed        key type or size outside the policy
//   InvalidCommonName    the subject CN is not exactly the charge point id
//   InvalidOrganization  the subject O differs from the configured organization
rpc::CertificateDecision check_certificate_request(const CsrPolicy& policy,
                                                   std::string_view charge_point_id,
                                                   const rpc::CertificateRequest& request);

}  // namespace ocppgw::csms
