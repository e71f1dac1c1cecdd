// tests/support/same_json.hpp: two nlohmann trees equal to the number type and the bit.
// json's operator== calls 1 and 1.0 (and 0.0 and -0.0) equal; the fast readers
// (util/json_read.hpp, analytics::read_event_text) must give json::parse's tree exactly.
#pragma once

#include <cstring>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace ocppgw::testing {

inline ::testing::AssertionResult same_tree(const nlohmann::json& a, const nlohmann::json& b,
                                            const std::string& at = "$") {
  if (a.type() != b.type())
    return ::testing::AssertionFailure()
           << at << ": type " << a.type_name() << " (" << static_cast<int>(a.type()) << ") vs "
           << b.type_name() << " (" << static_cast<int>(b.type()) << ")";
  if (a.is_object()) {
    if (a.size() != b.size()) return ::testing::AssertionFailure() << at << ": member count";
    for (auto it = a.begin(), jt = b.begin(); it != a.end(); ++it, ++jt) {
      if (it.key() != jt.key()) return ::testing::AssertionFailure() << at << ": keys differ";
      if (auto r = same_tree(*it, *jt, at + "." + it.key()); !r) return r;
    }
    return ::testing::AssertionSuccess();
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return ::testing::AssertionFailure() << at << ": item count";
    for (size_t i = 0; i < a.size(); ++i)
      if (auto r = same_tree(a[i], b[i], at + "[" + std::to_string(i) + "]"); !r) return r;
    return ::testing::AssertionSuccess();
  }
  if (a.is_number_float()) {
    const double x = a.get<double>(), y = b.get<double>();
    if (std::memcmp(&x, &y, sizeof x) != 0)
      return ::testing::AssertionFailure() << at << ": " << a.dump() << " vs " << b.dump();
    return ::testing::AssertionSuccess();
  }
  if (a != b) return ::testing::AssertionFailure() << at << ": " << a.dump() << " vs " << b.dump();
  return ::testing::AssertionSuccess();
}

}  // namespace ocppgw::testing
