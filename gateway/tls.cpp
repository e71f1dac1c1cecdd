// gateway/tls.cpp: server TLS context and peer certificate CN (see tls.hpp).
#include "gateway/tls.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

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
