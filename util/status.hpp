// util/status.hpp: the one error style for fallible calls (docs/architecture.md, "Errors").
// A call that can fail returns a Status, or returns its value (a pointer or optional that is
// empty on failure) and reports why through a `Status*` out-parameter. Errors are values, never
// exceptions, so a caller can make a failure sticky (the event sink does) and nothing unwinds
// through a thread boundary. Exceptions appear only where a library throws (nlohmann/json,
// CLI11) and are converted at that boundary.
#pragma once

#include <memory>
#include <string>

namespace ocppgw::util {

class Status {
 public:
  Status() = default;
  static Status error(std::string message) { return Status(std::move(message)); }
  bool ok() const { return !message_; }
  // "OK" when ok().
  const std::string& message() const;

 private:
  explicit Status(std::string m) : message_(std::make_shared<std::string>(std::move(m))) {}
  // Shared: copying a Status (it is passed around a lot) costs no string copy.
  std::shared_ptr<const std::string> message_;
};

}  // namespace ocppgw::util
