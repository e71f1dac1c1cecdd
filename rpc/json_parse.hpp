// rpc/json_parse.hpp: the fast road from frame text to the nlohmann tree the handlers read.
//
// nlohmann's own parser reads one character at a time through an input adapter, tracking line
// and column, and appends strings byte by byte: about 40% of dispatching a 1.6 MeterValues frame
// (BENCHMARKS.md, "Parsing frames"). Frames are nearly always plain: ASCII strings, short
// numbers, shallow nesting. try_parse_json reads exactly that over a pointer and builds the same
// tree directly.
//
// nlohmann stays the reference: try_parse_json answers only where it is sure to give the tree
// json::parse would give (same values, same number types: integers without a minus unsigned,
// with one signed, the rest double; the last of duplicate keys wins). Anything else - text that
// is not valid JSON, bytes above 0x7F in strings (UTF-8 validation), \u escapes, integers beyond
// 64 bits, doubles out of range - yields nullopt, and the caller parses with json::parse, which
// then gives the verdict and its error. (simdjson was measured first, and is what the issue
// suggests; pyarrow's libparquet carries its own simdjson build, whose symbols then replaced
// Debian's in the gateway process and crashed it.) tests/unit/rpc/json_parse_test.cpp and
// fuzz/frame_fuzz.cpp hold the two parsers to that.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ocppgw::rpc {

// The tree json::parse(text) would build, or nullopt when that is not certain (see above).
// `max_depth` is the most arrays and objects nested in one another that it reads (as
// rpc/frame.cpp counts brackets); deeper documents yield nullopt too.
std::optional<nlohmann::json> try_parse_json(std::string_view text, size_t max_depth);

}  // namespace ocppgw::rpc
