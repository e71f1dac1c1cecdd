// csms/ocsp_client.cpp: see ocsp_client.hpp.
#include "csms/ocsp_client.hpp"

#include <algorithm>

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/http.h>
#include <openssl/ocsp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "util/hex.hpp"
#include "util/text.hpp"

namespace ocppgw::csms {
namespace {

using Status = rpc::OcspResult::Status;

struct Free {
  void operator()(OCSP_CERTID* p) const { OCSP_CERTID_free(p); }
  void operator()(OCSP_REQUEST* p) const { OCSP_REQUEST_free(p); }
  void operator()(OCSP_RESPONSE* p) const { OCSP_RESPONSE_free(p); }
  void operator()(OCSP_BASICRESP* p) const { OCSP_BASICRESP_free(p); }
  void operator()(BIO* p) const { BIO_free_all(p); }
  void operator()(BIGNUM* p) const { BN_free(p); }
  void operator()(X509_NAME* p) const { X509_NAME_free(p); }
  // ASN1_BIT_STRING and ASN1_INTEGER are both ASN1_STRING.
  void operator()(ASN1_STRING* p) const { ASN1_STRING_free(p); }
  void operator()(X509_STORE* p) const { X509_STORE_free(p); }
  void operator()(char* p) const { OPENSSL_free(p); }
};
template <typename T>
using Ptr = std::unique_ptr<T, Free>;

rpc::OcspResult failed(std::string why) { return {Status::Failed, std::move(why), {}}; }

std::string openssl_error() {
  const unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return "unknown error";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof buf);
  return buf;
}

const EVP_MD* digest(std::string_view name) {
  if (name == "SHA256") return EVP_sha256();
  if (name == "SHA384") return EVP_sha384();
  if (name == "SHA512") return EVP_sha512();
  return nullptr;
}

// The CertID of `r`: made for an empty issuer, then its hashes and serial replaced by the ones
// the charge point sent (OpenSSL builds a CertID only from a certificate's parts, which we do
// not have).
Ptr<OCSP_CERTID> cert_id(const rpc::OcspRequestData& r, std::string* error) {
  const EVP_MD* md = digest(r.hash_algorithm);
  if (!md) return *error = "unsupported hashAlgorithm " + r.hash_algorithm, nullptr;
  const auto name_hash = util::from_hex(r.issuer_name_hash);
  const auto key_hash = util::from_hex(r.issuer_key_hash);
  if (!name_hash || !key_hash || name_hash->size() != static_cast<size_t>(EVP_MD_get_size(md)) ||
      key_hash->size() != name_hash->size())
    return *error = "issuerNameHash and issuerKeyHash must be " + r.hash_algorithm +
                    " digests in hexadecimal",
           nullptr;
  BIGNUM* serial_bn = nullptr;
  if (r.serial_number.empty() || r.serial_number.size() > 40 ||
      BN_hex2bn(&serial_bn, r.serial_number.c_str()) != static_cast<int>(r.serial_number.size()))
    return BN_free(serial_bn), *error = "serialNumber is not a hexadecimal number", nullptr;
  Ptr<BIGNUM> serial(serial_bn);
  Ptr<X509_NAME> no_name(X509_NAME_new());
  Ptr<ASN1_BIT_STRING> no_key(ASN1_BIT_STRING_new());
  Ptr<ASN1_INTEGER> zero(ASN1_INTEGER_new());
  Ptr<OCSP_CERTID> id(OCSP_cert_id_new(md, no_name.get(), no_key.get(), zero.get()));
  ASN1_OCTET_STRING *name_field = nullptr, *key_field = nullptr;
  ASN1_INTEGER* serial_field = nullptr;
  if (!id || !OCSP_id_get0_info(&name_field, nullptr, &key_field, &serial_field, id.get()) ||
      !ASN1_OCTET_STRING_set(name_field, reinterpret_cast<const unsigned char*>(name_hash->data()),
                             static_cast<int>(name_hash->size())) ||
      !ASN1_OCTET_STRING_set(key_field, reinterpret_cast<const unsigned char*>(key_hash->data()),
                             static_cast<int>(key_hash->size())) ||
      !BN_to_ASN1_INTEGER(serial.get(), serial_field))
    return *error = "cannot build the OCSP request: " + openssl_error(), nullptr;
  return id;
}

std::string base64(const std::string& der) {
  std::string out(4 * ((der.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(der.data()),
                                static_cast<int>(der.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

}  // namespace

struct OcspClient::Trust {
  Ptr<X509_STORE> store;
};

std::string parse_ocsp_hosts(std::string_view text, std::vector<std::string>& hosts) {
  std::vector<std::string> parsed = util::split_list(text);
  for (const std::string& item : parsed) {
    const size_t colon = item.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == item.size() ||
        item.find_first_not_of("0123456789", colon + 1) != std::string::npos)
      return "ocsp_responder_hosts: \"" + item + "\" is not host:port";
  }
  hosts = std::move(parsed);
  return {};
}

std::unique_ptr<OcspClient> OcspClient::open(OcspPolicy policy, util::Status* status) {
  auto trust = std::make_unique<Trust>();
  trust->store.reset(X509_STORE_new());
  if (!trust->store || X509_STORE_load_file(trust->store.get(), policy.trust_file.c_str()) != 1) {
    if (status)
      *status =
          util::Status::error("ocsp_trust " + policy.trust_file +
                              ": cannot be read as PEM certificates (" + openssl_error() + ")");
    return nullptr;
  }
  return std::unique_ptr<OcspClient>(new OcspClient(std::move(policy), std::move(trust)));
}

OcspClient::OcspClient(OcspPolicy policy, std::unique_ptr<Trust> trust)
    : policy_(std::move(policy)), trust_(std::move(trust)) {}

OcspClient::~OcspClient() = default;

rpc::OcspResult OcspClient::check(const rpc::OcspRequestData& request) {
  const std::string key = request.hash_algorithm + "|" + request.issuer_name_hash + "|" +
                          request.issuer_key_hash + "|" + request.serial_number + "|" +
                          request.responder_url;
  const auto now = std::chrono::system_clock::now();
  {
    std::lock_guard lock(mu_);
    if (auto it = cache_.find(key); it != cache_.end() && now < it->second.until)
      return it->second.result;
  }
  rpc::OcspResult result = ask(request);
  if (result.status != Status::Failed) {
    std::lock_guard lock(mu_);
    if (cache_.size() >= 10000) cache_.clear();  // a bound, not an eviction policy: rare
    cache_[key] = {result, now + policy_.cache_ttl};
  }
  return result;
}

rpc::OcspResult OcspClient::ask(const rpc::OcspRequestData& r) const {
  if (r.responder_url.rfind("https://", 0) == 0)
    return failed("responderURL " + r.responder_url + ": only http:// is supported");
  if (r.responder_url.rfind("http://", 0) != 0)
    return failed("responderURL " + r.responder_url + " is not an http:// URL");
  char *host_c = nullptr, *port_c = nullptr, *path_c = nullptr;
  if (OSSL_HTTP_parse_url(r.responder_url.c_str(), nullptr, nullptr, &host_c, &port_c, nullptr,
                          &path_c, nullptr, nullptr) != 1) {
    ERR_clear_error();
    return failed("responderURL " + r.responder_url + " is not a URL");
  }
  Ptr<char> host(host_c), port(port_c), path(path_c);
  const std::string host_port = std::string(host.get()) + ":" + port.get();
  if (std::find(policy_.allowed_hosts.begin(), policy_.allowed_hosts.end(), host_port) ==
      policy_.allowed_hosts.end())
    return failed("responder " + host_port + " is not in ocsp_responder_hosts");

  std::string error;
  Ptr<OCSP_CERTID> id = cert_id(r, &error);
  if (!id) return failed(error);
  Ptr<OCSP_REQUEST> req(OCSP_REQUEST_new());
  if (!req || !OCSP_request_add0_id(req.get(), OCSP_CERTID_dup(id.get())) ||
      !OCSP_request_add1_nonce(req.get(), nullptr, -1))
    return failed("cannot build the OCSP request: " + openssl_error());
  Ptr<BIO> body(BIO_new(BIO_s_mem()));
  if (!body || i2d_OCSP_REQUEST_bio(body.get(), req.get()) != 1)
    return failed("cannot encode the OCSP request: " + openssl_error());
  // proxy "": the responder is asked directly, whatever http_proxy the environment has.
  Ptr<BIO> answer(OSSL_HTTP_transfer(
      nullptr, host.get(), port.get(), path.get(), 0, "", nullptr, nullptr, nullptr, nullptr,
      nullptr, 0, nullptr, "application/ocsp-request", body.get(), "application/ocsp-response", 1,
      64 * 1024, static_cast<int>(policy_.timeout.count()), 0));
  if (!answer) return failed("OCSP responder " + host_port + ": " + openssl_error());
  Ptr<OCSP_RESPONSE> response(d2i_OCSP_RESPONSE_bio(answer.get(), nullptr));
  if (!response) return failed("OCSP responder " + host_port + " sent no OCSP response");
  if (const int s = OCSP_response_status(response.get()); s != OCSP_RESPONSE_STATUS_SUCCESSFUL)
    return failed("OCSP responder " + host_port + " answered " + OCSP_response_status_str(s));
  Ptr<OCSP_BASICRESP> basic(OCSP_response_get1_basic(response.get()));
  if (!basic) return failed("OCSP responder " + host_port + ": no basic response");
  // 0: a nonce that is not ours (a replayed answer); responders that echo none are accepted,
  // since RFC 6960 lets them pre-compute answers.
  if (OCSP_check_nonce(req.get(), basic.get()) == 0)
    return failed("OCSP responder " + host_port + ": the response's nonce is not the request's");
  if (OCSP_basic_verify(basic.get(), nullptr, trust_->store.get(), 0) != 1)
    return failed("OCSP responder " + host_port +
                  ": the response's signature does not chain to ocsp_trust (" + openssl_error() +
                  ")");
  int status = -1, reason = -1;
  ASN1_GENERALIZEDTIME *revoked_at = nullptr, *this_update = nullptr, *next_update = nullptr;
  if (OCSP_resp_find_status(basic.get(), id.get(), &status, &reason, &revoked_at, &this_update,
                            &next_update) != 1)
    return failed("OCSP responder " + host_port + ": the response does not cover the certificate");
  // Five minutes of clock skew either way, no maximum age beyond nextUpdate.
  if (OCSP_check_validity(this_update, next_update, 300, -1) != 1) {
    ERR_clear_error();
    return failed("OCSP responder " + host_port + ": the response is outside its validity");
  }
  unsigned char* der = nullptr;
  const int der_len = i2d_OCSP_RESPONSE(response.get(), &der);
  std::string der_text(reinterpret_cast<char*>(der),
                       der_len > 0 ? static_cast<size_t>(der_len) : 0);
  OPENSSL_free(der);
  const Status verdict = status == V_OCSP_CERTSTATUS_GOOD      ? Status::Good
                         : status == V_OCSP_CERTSTATUS_REVOKED ? Status::Revoked
                                                               : Status::Unknown;
  return {verdict, {}, base64(der_text)};
}

}  // namespace ocppgw::csms
