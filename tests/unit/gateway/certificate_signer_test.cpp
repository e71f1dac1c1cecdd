// tests/unit/gateway/certificate_signer_test.cpp: the in-process CA and the signing command, on
// a CA, keys and CSRs made with OpenSSL (tests/support/certificates.hpp).
#include "gateway/certificate_signer.hpp"

#include <fstream>

#include <gtest/gtest.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include "tests/support/certificates.hpp"
#include "tests/unit/storage/temp_dir.hpp"

namespace ocppgw::gateway {
namespace {

using testing::csr_pem;
using testing::ec_key;

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

std::vector<X509*> read_chain(const std::string& pem) {
  std::vector<X509*> out;
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  while (X509* c = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) out.push_back(c);
  BIO_free(bio);
  return out;
}

std::string subject_cn(X509* cert) {
  char cn[256] = {};
  X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, cn, sizeof cn);
  return cn;
}

class LocalCa : public ::testing::Test {
 protected:
  void SetUp() override {
    write(dir_.file("ca.pem"), testing::ca_pem(ca_key_.get()));
    write(dir_.file("ca.key"), testing::key_pem(ca_key_.get()));
  }
  ocppgw::testing::TempDir dir_;
  testing::Key ca_key_ = ec_key();
};

TEST_F(LocalCa, IssuesAClientCertificateForTheChargePointThatVerifiesAgainstTheCa) {
  util::Status status;
  auto signer = make_local_ca_signer(dir_.file("ca.pem"), dir_.file("ca.key"), 30, &status);
  ASSERT_TRUE(signer) << status.message();
  auto key = ec_key();
  std::string error;
  const std::string chain = signer->sign("CP-7", csr_pem(key.get(), "CP-7", "Example CPO"),
                                         "ChargingStationCertificate", &error);
  ASSERT_FALSE(chain.empty()) << error;
  auto certs = read_chain(chain);
  ASSERT_EQ(certs.size(), 1u);  // the self-signed root stays with the verifier
  X509* cert = certs[0];
  EXPECT_EQ(X509_verify(cert, ca_key_.get()), 1);
  EXPECT_EQ(subject_cn(cert), "CP-7");
  EXPECT_EQ(EVP_PKEY_eq(X509_get0_pubkey(cert), key.get()), 1);
  EXPECT_EQ(X509_check_ca(cert), 0);
  EXPECT_TRUE(X509_get_extended_key_usage(cert) & XKU_SSL_CLIENT);
  int day = 0, sec = 0;
  ASSERT_EQ(ASN1_TIME_diff(&day, &sec, nullptr, X509_get0_notAfter(cert)), 1);
  EXPECT_TRUE(day == 29 || day == 30) << day;
  for (X509* c : certs) X509_free(c);
}

TEST_F(LocalCa, AKeyThatIsNotTheCertificatesOwnIsRefusedAtStart) {
  auto other = ec_key();
  write(dir_.file("other.key"), testing::key_pem(other.get()));
  util::Status status;
  EXPECT_FALSE(make_local_ca_signer(dir_.file("ca.pem"), dir_.file("other.key"), 30, &status));
  EXPECT_NE(status.message().find("is not the key of"), std::string::npos) << status.message();
  EXPECT_FALSE(make_local_ca_signer(dir_.file("missing.pem"), dir_.file("ca.key"), 30, &status));
  EXPECT_NE(status.message().find("cannot be read"), std::string::npos) << status.message();
}

TEST(CommandSigner, GetsTheCsrAndIdentityAndReturnsWhatItPrints) {
  auto signer = make_command_signer(
      "printf -- '-----BEGIN CERTIFICATE-----\\n%s %s\\n' \"$OCPPGW_CHARGE_POINT_ID\" "
      "\"$OCPPGW_CERTIFICATE_TYPE\"; wc -c",
      std::chrono::seconds(10));
  std::string error;
  const std::string out = signer->sign("CP-7", "0123456789", "ChargingStationCertificate", &error);
  EXPECT_EQ(out, "-----BEGIN CERTIFICATE-----\nCP-7 ChargingStationCertificate\n10\n") << error;
}

TEST(CommandSigner, FailuresSayWhy) {
  std::string error;
  EXPECT_EQ(make_command_signer("echo no CA here >&2; exit 3", std::chrono::seconds(10))
                ->sign("CP-7", "csr", "ChargingStationCertificate", &error),
            "");
  EXPECT_NE(error.find("exit status 3"), std::string::npos) << error;
  EXPECT_NE(error.find("no CA here"), std::string::npos) << error;
  EXPECT_EQ(make_command_signer("echo hello", std::chrono::seconds(10))
                ->sign("CP-7", "csr", "ChargingStationCertificate", &error),
            "");
  EXPECT_NE(error.find("no PEM certificate"), std::string::npos) << error;
  EXPECT_EQ(make_command_signer("sleep 5", std::chrono::seconds(1))
                ->sign("CP-7", "csr", "ChargingStationCertificate", &error),
            "");
  EXPECT_NE(error.find("did not finish within 1 s"), std::string::npos) << error;
}

}  // namespace
}  // namespace ocppgw::gateway
