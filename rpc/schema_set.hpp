// rpc/schema_set.hpp: the official OCPP JSON schemas of one version, compiled once at
// start-up (valijson) and shared read-only by every thread. Validation maps the first failing
// constraint to the OCPP CALLERROR class it belongs to and lists every violation for the event.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "rpc/rpc_error.hpp"

namespace ocppgw::rpc {

struct Violation {
  std::string path;  // JSON pointer-ish path, e.g. "/meterValue/0/timestamp"
  std::string message;
};

struct ValidationOutcome {
  bool ok = true;
  RpcError code = RpcError::GenericError;  // class of the first violation when !ok
  std::vector<Violation> violations;
  std::string summary() const;  // "path: message; ..." for CALLERROR descriptions
};

class SchemaSet {
 public:
  // `sources` maps a schema name (file stem, e.g. "StartTransaction", "BootNotificationResponse")
  // to its JSON text. Throws std::runtime_error if a schema does not compile: that is a build
  // defect, found at start-up rather than at the first message.
  SchemaSet(OcppVersion version, const std::map<std::string_view, std::string_view>& sources);
  ~SchemaSet();
  SchemaSet(const SchemaSet&) = delete;
  SchemaSet& operator=(const SchemaSet&) = delete;

  bool has(std::string_view name) const;
  // REQUIRES: has(name).
  ValidationOutcome validate(std::string_view name, const nlohmann::json& instance) const;

 private:
  struct Compiled;
  OcppVersion version_;
  std::map<std::string, std::unique_ptr<Compiled>, std::less<>> schemas_;
};

}  // namespace ocppgw::rpc
