// gateway/certificate_signer.cpp
#include "gateway/certificate_signer.hpp"

#include <fstream>
#include <sstream>
#include <vector>

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "gateway/command_runner.hpp"

namespace ocppgw::gateway {
namespace {

using util::Status;

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using X509Ptr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using ReqPtr = std::unique_ptr<X509_REQ, Deleter<X509_REQ, X509_REQ_free>>;
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using BioPtr = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;
using NamePtr = std::unique_ptr<X509_NAME, Deleter<X509_NAME, X509_NAME_free>>;
using BnPtr = std::unique_ptr<BIGNUM, Deleter<BIGNUM, BN_free>>;

std::string openssl_error() {
  char buf[256];
  ERR_error_string_n(ERR_get_error(), buf, sizeof buf);
  ERR_clear_error();
  return buf;
}

std::string pem_of(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_X509(bio.get(), cert);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

bool self_signed(X509* cert) { return X509_check_issued(cert, cert) == X509_V_OK; }

// The issued subject: the CSR's O (if any) and its CN, nothing else the CSR may have asked for
// (an OU or a second name would be vouched for by the CA without having been checked).
NamePtr issued_subject(X509_NAME* requested) {
  NamePtr name(X509_NAME_new());
  for (int nid : {NID_organizationName, NID_commonName}) {
    const int at = X509_NAME_get_index_by_NID(requested, nid, -1);
    if (at >= 0) X509_NAME_add_entry(name.get(), X509_NAME_get_entry(requested, at), -1, 0);
  }
  return name;
}

class LocalCaSigner : public CertificateSigner {
 public:
  LocalCaSigner(std::vector<X509Ptr> chain, KeyPtr key, int validity_days)
      : chain_(std::move(chain)), key_(std::move(key)), validity_days_(validity_days) {}

  std::string sign(const std::string& charge_point_id, const std::string& csr_pem,
                   const std::string&, std::string* error) override {
    BioPtr in(BIO_new_mem_buf(csr_pem.data(), static_cast<int>(csr_pem.size())));
    ReqPtr req(PEM_read_bio_X509_REQ(in.get(), nullptr, nullptr, nullptr));
    if (!req) return fail(error, "the CSR does not parse: " + openssl_error());
    X509* ca = chain_.front().get();
    X509Ptr cert(X509_new());
    BnPtr serial(BN_new());
    if (!cert || !serial || X509_set_version(cert.get(), 2) != 1 ||
        BN_rand(serial.get(), 159, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) != 1 ||
        !BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(cert.get())) ||
        X509_set_issuer_name(cert.get(), X509_get_subject_name(ca)) != 1 ||
        X509_set_subject_name(cert.get(),
                              issued_subject(X509_REQ_get_subject_name(req.get())).get()) != 1 ||
        !X509_gmtime_adj(X509_getm_notBefore(cert.get()), -5 * 60) ||
        !X509_time_adj_ex(X509_getm_notAfter(cert.get()), validity_days_, 0, nullptr) ||
        X509_set_pubkey(cert.get(), X509_REQ_get0_pubkey(req.get())) != 1)
      return fail(error, "building the certificate: " + openssl_error());
    const bool rsa = EVP_PKEY_get_base_id(X509_REQ_get0_pubkey(req.get())) == EVP_PKEY_RSA;
    X509V3_CTX v3;
    X509V3_set_ctx(&v3, ca, cert.get(), req.get(), nullptr, 0);
    const std::pair<int, const char*> extensions[] = {
        {NID_basic_constraints, "critical,CA:FALSE"},
        {NID_key_usage, rsa ? "critical,digitalSignature,keyEncipherment"
                            : "critical,digitalSignature,keyAgreement"},
        {NID_ext_key_usage, "clientAuth"},
        {NID_subject_key_identifier, "hash"},
        {NID_authority_key_identifier, "keyid,issuer"},
    };
    for (const auto& [nid, value] : extensions) {
      X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &v3, nid, value);
      const bool added = ext && X509_add_ext(cert.get(), ext, -1) == 1;
      X509_EXTENSION_free(ext);
      if (!added)
        return fail(error, std::string("extension ") + OBJ_nid2sn(nid) + ": " + openssl_error());
    }
    if (X509_sign(cert.get(), key_.get(), EVP_sha256()) <= 0)
      return fail(error, "signing for " + charge_point_id + ": " + openssl_error());
    std::string out = pem_of(cert.get());
    for (const auto& c : chain_)
      if (!self_signed(c.get())) out += pem_of(c.get());  // the root is the verifier's own
    return out;
  }

