// tests/unit/csms/ocsp_client_test.cpp: what the OCSP client refuses before it sends anything
// (tests/integration/security/ocsp_test.py asks a real responder).
#include "csms/ocsp_client.hpp"

#include <fstream>

#include <gtest/gtest.h>

#include "tests/support/certificates.hpp"
#include "tests/unit/storage/temp_dir.hpp"

namespace ocppgw::csms {
namespace {

using Status = rpc::OcspResult::Status;

rpc::OcspRequestData request(std::string url) {
  return {"SHA256", std::string(64, 'a'), std::string(64, 'b'), "1001", std::move(url)};
}

class OcspClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto key = testing::ec_key();
    std::ofstream(dir_.file("trust.pem")) << testing::ca_pem(key.get());
    OcspPolicy policy;
    ASSERT_EQ(parse_ocsp_hosts("127.0.0.1:1", policy.allowed_hosts), "");
    policy.trust_file = dir_.file("trust.pem");
    util::Status status;
    client_ = OcspClient::open(policy, &status);
    ASSERT_TRUE(client_) << status.message();
  }
  ocppgw::testing::TempDir dir_;
  std::unique_ptr<OcspClient> client_;
};

TEST_F(OcspClientTest, OnlyAllowedPlainHttpRespondersAreAsked) {
  auto r = client_->check(request("http://10.0.0.1:80/ocsp"));
  EXPECT_EQ(r.status, Status::Failed);
  EXPECT_EQ(r.reason, "responder 10.0.0.1:80 is not in ocsp_responder_hosts");
  r = client_->check(request("https://127.0.0.1:1/"));
  EXPECT_NE(r.reason.find("only http:// is supported"), std::string::npos) << r.reason;
  r = client_->check(request("not a url at all"));
  EXPECT_NE(r.reason.find("is not an http:// URL"), std::string::npos) << r.reason;
}

TEST_F(OcspClientTest, HashesAndSerialsThatCannotBeACertIdAreRefused) {
  auto bad = request("http://127.0.0.1:1/");
  bad.hash_algorithm = "MD5";
  EXPECT_EQ(client_->check(bad).reason, "unsupported hashAlgorithm MD5");
  bad = request("http://127.0.0.1:1/");
  bad.issuer_name_hash = "abcd";  // not a SHA-256 digest
  EXPECT_NE(client_->check(bad).reason.find("SHA256 digests"), std::string::npos);
  bad = request("http://127.0.0.1:1/");
  bad.serial_number = "12xz";
  EXPECT_EQ(client_->check(bad).reason, "serialNumber is not a hexadecimal number");
}

TEST_F(OcspClientTest, AResponderThatIsDownIsAFailureNamingIt) {
  const auto r = client_->check(request("http://127.0.0.1:1/"));  // port 1: nothing listens
  EXPECT_EQ(r.status, Status::Failed);
  EXPECT_NE(r.reason.find("OCSP responder 127.0.0.1:1"), std::string::npos) << r.reason;
}

TEST(OcspHosts, ParseHostPortListsAndRefuseTheRest) {
  std::vector<std::string> hosts;
  EXPECT_EQ(parse_ocsp_hosts(" ocsp.example:80, 127.0.0.1:8080 ", hosts), "");
  EXPECT_EQ(hosts, (std::vector<std::string>{"ocsp.example:80", "127.0.0.1:8080"}));
  EXPECT_NE(parse_ocsp_hosts("ocsp.example", hosts), "");
  EXPECT_NE(parse_ocsp_hosts("ocsp.example:http", hosts), "");
  EXPECT_EQ(hosts.size(), 2u);  // a refused text changes nothing
}

TEST(OcspTrust, AnUnreadableTrustFileIsNamed) {
  OcspPolicy policy;
  policy.trust_file = "/nonexistent/trust.pem";
  util::Status status;
  EXPECT_FALSE(OcspClient::open(policy, &status));
  EXPECT_NE(status.message().find("/nonexistent/trust.pem"), std::string::npos);
}

}  // namespace
}  // namespace ocppgw::csms
