// ocpp16/fields.cpp
#include "ocpp16/fields.hpp"

#include <string>

#include "rpc/mapper_util.hpp"
#include "util/time.hpp"

namespace ocppgw::ocpp16 {

using nlohmann::json;
using rpc::as_integer;

void FieldReader::fail(rpc::RpcError code, std::string_view key, std::string_view why) {
  if (error_) return;  // the first problem is the one reported
  error_ = rpc::CallError{code, "/" + std::string(key) + ": " + std::string(why)};
}

const json* FieldReader::find(std::string_view key) {
  if (payload_.is_object()) {
    auto it = payload_.find(key);
    if (it != payload_.end() && !it->is_null()) return &*it;
  }
  fail(rpc::RpcError::OccurrenceConstraintViolation, key, "required member is missing");
  return nullptr;
}

int64_t FieldReader::integer(std::string_view key) {
  const json* v = find(key);
  if (!v) return 0;
  if (auto i = as_integer(*v)) return *i;
  fail(rpc::RpcError::TypeConstraintViolation, key, "expected an integer");
  return 0;
}

std::string_view FieldReader::string(std::string_view key) {
  const json* v = find(key);
  if (!v) return {};
  if (v->is_string()) return v->get_ref<const std::string&>();
  fail(rpc::RpcError::TypeConstraintViolation, key, "expected a string");
  return {};
}

int64_t FieldReader::timestamp_ms(std::string_view key) {
  const json* v = find(key);
  if (!v) return 0;
  if (!v->is_string()) {
    fail(rpc::RpcError::TypeConstraintViolation, key, "expected an RFC 3339 date-time string");
    return 0;
  }
  if (auto ms = util::parse_rfc3339_ms(v->get_ref<const std::string&>())) return *ms;
  fail(rpc::RpcError::PropertyConstraintViolation, key, "not an RFC 3339 date-time with a zone");
  return 0;
}

std::optional<int64_t> FieldReader::optional_integer(std::string_view key) const {
  if (!payload_.is_object()) return std::nullopt;
  auto it = payload_.find(key);
  return it == payload_.end() ? std::nullopt : as_integer(*it);
}

std::optional<std::string_view> FieldReader::optional_string(std::string_view key) const {
  return rpc::string_member(payload_, key);
}

}  // namespace ocppgw::ocpp16
