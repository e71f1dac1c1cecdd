// tests/unit/rpc/schema_set_test.cpp: validation against the official 1.6 schemas and the
// mapping of the first violation to its CALLERROR class.
#include "rpc/schema_set.hpp"

#include <gtest/gtest.h>

#include "ocpp16/protocol.hpp"

namespace ocppgw::rpc {
namespace {

using nlohmann::json;

const SchemaSet& schemas() { return ocpp16::protocol().schemas; }

TEST(RpcSchemaSet, AcceptsAValidRequest) {
  const auto r = schemas().validate("StartTransaction", {{"connectorId", 1},
                                                         {"idTag", "ABC"},
                                                         {"meterStart", 0},
                                                         {"timestamp", "2025-01-01T00:00:00Z"}});
  EXPECT_TRUE(r.ok) << r.summary();
  EXPECT_TRUE(r.violations.empty());
}

TEST(RpcSchemaSet, MissingRequiredIsAnOccurrenceViolation) {
  const auto r = schemas().validate("Authorize", json::object());
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.code, RpcError::OccurrenceConstraintViolation);
  EXPECT_EQ(wire_name(r.code, OcppVersion::v16), "OccurenceConstraintViolation");
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations[0].path, "/");
  EXPECT_NE(r.violations[0].message.find("idTag"), std::string::npos);
}

TEST(RpcSchemaSet, WrongTypeIsATypeViolation) {
  const auto r =
      schemas().validate("StatusNotification",
                         {{"connectorId", "1"}, {"errorCode", "NoError"}, {"status", "Available"}});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.code, RpcError::TypeConstraintViolation);
  EXPECT_EQ(r.violations.at(0).path, "/connectorId");
  // Strong types: a float is not an integer.
  const auto f =
      schemas().validate("StatusNotification",
                         {{"connectorId", 1.5}, {"errorCode", "NoError"}, {"status", "Available"}});
  EXPECT_EQ(f.code, RpcError::TypeConstraintViolation);
}

TEST(RpcSchemaSet, EnumAndLengthAreProperyViolations) {
  const auto e = schemas().validate(
      "StatusNotification", {{"connectorId", 1}, {"errorCode", "NoError"}, {"status", "Open"}});
  ASSERT_FALSE(e.ok);
  EXPECT_EQ(e.code, RpcError::PropertyConstraintViolation);
  EXPECT_EQ(e.violations.at(0).path, "/status");

  const auto l = schemas().validate("Authorize", {{"idTag", std::string(21, 'x')}});
  ASSERT_FALSE(l.ok);
  EXPECT_EQ(l.code, RpcError::PropertyConstraintViolation);
  EXPECT_EQ(l.violations.at(0).path, "/idTag");
}

// valijson reads a "format": "uri" member as a string before anything else and threw on an
// array; the format is not checked, so the type violation is what the caller hears.
TEST(RpcSchemaSet, ANonStringUriIsATypeViolationNotAnException) {
  for (const json& location :
       {json::array({1, 2}), json{{"a", 1}}, json(18446744073709551615ULL)}) {
    const json payload = {{"location", location}, {"retrieveDate", "2025-01-01T00:00:00Z"}};
    ValidationOutcome r;
    ASSERT_NO_THROW(r = schemas().validate_reference("UpdateFirmware", payload)) << location;
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.code, RpcError::TypeConstraintViolation) << location;
  }
  EXPECT_TRUE(schemas()
                  .validate("UpdateFirmware", {{"location", "ftp://example.com/fw.bin"},
                                               {"retrieveDate", "2025-01-01T00:00:00Z"}})
                  .ok);
}

TEST(RpcSchemaSet, AdditionalPropertyIsAFormationViolation) {
  const auto r = schemas().validate("Heartbeat", {{"extra", 1}});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.code, RpcError::FormationViolation);
}

