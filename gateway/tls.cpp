// gateway/tls.cpp: server TLS context and peer certificate CN (see tls.hpp).
#include "gateway/tls.hpp"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <algorithm>
#include <cstdio>

namespace ocppgw::gateway {
namespace {

namespace ssl = boost::asio::ssl;

// Mozilla's "intermediate" TLS 1.2 list (ECDHE + AEAD), then the two RSA key-exchange GCM
// suites that OCPP 2.0.1 lists as mandatory for RSA-based deployments, so that charge points
// limited to them can still connect. TLS 1.3 suites are OpenSSL's defaults (all AEAD).
constexpr const char* kTls12Ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:"
    "AES128-GCM-SHA256:AES256-GCM-SHA384";

// The reason OpenSSL queued for the last failure (the boost error message is often generic).
std::string openssl_reason(const boost::system::error_code& ec) {
  std::string out = ec.message();
  if (const unsigned long e = ERR_peek_last_error(); e != 0) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    out = buf;
  }
  ERR_clear_error();
  return out;
}

// Checks that the PEM certificate in `path` has a key of another type than `other_type`.
bool load_pem_key_type(const std::string& path, int other_type, std::string* why) {
  FILE* f = std::fopen(path.c_str(), "r");
  if (!f) {
    *why = "cannot be opened";
    return false;
  }
  X509* cert = PEM_read_X509(f, nullptr, nullptr, nullptr);
  std::fclose(f);
  if (!cert) {
    *why = "no PEM certificate: " + openssl_reason({});
    return false;
  }
  const int type = EVP_PKEY_get_base_id(X509_get0_pubkey(cert));
  X509_free(cert);
  if (type == other_type) {
    *why =
        "has the same key type as tls_cert; the extra certificate must be of the other type "
        "(RSA beside ECDSA)";
    return false;
  }
  return true;
}

std::string describe_certificate(X509* cert) {
  if (!cert) return "none";
  char subject[256];
  X509_NAME_oneline(X509_get_subject_name(cert), subject, sizeof subject);
  BIO* bio = BIO_new(BIO_s_mem());
  ASN1_TIME_print(bio, X509_get0_notAfter(cert));
  char expiry[64] = {0};
  const int n = BIO_read(bio, expiry, sizeof expiry - 1);
  BIO_free(bio);
  const char* type = EVP_PKEY_get_base_id(X509_get0_pubkey(cert)) == EVP_PKEY_EC ? "ECDSA" : "RSA";
  return std::string(type) + " " + subject + " (expires " +
         std::string(expiry, static_cast<size_t>(std::max(n, 0))) + ")";
}

}  // namespace

std::shared_ptr<ssl::context> make_server_tls_context(const TlsSettings& settings,
                                                      std::string* error) {
  auto fail = [&](std::string message) {
    if (error) *error = std::move(message);
    return std::shared_ptr<ssl::context>();
  };
  if (settings.cert_file.empty() || settings.key_file.empty())
    return fail("tls_cert and tls_key are required for the TLS listener");
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
  SSL_CTX* native = ctx->native_handle();
  SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
  SSL_CTX_set_options(native, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION |
                                  SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_SINGLE_ECDH_USE);
  // Idle connections then hold no 16 KiB+ record buffers inside OpenSSL.
  SSL_CTX_set_mode(native, SSL_MODE_RELEASE_BUFFERS);
  if (SSL_CTX_set_cipher_list(native, kTls12Ciphers) != 1)
    return fail("cannot set the TLS cipher list: " + openssl_reason({}));

  boost::system::error_code ec;
  ctx->use_certificate_chain_file(settings.cert_file, ec);
  if (ec) return fail("tls_cert " + settings.cert_file + ": " + openssl_reason(ec));
  ctx->use_private_key_file(settings.key_file, ssl::context::pem, ec);
  if (ec) return fail("tls_key " + settings.key_file + ": " + openssl_reason(ec));
  if (SSL_CTX_check_private_key(native) != 1)
    return fail("tls_key " + settings.key_file + " does not match tls_cert " + settings.cert_file);
  if (!settings.extra_cert_file.empty()) {
    const int first_type = EVP_PKEY_get_base_id(SSL_CTX_get0_privatekey(native));
    // OpenSSL keeps one certificate per key type: a second one of the same type would replace
    // the first, not add to it.
    std::string why;
    if (!load_pem_key_type(settings.extra_cert_file, first_type, &why))
      return fail("tls_extra_cert " + settings.extra_cert_file + ": " + why);
    if (SSL_CTX_use_certificate_chain_file(native, settings.extra_cert_file.c_str()) != 1)
      return fail("tls_extra_cert " + settings.extra_cert_file + ": " + openssl_reason({}));
    if (SSL_CTX_use_PrivateKey_file(native, settings.extra_key_file.c_str(), SSL_FILETYPE_PEM) != 1)
      return fail("tls_extra_key " + settings.extra_key_file + ": " + openssl_reason({}));
    if (SSL_CTX_check_private_key(native) != 1)
      return fail("tls_extra_key " + settings.extra_key_file + " does not match tls_extra_cert " +
                  settings.extra_cert_file);
  }

  if (!settings.client_ca_file.empty()) {
    ctx->load_verify_file(settings.client_ca_file, ec);
    if (ec) return fail("tls_client_ca " + settings.client_ca_file + ": " + openssl_reason(ec));
    // Tell clients which CAs we accept (helps charge points holding several certificates).
    if (STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(settings.client_ca_file.c_str()))
      SSL_CTX_set_client_CA_list(native, names);
    ctx->set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert, ec);
    if (ec) return fail("tls_client_ca: " + openssl_reason(ec));
  } else {
    ctx->set_verify_mode(ssl::verify_none, ec);
  }
  // Resumption uses stateless session tickets (TLS 1.2 and 1.3): the server keeps no
  // per-session state, so its session cache is off (it would hold one SSL_SESSION, with the
  // client certificate, per connection for up to 20,480 connections). The id context is still
  // required for resumption when client certificates are verified.
  SSL_CTX_set_session_cache_mode(native, SSL_SESS_CACHE_OFF);
  static constexpr unsigned char kSessionIdContext[] = "ocppgw";
  SSL_CTX_set_session_id_context(native, kSessionIdContext, sizeof kSessionIdContext - 1);
  ERR_clear_error();
  return ctx;
}

