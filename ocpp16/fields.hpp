// ocpp16/fields.hpp: defensive reads of request members for the handlers. In lenient mode a
// request reaches its handler even when it breaks the schema, so nothing may assume a member
// exists or has its schema type. A FieldReader records the first member the handler could not
// do without, as the CALLERROR the schema check would have given (missing ->
// OccurrenceConstraintViolation, wrong type -> TypeConstraintViolation, bad value ->
// PropertyConstraintViolation). Values only; not shared between threads.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "rpc/rpc_error.hpp"

namespace ocppgw::ocpp16 {

class FieldReader {
 public:
  explicit FieldReader(const nlohmann::json& payload) : payload_(payload) {}

  // Required members: on failure the error is recorded and a neutral value returned, so a
  // handler reads everything first and checks error() once.
  int64_t integer(std::string_view key);
  std::string_view string(std::string_view key);
  int64_t timestamp_ms(std::string_view key);  // RFC 3339 with a zone

  // Optional members: absent or unusable -> nullopt, never an error.
  std::optional<int64_t> optional_integer(std::string_view key) const;
  std::optional<std::string_view> optional_string(std::string_view key) const;

  const std::optional<rpc::CallError>& error() const { return error_; }

 private:
  const nlohmann::json* find(std::string_view key);  // records OccurrenceConstraintViolation
  void fail(rpc::RpcError code, std::string_view key, std::string_view why);

  const nlohmann::json& payload_;
  std::optional<rpc::CallError> error_;
};

}  // namespace ocppgw::ocpp16
