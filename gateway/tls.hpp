// gateway/tls.hpp: the server side of TLS for the wss listener (OCPP security profiles 2 and 3):
// building the OpenSSL context from PEM files, replacing it when the files change (SIGHUP, or a
// changed modification time), and reading the client certificate's subject CN after the
// handshake.
// Threading: a context is shared read-only by the connections made while it was current;
// TlsContextSlot is thread-safe.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/ssl/context.hpp>

struct ssl_st;

namespace ocppgw::gateway {

struct TlsSettings {
  std::string cert_file;       // PEM, server certificate (chain)
  std::string key_file;        // PEM, its private key
  std::string client_ca_file;  // PEM; non-empty: client certificates required and verified
  // A second certificate of the other key type (RSA beside ECDSA, or the reverse), served on
  // the same listener: OpenSSL picks per handshake what the client's cipher suites can use, so
  // every suite OCPP 2.0.1 lists for a CSMS (A00.FR.318/319) completes. Optional.
  std::string extra_cert_file;
  std::string extra_key_file;
};

// A server context: TLS 1.2 and 1.3 only, forward-secret AEAD cipher suites first, no
// compression or renegotiation, and OpenSSL's read/write buffers released while a connection
// is idle (most charge point connections are). Returns nullptr with *error naming the file
// and OpenSSL's reason when a file cannot be used.
std::shared_ptr<boost::asio::ssl::context> make_server_tls_context(const TlsSettings& settings,
                                                                   std::string* error);

// The listener's current context. reload() builds a new one from the same files and swaps it
// in for connections accepted from then on; connections made earlier keep the one they
// started with (retired contexts are kept, a few KiB each, so nothing they use goes away). A
// file that does not load changes nothing: reload() returns why, and the old context stays.
class TlsContextSlot {
 public:
  static std::shared_ptr<TlsContextSlot> make(TlsSettings settings, std::string* error);

  std::shared_ptr<boost::asio::ssl::context> current() const;
  // Re-reads the files. Empty: reloaded; else the reason nothing changed.
  std::string reload();
  // Any file's modification time differs from when the current context was built.
  bool files_changed() const;
  // Subject and expiry of the served certificates, for the log line of a (re)load.
  std::string describe() const;
  const TlsSettings& settings() const { return settings_; }

 private:
  using Stamps = std::vector<std::filesystem::file_time_type>;
  TlsContextSlot(TlsSettings settings) : settings_(std::move(settings)) {}
  Stamps stamps() const;

  const TlsSettings settings_;
  mutable std::mutex mu_;
  std::shared_ptr<boost::asio::ssl::context> current_;
  std::vector<std::shared_ptr<boost::asio::ssl::context>> retired_;
  Stamps loaded_stamps_;
};

// The subject CN of the verified peer certificate, or nullopt when the peer sent none (or it
// has no CN). Only meaningful on a context that verifies client certificates.
std::optional<std::string> peer_common_name(ssl_st* ssl);

}  // namespace ocppgw::gateway
