// tests/support/json_texts.hpp: texts at the edges of JSON, for the tests that hold a fast
// reader to the tree json::parse gives (util/json_read.hpp, util/json_tape.hpp): numbers at every
// edge of json::parse's typing (unsigned, signed, double; 64-bit limits; out of range), and
// structure the readers must refuse or read alike.
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

// Structure, literals and garbage: empty text, trailing commas, bare keys, literals cut short,
// numbers JSON refuses, trailing text and blanks, a duplicate key, nesting.
inline constexpr const char* kJsonStructureTexts[] = {"",
                                                      " ",
                                                      "[]",
                                                      "{}",
                                                      "[1,]",
                                                      "[,1]",
                                                      "{\"a\":1,}",
                                                      "{\"a\"}",
                                                      "{1:2}",
                                                      "[1 2]",
                                                      "true",
                                                      "false",
                                                      "null",
                                                      "tru",
                                                      "nul",
                                                      "[true,false,null]",
                                                      "01",
                                                      "+1",
                                                      ".5",
                                                      "1.",
                                                      "1e",
                                                      "NaN",
                                                      "Infinity",
                                                      "[1]x",
                                                      "[1] ",
                                                      "\t[1]\r\n",
                                                      "[1]\f",
                                                      "{\"a\":1,\"a\":2}",
                                                      "{\"b\":1,\"a\":[{\"c\":{}}]}",
                                                      "[[[[]]]]",
                                                      "\"\"",
                                                      "[\"\",{}]"};

}  // namespace ocppgw::testing
