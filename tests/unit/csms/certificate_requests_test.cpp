// tests/unit/csms/certificate_requests_test.cpp: which CSRs the central system has signed, on
// CSRs made with OpenSSL (tests/support/certificates.hpp).
#include "csms/certificate_requests.hpp"

#include <gtest/gtest.h>

#include "tests/support/certificates.hpp"

namespace ocppgw::csms {
namespace {

using testing::csr_pem;
using testing::ec_key;
using testing::rsa_key;

CsrPolicy signing() {
  CsrPolicy p;
  p.signer_configured = true;
  return p;
}

rpc::CertificateDecision check(const CsrPolicy& p, const std::string& csr,
                               std::string type = "ChargingStationCertificate") {
  return check_certificate_request(p, "CP-7", {csr, std::move(type)});
}

TEST(CertificateRequests, ACsrForItsOwnIdWithAnAllowedKeyIsAccepted) {
  auto ec = ec_key("P-256");
  auto rsa = rsa_key(2048);
  EXPECT_TRUE(check(signing(), csr_pem(ec.get(), "CP-7")).accepted);
  EXPECT_TRUE(check(signing(), csr_pem(rsa.get(), "CP-7")).accepted);
}

TEST(CertificateRequests, WithoutASignerEveryCsrIsRefusedWithoutSuspicion) {
  auto key = ec_key();
  const auto d = check(CsrPolicy{}, csr_pem(key.get(), "CP-7"));
  EXPECT_FALSE(d.accepted);
  EXPECT_EQ(d.reason_code, "NoCertAuthority");
  EXPECT_FALSE(d.suspicious);
}

TEST(CertificateRequests, AnotherIdentityIsRefusedAsSuspicious) {
  auto key = ec_key();
  const auto d = check(signing(), csr_pem(key.get(), "CP-8"));
  EXPECT_FALSE(d.accepted);
  EXPECT_EQ(d.reason_code, "InvalidCommonName");
  EXPECT_TRUE(d.suspicious);
  EXPECT_NE(d.detail.find("'CP-8'"), std::string::npos) << d.detail;
}

TEST(CertificateRequests, ASubjectChangedAfterSigningFailsTheSignatureCheck) {
  auto key = ec_key();
  const auto d = check(signing(), csr_pem(key.get(), "CP-8", "", "CP-7"));
  EXPECT_EQ(d.reason_code, "InvalidCSRSignature");
  EXPECT_TRUE(d.suspicious);
}

TEST(CertificateRequests, KeysOutsideThePolicyAreRefused) {
  auto weak = rsa_key(1024);
  auto p521 = ec_key("P-521");
  EXPECT_EQ(check(signing(), csr_pem(weak.get(), "CP-7")).reason_code, "KeyNotAllowed");
  const auto d = check(signing(), csr_pem(p521.get(), "CP-7"));
  EXPECT_EQ(d.reason_code, "KeyNotAllowed");
  EXPECT_NE(d.detail.find("P-521"), std::string::npos) << d.detail;
  CsrPolicy ec_only = signing();
  ASSERT_EQ(parse_csr_key_types("ec:P-256", ec_only), "");
  auto rsa = rsa_key(2048);
  EXPECT_EQ(check(ec_only, csr_pem(rsa.get(), "CP-7")).reason_code, "KeyNotAllowed");
}

TEST(CertificateRequests, TheConfiguredOrganizationMustMatch) {
  CsrPolicy p = signing();
  p.organization = "Example CPO";
  auto key = ec_key();
  EXPECT_TRUE(check(p, csr_pem(key.get(), "CP-7", "Example CPO")).accepted);
  EXPECT_EQ(check(p, csr_pem(key.get(), "CP-7", "Other")).reason_code, "InvalidOrganization");
  EXPECT_EQ(check(p, csr_pem(key.get(), "CP-7")).reason_code, "InvalidOrganization");
}

TEST(CertificateRequests, GarbageAndV2gRequestsAreRefusedWithTheirReason) {
  auto key = ec_key();
  EXPECT_EQ(check(signing(), "not a csr").reason_code, "InvalidCSR");
  const auto v2g = check(signing(), csr_pem(key.get(), "CP-7"), "V2GCertificate");
  EXPECT_EQ(v2g.reason_code, "UnsupportedCertType");
  EXPECT_FALSE(v2g.suspicious);
}

TEST(CertificateRequests, ACsrWithoutItsPemArmourIsTheSameRequest) {
  auto key = ec_key();
  std::string pem = csr_pem(key.get(), "CP-7");
  const std::string begin = "-----BEGIN CERTIFICATE REQUEST-----\n";
  const std::string end = "-----END CERTIFICATE REQUEST-----\n";
  std::string body = pem.substr(begin.size(), pem.size() - begin.size() - end.size());
  EXPECT_TRUE(check(signing(), body).accepted);
  EXPECT_EQ(armoured_csr(body), pem);  // its trailing line break is not doubled
  body.pop_back();
  EXPECT_TRUE(check(signing(), body).accepted);
  EXPECT_EQ(armoured_csr(body), pem);
}

TEST(CertificateRequests, KeyTypesParseAndRefuseWhatTheyCannotMean) {
  CsrPolicy p;
  EXPECT_EQ(parse_csr_key_types("rsa:3072, ec:P-384", p), "");
  EXPECT_EQ(p.min_rsa_bits, 3072);
  EXPECT_EQ(p.ec_curves, std::vector<std::string>{"P-384"});
  EXPECT_EQ(format_csr_key_types(p), "rsa:3072,ec:P-384");
  const CsrPolicy before = p;
  EXPECT_NE(parse_csr_key_types("rsa:512", p), "");
  EXPECT_NE(parse_csr_key_types("ec:brainpool", p), "");
  EXPECT_NE(parse_csr_key_types("dsa:1024", p), "");
  EXPECT_EQ(p.min_rsa_bits, before.min_rsa_bits);  // a refused text changes nothing
}

}  // namespace
}  // namespace ocppgw::csms
