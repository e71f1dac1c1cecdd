// tests/support/json_number_texts.hpp: number texts at every edge of json::parse's typing
// (unsigned, signed, double; 64-bit limits; out of range), for the tests that hold a fast reader
// to the tree it must give (util/json_read.hpp, util/json_tape.hpp).
#pragma once

namespace ocppgw::testing {

inline constexpr const char* kJsonNumberTexts[] = {"0",
                                                   "1",
                                                   "-1",
                                                   "-0",
                                                   "9223372036854775807",
                                                   "9223372036854775808",
                                                   "18446744073709551615",
                                                   "18446744073709551616",
                                                   "-9223372036854775808",
                                                   "-9223372036854775809",
                                                   "1.5",
                                                   "-1.5",
                                                   "1e2",
                                                   "1E-2",
                                                   "0.1",
                                                   "-0.0",
                                                   "0.0",
                                                   "1.7976931348623157e308",
                                                   "5e-324",
                                                   "1e400",
                                                   "-1e400",
                                                   "2.2250738585072014e-308",
                                                   "123456789012345678901234567890"};

}  // namespace ocppgw::testing
