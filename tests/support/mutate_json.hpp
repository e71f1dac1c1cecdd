// tests/support/mutate_json.hpp: byte flips, cuts and splices of JSON text, for the tests that
// hold a fast reader to json::parse (util/json_read.hpp, analytics::read_event_text): 1-3 edits,
// each replacing, deleting (1-4 bytes) or inserting one byte drawn from JSON's punctuation,
// digits, literal letters and a few bytes the readers must hand over (a control character,
// UTF-8 lead bytes).
#pragma once

#include <random>
#include <string>
#include <string_view>

namespace ocppgw::testing {

inline std::string mutate_json(std::string text, std::mt19937& random) {
  static constexpr std::string_view kAlphabet = "{}[],:\"\\-0123456789.eE+tfnul \x01\xc3\xff";
  for (int edits = 1 + static_cast<int>(random() % 3); edits > 0; --edits) {
    if (text.empty()) text = "[";
    const size_t at = random() % text.size();
    switch (random() % 3) {
      case 0:
        text[at] = kAlphabet[random() % kAlphabet.size()];
        break;
      case 1:
        text.erase(at, 1 + random() % 4);
        break;
      default:
        text.insert(at, 1, kAlphabet[random() % kAlphabet.size()]);
    }
  }
  return text;
}

}  // namespace ocppgw::testing