 private:
  static std::string fail(std::string* error, std::string why) {
    if (error) *error = std::move(why);
    return {};
  }
  std::vector<X509Ptr> chain_;
  KeyPtr key_;
  int validity_days_;
};

class CommandSigner : public CertificateSigner {
 public:
  CommandSigner(std::string command, std::chrono::seconds timeout)
      : command_(std::move(command)), timeout_(timeout) {}

  std::string sign(const std::string& charge_point_id, const std::string& csr_pem,
                   const std::string& certificate_type, std::string* error) override {
    const CommandResult r = run_command(command_, csr_pem,
                                        {"OCPPGW_CHARGE_POINT_ID=" + charge_point_id,
                                         "OCPPGW_CERTIFICATE_TYPE=" + certificate_type},
                                        timeout_);
    if (!r.ok()) return fail(error, "csr_sign_command " + r.failure());
    if (r.out.find("-----BEGIN CERTIFICATE-----") == std::string::npos)
      return fail(error, "csr_sign_command printed no PEM certificate");
    return r.out;
  }

 private:
  static std::string fail(std::string* error, std::string why) {
    if (error) *error = std::move(why);
    return {};
  }
  std::string command_;
  std::chrono::seconds timeout_;
};

}  // namespace

std::unique_ptr<CertificateSigner> make_local_ca_signer(const std::string& ca_cert_file,
                                                        const std::string& ca_key_file,
                                                        int validity_days, Status* status) {
  auto fail = [&](std::string why) -> std::unique_ptr<CertificateSigner> {
    if (status) *status = Status::error(std::move(why));
    return nullptr;
  };
  BioPtr certs(BIO_new_file(ca_cert_file.c_str(), "r"));
  if (!certs) return fail("csr_ca_cert " + ca_cert_file + ": cannot be read");
  std::vector<X509Ptr> chain;
  while (X509* c = PEM_read_bio_X509(certs.get(), nullptr, nullptr, nullptr)) chain.emplace_back(c);
  ERR_clear_error();  // the loop ends on "no start line"
  if (chain.empty()) return fail("csr_ca_cert " + ca_cert_file + ": no PEM certificate in it");
  BioPtr key_bio(BIO_new_file(ca_key_file.c_str(), "r"));
  KeyPtr key(key_bio ? PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!key) return fail("csr_ca_key " + ca_key_file + ": " + openssl_error());
  if (X509_check_private_key(chain.front().get(), key.get()) != 1)
    return fail("csr_ca_key " + ca_key_file + " is not the key of the first certificate in " +
                ca_cert_file);
  if (X509_check_ca(chain.front().get()) == 0)
    return fail("csr_ca_cert " + ca_cert_file + ": the first certificate is not a CA");
  return std::make_unique<LocalCaSigner>(std::move(chain), std::move(key), validity_days);
}

std::unique_ptr<CertificateSigner> make_command_signer(std::string command,
                                                       std::chrono::seconds timeout) {
  return std::make_unique<CommandSigner>(std::move(command), timeout);
}

std::unique_ptr<CertificateSigner> make_certificate_signer(const Config& config, Status* status) {
  if (!config.csr_sign_command.empty())
    return make_command_signer(config.csr_sign_command, std::chrono::seconds(30));
  if (!config.csr_ca_cert.empty())
    return make_local_ca_signer(config.csr_ca_cert, config.csr_ca_key, config.csr_validity_days,
                                status);
  return nullptr;
}

}  // namespace ocppgw::gateway
