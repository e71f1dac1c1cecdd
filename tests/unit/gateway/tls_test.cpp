// tests/unit/gateway/tls_test.cpp: the server TLS context refuses unusable settings with a
// message naming the option and file (the handshakes themselves run against the real binary in
// tests/integration/security/).
#include "gateway/tls.hpp"

#include <dlfcn.h>

#include <fstream>
#include <string>

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

// The pyarrow wheel's libparquet exports a whole OpenSSL of its own (cmake/arrow.cmake). Every
// OpenSSL symbol must resolve to the system's libssl/libcrypto, the pair Debian builds, patches
// and ships together; dlsym(RTLD_DEFAULT) looks up the way the dynamic linker binds libssl.
TEST(TlsContext, OpenSslIsTheSystemOne) {
  for (const char* symbol : {"CRYPTO_zalloc", "EVP_CIPHER_fetch", "EVP_MAC_fetch",
                             "X509_verify_cert", "OPENSSL_init_crypto", "SSL_new"}) {
    void* address = dlsym(RTLD_DEFAULT, symbol);
    ASSERT_NE(address, nullptr) << symbol;
    Dl_info info{};
    ASSERT_NE(dladdr(address, &info), 0) << symbol;
    const std::string file = info.dli_fname ? info.dli_fname : "";
    EXPECT_TRUE(file.find("/libcrypto.so") != std::string::npos ||
                file.find("/libssl.so") != std::string::npos)
        << symbol << " resolves to " << file;
  }
}

}  // namespace
}  // namespace ocppgw::gateway