std::shared_ptr<TlsContextSlot> TlsContextSlot::make(TlsSettings settings, std::string* error) {
  std::shared_ptr<TlsContextSlot> slot(new TlsContextSlot(std::move(settings)));
  slot->loaded_stamps_ = slot->stamps();
  slot->current_ = make_server_tls_context(slot->settings_, error);
  if (!slot->current_) return nullptr;
  return slot;
}

std::shared_ptr<ssl::context> TlsContextSlot::current() const {
  std::lock_guard lock(mu_);
  return current_;
}

TlsContextSlot::Stamps TlsContextSlot::stamps() const {
  Stamps out;
  for (const std::string* f : {&settings_.cert_file, &settings_.key_file, &settings_.client_ca_file,
                               &settings_.extra_cert_file, &settings_.extra_key_file}) {
    std::error_code ec;
    out.push_back(f->empty() ? std::filesystem::file_time_type{}
                             : std::filesystem::last_write_time(*f, ec));
  }
  return out;
}

bool TlsContextSlot::files_changed() const {
  const Stamps now = stamps();
  std::lock_guard lock(mu_);
  return now != loaded_stamps_;
}

std::string TlsContextSlot::reload() {
  const Stamps before = stamps();
  std::string error;
  auto fresh = make_server_tls_context(settings_, &error);
  std::lock_guard lock(mu_);
  // Whatever the outcome, these files were looked at: a broken file is reported once, not at
  // every poll, and a fixed one (a new modification time) is tried again.
  loaded_stamps_ = before;
  if (!fresh) return error;
  retired_.push_back(std::move(current_));
  current_ = std::move(fresh);
  return {};
}

std::string TlsContextSlot::describe() const {
  // From the files, not the context: walking a shared context's certificate slots would move
  // its "current certificate" under connections being accepted.
  std::string out;
  for (const std::string* file : {&settings_.cert_file, &settings_.extra_cert_file}) {
    if (file->empty()) continue;
    FILE* f = std::fopen(file->c_str(), "r");
    X509* cert = f ? PEM_read_X509(f, nullptr, nullptr, nullptr) : nullptr;
    if (f) std::fclose(f);
    out += (out.empty() ? "" : "; ") + describe_certificate(cert);
    X509_free(cert);
  }
  ERR_clear_error();
  return out;
}

std::optional<std::string> peer_common_name(ssl_st* ssl) {
  if (!ssl) return std::nullopt;
  // get0: no reference taken, valid as long as the connection.
  X509* cert = SSL_get0_peer_certificate(ssl);
  if (!cert || SSL_get_verify_result(ssl) != X509_V_OK) return std::nullopt;
  X509_NAME* subject = X509_get_subject_name(cert);
  const int index = X509_NAME_get_index_by_NID(subject, NID_commonName, -1);
  if (index < 0) return std::nullopt;
  // A second CN would make the identity ambiguous.
  if (X509_NAME_get_index_by_NID(subject, NID_commonName, index) >= 0) return std::nullopt;
  const ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, index));
  unsigned char* utf8 = nullptr;
  const int length = ASN1_STRING_to_UTF8(&utf8, data);
  if (length < 0) return std::nullopt;
  std::string cn(reinterpret_cast<const char*>(utf8), static_cast<size_t>(length));
  OPENSSL_free(utf8);
  return cn;
}

}  // namespace ocppgw::gateway
