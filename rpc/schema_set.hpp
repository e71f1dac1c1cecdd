// rpc/schema_set.hpp: the official OCPP JSON schemas of one version, compiled once at
// start-up and shared read-only by every thread. valijson is the reference validator; a valid
// frame is usually vouched for by the schema's FastSchema (rpc/fast_schema.hpp) instead, which
// is never more lenient. Validation maps the first failing constraint to the OCPP CALLERROR
// class it belongs to and lists every violation for the event.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "rpc/rpc_error.hpp"
#include "util/json_tape.hpp"

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
  // The same verdict from the reference validator alone, and whether `name` has a fast path:
  // for the tests and the fuzz target that hold the two to the same answers.
  ValidationOutcome validate_reference(std::string_view name, const nlohmann::json& instance) const;
  bool has_fast_path(std::string_view name) const;
  // True when the schema's fast check vouches for an instance read into a tape
  // (util/json_tape.hpp); false says nothing: read it as a tree and validate() that.
  bool fast_accepts(std::string_view name, const util::JsonTape::Value& instance) const;

 private:
  struct Compiled;
  OcppVersion version_;
  std::map<std::string, std::unique_ptr<Compiled>, std::less<>> schemas_;
};

}  // namespace ocppgw::rpc
