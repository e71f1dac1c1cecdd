// gateway/certificate_signer.hpp: turns a charge point's accepted CSR into a certificate chain,
// with the CA configured in-process (csr_ca_cert + csr_ca_key) or through the operator's own
// signing command (csr_sign_command) when the CA lives elsewhere (an HSM, a PKI service).
// The CSR has already passed csms/certificate_requests.hpp (signature, key, CN = charge point
// id); the signer only issues. Threading: sign() may block (the command), so the certificate
// service calls it on its own thread; a signer is used by one thread at a time.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "gateway/config.hpp"
#include "util/status.hpp"

namespace ocppgw::gateway {

class CertificateSigner {
 public:
  virtual ~CertificateSigner() = default;
  // The PEM chain for CertificateSigned: the new certificate first, then the CA certificates
  // between it and the root. Empty with *error set when nothing could be issued.
  virtual std::string sign(const std::string& charge_point_id, const std::string& csr_pem,
                           const std::string& certificate_type, std::string* error) = 0;
};

// The in-process CA: `ca_cert_file` holds the signing certificate first (any intermediates
// after it), `ca_key_file` its key (checked to match). Issued certificates are X.509 v3 for
// TLS client authentication (extendedKeyUsage clientAuth, CA:FALSE), subject O (when the CSR
// has one) and CN = charge point id, valid from 5 minutes ago for `validity_days`, with a
// random 159-bit serial, signed with SHA-256.
std::unique_ptr<CertificateSigner> make_local_ca_signer(const std::string& ca_cert_file,
                                                        const std::string& ca_key_file,
                                                        int validity_days, util::Status* status);

// Runs `command` with /bin/sh -c, the CSR PEM on its standard input and
// OCPPGW_CHARGE_POINT_ID / OCPPGW_CERTIFICATE_TYPE in its environment; its standard output,
// when it exits 0 within `timeout`, is the chain. Anything else is an error that quotes the
// exit status and the command's standard error (first 300 bytes).
std::unique_ptr<CertificateSigner> make_command_signer(std::string command,
                                                       std::chrono::seconds timeout);

// From the config: the command when csr_sign_command is set, else the local CA when
// csr_ca_cert is set, else nullptr (SignCertificate is answered Rejected, NoCertAuthority).
std::unique_ptr<CertificateSigner> make_certificate_signer(const Config& config,
                                                           util::Status* status);

}  // namespace ocppgw::gateway
