// rpc/json_parse.hpp: the fast road from frame text to the nlohmann tree the handlers read.
//
// nlohmann's own parser reads one character at a time through an input adapter and appends
// strings byte by byte: about 40% of dispatching a 1.6 MeterValues frame (BENCHMARKS.md,
// "Parsing frames"). simdjson (Debian's libsimdjson-dev) finds the structure and validates
// UTF-8 with SIMD instructions; its document is then copied into an nlohmann tree.
//
// nlohmann stays the reference: try_parse_json() answers only where it is sure to give the
// tree json::parse would give (same values, same number types: non-negative integers unsigned,
// negative ones signed, the rest double; the last of duplicate keys wins). Anything else - text
// that is not valid JSON, \u escapes (where the two differ on lone surrogates), -0, integers
// beyond 64 bits, documents above kMaxFastParseBytes - yields nullopt, and the caller parses
// with json::parse, which then gives the verdict and its error. tests/unit/rpc/json_parse_test.cpp
// and fuzz/frame_fuzz.cpp hold the two to that.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ocppgw::rpc {

// Larger documents go to json::parse: a simdjson parser keeps buffers sized to the largest
// document it has seen, once per thread, and no hot frame comes close to this.
inline constexpr size_t kMaxFastParseBytes = 64 * 1024;

// The tree json::parse(text) would build, or nullopt when that is not certain (see above).
// `max_depth` is the most arrays and objects nested in one another that it converts (as
// rpc/frame.cpp counts brackets); deeper documents yield nullopt too.
std::optional<nlohmann::json> try_parse_json(std::string_view text, size_t max_depth);

}  // namespace ocppgw::rpc
