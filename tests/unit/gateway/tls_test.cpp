// tests/unit/gateway/tls_test.cpp: the server TLS context refuses unusable settings with a
// message naming the option and file (the handshakes themselves run against the real binary in
// tests/integration/security/).
#include "gateway/tls.hpp"

#include <fstream>

#include <gtest/gtest.h>

#include "tests/unit/storage/temp_dir.hpp"

namespace ocppgw::gateway {
namespace {

TlsSettings files(std::string cert, std::string key) {
  TlsSettings s;
  s.cert_file = std::move(cert);
  s.key_file = std::move(key);
  return s;
}

TEST(TlsContext, CertificateAndKeyAreRequired) {
  std::string error;
  EXPECT_FALSE(make_server_tls_context({}, &error));
  EXPECT_NE(error.find("tls_cert and tls_key"), std::string::npos) << error;
  EXPECT_FALSE(make_server_tls_context(files("server.pem", ""), &error));
  EXPECT_NE(error.find("tls_cert and tls_key"), std::string::npos) << error;
}

TEST(TlsContext, UnreadableFilesAreNamed) {
  ocppgw::testing::TempDir dir;
  std::string error;
  const std::string missing = dir.file("missing.pem");
  EXPECT_FALSE(make_server_tls_context(files(missing, missing), &error));
  EXPECT_NE(error.find("tls_cert " + missing), std::string::npos) << error;
  const std::string garbage = dir.file("garbage.pem");
  std::ofstream(garbage) << "-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n";
  EXPECT_FALSE(make_server_tls_context(files(garbage, garbage), &error));
  EXPECT_NE(error.find("tls_cert " + garbage), std::string::npos) << error;
}

TEST(TlsContext, NoPeerNoCommonName) { EXPECT_FALSE(peer_common_name(nullptr)); }

}  // namespace
}  // namespace ocppgw::gateway