TEST(RpcSchemaSet, NestedViolationsCarryTheirPath) {
  const json payload = {{"connectorId", 1},
                        {"meterValue",
                         {{{"timestamp", "2025-01-01T00:00:00Z"},
                           {"sampledValue", {{{"value", "1"}, {"unit", "Parsec"}}}}}}}};
  const auto r = schemas().validate("MeterValues", payload);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.code, RpcError::PropertyConstraintViolation);
  ASSERT_EQ(r.violations.size(), 1u);  // the container wrappers are not reported
  EXPECT_EQ(r.violations[0].path, "/meterValue/0/sampledValue/0/unit");
  const auto empty =
      schemas().validate("MeterValues", {{"connectorId", 1}, {"meterValue", json::array()}});
  EXPECT_EQ(empty.code, RpcError::OccurrenceConstraintViolation);  // minItems 1
}

TEST(RpcSchemaSet, ReportsEveryViolationInTheSummary) {
  const auto r = schemas().validate("StatusNotification", {{"connectorId", 1},
                                                           {"errorCode", "Bogus"},
                                                           {"status", "Available"},
                                                           {"info", std::string(51, 'i')}});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.violations.size(), 2u);
  EXPECT_NE(r.summary().find("/errorCode"), std::string::npos);
  EXPECT_NE(r.summary().find("/info"), std::string::npos);
}

TEST(RpcSchemaSet, DateTimeFormatIsChecked) {
  auto start = [](const char* ts) {
    return json{{"connectorId", 1}, {"idTag", "A"}, {"meterStart", 0}, {"timestamp", ts}};
  };
  EXPECT_TRUE(schemas().validate("StartTransaction", start("2025-06-15T15:00:00.123+02:00")).ok);
  for (const char* bad : {"yesterday", "2025-06-15", "2025-06-15T15:00:00", "2025-13-01T00:00:00Z",
                          "2025-02-30T00:00:00Z"}) {
    const auto r = schemas().validate("StartTransaction", start(bad));
    EXPECT_FALSE(r.ok) << bad;
    EXPECT_EQ(r.code, RpcError::PropertyConstraintViolation) << bad;
  }
}

TEST(RpcSchemaSet, MultipleOfToleratesDecimalDivisors) {
  // limit has "multipleOf": 0.1; 16.0 / 0.1 is not exactly an integer in binary floating point.
  auto profile = [](json limit) {
    return json{{"connectorId", 1},
                {"csChargingProfiles",
                 {{"chargingProfileId", 1},
                  {"stackLevel", 0},
                  {"chargingProfilePurpose", "TxDefaultProfile"},
                  {"chargingProfileKind", "Relative"},
                  {"chargingSchedule",
                   {{"chargingRateUnit", "A"},
                    {"chargingSchedulePeriod", {{{"startPeriod", 0}, {"limit", limit}}}}}}}}};
  };
  for (const json& ok : {json(16.0), json(0.3), json(11000.0), json(7.7), json(0.0), json(32)})
    EXPECT_TRUE(schemas().validate("SetChargingProfile", profile(ok)).ok) << ok;
  for (const json& bad : {json(16.05), json(0.01), json(7.123)}) {
    const auto r = schemas().validate("SetChargingProfile", profile(bad));
    EXPECT_FALSE(r.ok) << bad;
    EXPECT_EQ(r.code, RpcError::PropertyConstraintViolation) << bad;
  }
}

TEST(RpcSchemaSet, HugeStringsAreValidatedWithoutBlowingTheStack) {
  // A timestamp is matched against the date-time format; a 1 MB one must simply fail.
  const json payload = {{"connectorId", 1},
                        {"idTag", "A"},
                        {"meterStart", 0},
                        {"timestamp", std::string(1 << 20, '1')}};
  const auto r = schemas().validate("StartTransaction", payload);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.code, RpcError::PropertyConstraintViolation);
}

TEST(RpcSchemaSet, UnknownSchemaNameIsAnInternalError) {
  EXPECT_FALSE(schemas().has("NoSuchAction"));
  const auto r = schemas().validate("NoSuchAction", json::object());
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.code, RpcError::InternalError);
}

TEST(RpcSchemaSet, BadSchemaTextThrowsAtConstruction) {
  const std::map<std::string_view, std::string_view> sources = {{"Broken", "{not json"}};
  EXPECT_THROW(SchemaSet(OcppVersion::v16, sources), std::runtime_error);
}

}  // namespace
}  // namespace ocppgw::rpc
