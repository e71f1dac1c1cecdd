// util/status.cpp: see status.hpp.
#include "util/status.hpp"

namespace ocppgw::util {

const std::string& Status::message() const {
  static const std::string kOk = "OK";
  return message_ ? *message_ : kOk;
}

}  // namespace ocppgw::util
