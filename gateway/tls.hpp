// gateway/tls.hpp: the server side of TLS for the wss listener (OCPP security profiles 2 and 3):
// building the OpenSSL context from PEM files, and reading the client certificate's subject CN
// after the handshake.
// Threading: a context is built once at start-up and then shared read-only by every
// connection of its listener.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <boost/asio/ssl/context.hpp>

struct ssl_st;

namespace ocppgw::gateway {

struct TlsSettings {
  std::string cert_file;       // PEM, server certificate (chain)
  std::string key_file;        // PEM, its private key
  std::string client_ca_file;  // PEM; non-empty: client certificates required and verified
};

// A server context: TLS 1.2 and 1.3 only, forward-secret AEAD cipher suites first, no
// compression or renegotiation, and OpenSSL's read/write buffers released while a connection
// is idle (most charge point connections are). Returns nullptr with *error naming the file
// and OpenSSL's reason when a file cannot be used.
std::shared_ptr<boost::asio::ssl::context> make_server_tls_context(const TlsSettings& settings,
                                                                   std::string* error);

// The subject CN of the verified peer certificate, or nullopt when the peer sent none (or it
// has no CN). Only meaningful on a context that verifies client certificates.
std::optional<std::string> peer_common_name(ssl_st* ssl);

}  // namespace ocppgw::gateway
