// tests/support/certificates.hpp: keys, CSRs and a CA made with OpenSSL for the certificate
// tests (csms CSR checks, the gateway's signer). PEM text in, PEM text out.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

namespace ocppgw::testing {

struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using Key = std::unique_ptr<EVP_PKEY, KeyFree>;

inline Key ec_key(const char* curve = "P-256") { return Key(EVP_EC_gen(curve)); }
inline Key rsa_key(unsigned bits) { return Key(EVP_RSA_gen(bits)); }

inline std::string bio_text(BIO* bio) {
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<size_t>(n));
  BIO_free(bio);
  return out;
}

inline std::string key_pem(EVP_PKEY* key) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
  return bio_text(bio);
}

// A CSR for `cn` (and `org` when set) signed by `key`. `forge_cn` set: the subject is changed
// after signing, so the signature no longer covers it.
inline std::string csr_pem(EVP_PKEY* key, const std::string& cn, const std::string& org = "",
                           const std::string& forge_cn = "") {
  X509_REQ* req = X509_REQ_new();
  auto subject = [&](const std::string& name) {
    X509_NAME* n = X509_NAME_new();
    if (!org.empty())
      X509_NAME_add_entry_by_txt(n, "O", MBSTRING_UTF8,
                                 reinterpret_cast<const unsigned char*>(org.c_str()), -1, -1, 0);
    X509_NAME_add_entry_by_txt(n, "CN", MBSTRING_UTF8,
                               reinterpret_cast<const unsigned char*>(name.c_str()), -1, -1, 0);
    X509_REQ_set_subject_name(req, n);
    X509_NAME_free(n);
  };
  subject(cn);
  X509_REQ_set_pubkey(req, key);
  if (X509_REQ_sign(req, key, EVP_sha256()) <= 0) throw std::runtime_error("X509_REQ_sign");
  if (!forge_cn.empty()) subject(forge_cn);  // re-encoded when written, signature kept
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509_REQ(bio, req);
  X509_REQ_free(req);
  return bio_text(bio);
}

// A self-signed CA certificate for `key`.
inline std::string ca_pem(EVP_PKEY* key, const std::string& cn = "test CA") {
  X509* cert = X509_new();
  X509_set_version(cert, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                             reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  X509_set_issuer_name(cert, name);
  X509_gmtime_adj(X509_getm_notBefore(cert), 0);
  X509_gmtime_adj(X509_getm_notAfter(cert), 3600);
  X509_set_pubkey(cert, key);
  X509V3_CTX v3;
  X509V3_set_ctx(&v3, cert, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext =
      X509V3_EXT_conf_nid(nullptr, &v3, NID_basic_constraints, "critical,CA:TRUE");
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
  X509_sign(cert, key, EVP_sha256());
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(bio, cert);
  X509_free(cert);
  return bio_text(bio);
}

}  // namespace ocppgw::testing
