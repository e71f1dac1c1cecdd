// tests/unit/analytics/event_contract_test.cpp: every event the gateway makes, of every kind and
// from both protocol versions, conforms to the published contract docs/event.schema.json. The
// schema file is what consumers build on, so it is checked against real output, not by hand.
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include "ocpp16/protocol.hpp"
#include "ocpp201/protocol.hpp"
#include "rpc/dispatcher.hpp"
#include "tests/support/fake_csms_state.hpp"
#include "tests/unit/rpc/context.hpp"

namespace ocppgw::rpc {
namespace {

using nlohmann::json;

class EventContract : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::ifstream in(std::string(OCPPGW_SOURCE_DIR) + "/docs/event.schema.json");
    ASSERT_TRUE(in) << "docs/event.schema.json not found";
    std::stringstream text;
    text << in.rdbuf();
    schema_doc_ = json::parse(text.str());
    valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
    valijson::adapters::NlohmannJsonAdapter adapter(schema_doc_);
    parser.populateSchema(adapter, schema_);
  }

  std::vector<analytics::Event> send(OcppVersion version, std::string_view text) {
    const auto& protocol = version == OcppVersion::v16 ? ocpp16::protocol() : ocpp201::protocol();
    CallContext ctx =
        make_context(policy_, state_, "CP-7", ValidationMode::Strict, 1'700'000'000'123, version);
    return dispatch(protocol, ctx, text).events;
  }

  // Returns the violations of one event, empty when it conforms.
  static std::string violations(const analytics::Event& e) {
    const json doc = json::parse(analytics::to_json_string(e));
    valijson::Validator validator;
    valijson::ValidationResults results;
    valijson::adapters::NlohmannJsonAdapter target(doc);
    if (validator.validate(schema_, target, &results)) return {};
    std::string out;
    valijson::ValidationResults::Error error;
    while (results.popError(error)) out += error.description + "; ";
    return out + doc.dump();
  }

  testing::FakeCsmsState state_;
  Policy policy_{.id_token_secret = "k", .gateway_node = "node-7"};
  static inline json schema_doc_;
  static inline valijson::Schema schema_;
};

TEST_F(EventContract, EveryKindOfEventConformsToTheSchemaFile) {
  const std::vector<std::pair<OcppVersion, std::string>> frames = {
      {OcppVersion::v16,
       R"([2,"1","BootNotification",{"chargePointVendor":"V","chargePointModel":"M"}])"},
      {OcppVersion::v16, R"([2,"2","Heartbeat",{}])"},
      {OcppVersion::v16,
       R"([2,"3","StatusNotification",{"connectorId":1,"errorCode":"NoError","status":"SuspendedEV"}])"},
      {OcppVersion::v16, R"([2,"4","Authorize",{"idTag":"TAG1"}])"},
      {OcppVersion::v16,
       R"([2,"5","StartTransaction",{"connectorId":1,"idTag":"TAG1","meterStart":10,"timestamp":"2025-06-15T14:00:00+02:00"}])"},
      {OcppVersion::v16,
       R"([2,"6","MeterValues",{"connectorId":1,"transactionId":1,"meterValue":[{"timestamp":"2025-06-15T14:05:00Z","sampledValue":[{"value":"1.5","unit":"kWh"},{"value":"3","measurand":"Current.Import","phase":"L1"}]}]}])"},
      {OcppVersion::v16,
       R"([2,"7","StopTransaction",{"transactionId":-1,"meterStop":2000,"timestamp":"2025-06-15T15:00:00Z","transactionData":[{"timestamp":"2025-06-15T14:30:00Z","sampledValue":[{"value":"1800"}]}]}])"},
      {OcppVersion::v16, R"([2,"8","DataTransfer",{"vendorId":"X","data":"y"}])"},
      {OcppVersion::v16, R"([2,"9","FirmwareStatusNotification",{"status":"Installed"}])"},
      {OcppVersion::v16, R"([2,"10","DiagnosticsStatusNotification",{"status":"Uploaded"}])"},
      {OcppVersion::v16, R"([2,"11","NoSuchAction",{}])"},
      {OcppVersion::v16, R"(not json at all)"},
      {OcppVersion::v201,
       R"([2,"21","TransactionEvent",{"eventType":"Started","timestamp":"2025-06-15T14:00:00Z","triggerReason":"Authorized","seqNo":0,"transactionInfo":{"transactionId":"tx-9"},"evse":{"id":1,"connectorId":1},"idToken":{"idToken":"TAG2","type":"ISO14443"},"meterValue":[{"timestamp":"2025-06-15T14:00:00Z","sampledValue":[{"value":5}]}]}])"},
      {OcppVersion::v201,
       R"([2,"22","StatusNotification",{"timestamp":"2025-06-15T14:00:00Z","connectorStatus":"Occupied","evseId":1,"connectorId":1}])"},
      {OcppVersion::v201,
       R"([2,"23","SecurityEventNotification",{"type":"FirmwareUpdated","timestamp":"2025-06-15T14:00:00Z"}])"},
      {OcppVersion::v201,
       R"([2,"24","NotifyEvent",{"generatedAt":"2025-06-15T14:00:00Z","seqNo":0,"eventData":[{"eventId":1,"timestamp":"2025-06-15T14:00:00Z","trigger":"Alerting","actualValue":"1","eventNotificationType":"HardWiredNotification","component":{"name":"C"},"variable":{"name":"V"}}]}])"},
  };
  size_t checked = 0;
  std::set<analytics::EventType> kinds;
  for (const auto& [version, text] : frames) {
    for (const auto& e : send(version, text)) {
      EXPECT_EQ(violations(e), "") << text;
      kinds.insert(e.event_type);
      ++checked;
    }
  }
  CallContext ctx = make_context(policy_, state_, "CP-7", ValidationMode::Strict, 1);
  const auto connection = connection_event(ctx, "connected", {{"remote_address", "127.0.0.1"}});
  EXPECT_EQ(violations(connection), "");
  EXPECT_GE(checked, 17u);
  EXPECT_GE(kinds.size(), 13u);  // the fixture really covers the event types
}

TEST_F(EventContract, SchemaRejectsAnEventThatBreaksTheContract) {
  auto events = send(OcppVersion::v16, R"([2,"2","Heartbeat",{}])");
  ASSERT_EQ(events.size(), 1u);
  events[0].event_id = "not-a-hash";  // the contract promises 32 lowercase hex digits
  EXPECT_NE(violations(events[0]), "");
}

}  // namespace
}  // namespace ocppgw::rpc
