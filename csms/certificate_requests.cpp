// csms/certificate_requests.cpp
#include "csms/certificate_requests.hpp"

#include <algorithm>
#include <memory>
#include <string>

#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "util/text.hpp"
#include "util/utf8.hpp"

namespace ocppgw::csms {
namespace {

struct ReqFree {
  void operator()(X509_REQ* r) const { X509_REQ_free(r); }
};
struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};

// 2.0.1 statusInfo.additionalInfo holds at most 512 characters; the detail may quote the CSR.
constexpr size_t kMaxDetailBytes = 500;

rpc::CertificateDecision refuse(std::string code, std::string detail, bool suspicious = true) {
  return {false, std::move(code), std::string(util::utf8_prefix(detail, kMaxDetailBytes)),
          suspicious};
}

std::unique_ptr<X509_REQ, ReqFree> parse(std::string_view csr) {
  const std::string pem = armoured_csr(csr);
  std::unique_ptr<BIO, BioFree> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) return nullptr;
  return std::unique_ptr<X509_REQ, ReqFree>(
      PEM_read_bio_X509_REQ(bio.get(), nullptr, nullptr, nullptr));
}

// The only value of `nid` in the subject, or nullopt when it is absent or repeated (two CNs
// would let a verifier pick either one).
std::optional<std::string> single_entry(X509_NAME* name, int nid) {
  const int at = X509_NAME_get_index_by_NID(name, nid, -1);
  if (at < 0 || X509_NAME_get_index_by_NID(name, nid, at) >= 0) return std::nullopt;
  unsigned char* utf8 = nullptr;
  const int n = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, at)));
  if (n < 0) return std::nullopt;
  std::string out(reinterpret_cast<char*>(utf8), static_cast<size_t>(n));
  OPENSSL_free(utf8);
  return out;
}

// "" when the key is allowed, else why not.
std::string key_refusal(const CsrPolicy& policy, EVP_PKEY* key) {
  const int type = EVP_PKEY_get_base_id(key);
  if (type == EVP_PKEY_RSA) {
    const int bits = EVP_PKEY_get_bits(key);
    if (policy.min_rsa_bits == 0) return "RSA keys are not allowed";
    if (bits < policy.min_rsa_bits)
      return "RSA key of " + std::to_string(bits) + " bits; at least " +
             std::to_string(policy.min_rsa_bits) + " required";
    return {};
  }
  if (type == EVP_PKEY_EC) {
    char group[64] = {};
    size_t len = 0;
    if (EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof group,
                                       &len) != 1)
      return "EC key without a named curve";
    const char* nist = EC_curve_nid2nist(OBJ_sn2nid(group));
    const std::string curve = nist ? nist : group;
    if (std::find(policy.ec_curves.begin(), policy.ec_curves.end(), curve) ==
        policy.ec_curves.end())
      return "EC key on curve " + curve + ", which is not allowed";
    return {};
  }
  return std::string("key type ") + OBJ_nid2sn(type) + " is not allowed";
}

}  // namespace

std::string armoured_csr(std::string_view csr) {
  if (csr.find("-----BEGIN") != std::string_view::npos) return std::string(csr);
  // The base64 body alone, as some charge points send it; its own line breaks stay, but a
  // blank line before the END line would make the PEM reader refuse it.
  const size_t first = csr.find_first_not_of(" \t\r\n");
  const size_t last = csr.find_last_not_of(" \t\r\n");
  const std::string_view body =
      first == std::string_view::npos ? std::string_view() : csr.substr(first, last - first + 1);
  return "-----BEGIN CERTIFICATE REQUEST-----\n" + std::string(body) +
         "\n-----END CERTIFICATE REQUEST-----\n";
}

std::string parse_csr_key_types(std::string_view text, CsrPolicy& policy) {
  CsrPolicy parsed = policy;
  parsed.min_rsa_bits = 0;
  parsed.ec_curves.clear();
  for (const std::string& item : util::split_list(text)) {
    if (item.rfind("rsa:", 0) == 0) {
      try {
        parsed.min_rsa_bits = std::stoi(item.substr(4));
      } catch (const std::exception&) {
        return "'" + item + "': rsa:<minimum bits> expected";
      }
      if (parsed.min_rsa_bits < 1024) return "'" + item + "': RSA keys below 1024 bits";
    } else if (item.rfind("ec:", 0) == 0) {
      const std::string curve = item.substr(3);
      if (EC_curve_nist2nid(curve.c_str()) == NID_undef)
        return "'" + item + "': ec:<NIST curve name> expected (P-256, P-384, P-521)";
      parsed.ec_curves.push_back(curve);
    } else {
      return "'" + item + "': rsa:<bits> or ec:<curve> expected";
    }
  }
  policy = std::move(parsed);
  return {};
}

std::string format_csr_key_types(const CsrPolicy& policy) {
  std::string out = policy.min_rsa_bits ? "rsa:" + std::to_string(policy.min_rsa_bits) : "";
  for (const auto& c : policy.ec_curves) out += (out.empty() ? "ec:" : ",ec:") + c;
  return out;
}

rpc::CertificateDecision check_certificate_request(const CsrPolicy& policy,
                                                   std::string_view charge_point_id,
                                                   const rpc::CertificateRequest& request) {
  if (!policy.signer_configured)
    return refuse("NoCertAuthority", "no certificate authority is configured on this CSMS", false);
  if (request.certificate_type != "ChargingStationCertificate")
    return refuse("UnsupportedCertType",
                  request.certificate_type +
                      " is not signed here; this CSMS signs charging "
                      "station certificates only",
                  false);
  auto req = parse(request.csr_pem);
  if (!req) return refuse("InvalidCSR", "not a PEM-encoded PKCS#10 certificate signing request");
  std::unique_ptr<EVP_PKEY, KeyFree> key(X509_REQ_get_pubkey(req.get()));
  if (!key || X509_REQ_verify(req.get(), key.get()) != 1)
    return refuse("InvalidCSRSignature", "the CSR is not signed by the key it carries");
  if (auto why = key_refusal(policy, key.get()); !why.empty())
    return refuse("KeyNotAllowed", std::move(why));
  X509_NAME* subject = X509_REQ_get_subject_name(req.get());
  const auto cn = single_entry(subject, NID_commonName);
  if (!cn || *cn != charge_point_id)
    return refuse("InvalidCommonName", "the subject CN must be the charge point id '" +
                                           std::string(charge_point_id) + "'" +
                                           (cn ? ", not '" + *cn + "'" : std::string(" (one CN)")));
  if (!policy.organization.empty()) {
    const auto o = single_entry(subject, NID_organizationName);
    if (!o || *o != policy.organization)
      return refuse("InvalidOrganization", "the subject O must be '" + policy.organization + "'" +
                                               (o ? ", not '" + *o + "'" : std::string()));
  }
  return {true, {}, {}, false};
}

}  // namespace ocppgw::csms
