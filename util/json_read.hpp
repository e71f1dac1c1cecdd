// util/json_read.hpp: the fast road from JSON text to the nlohmann tree, for the text the gateway
// reads every second: OCPP-J frames (rpc/frame.cpp) and stored events read back by analytics
// (analytics/event.cpp, read_event_text).
//
// nlohmann's own parser reads one character at a time through an input adapter, tracking line
// and column, and appends strings byte by byte: about 40% of dispatching a 1.6 MeterValues frame
// (BENCHMARKS.md, "Parsing frames"). That text is nearly always plain: ASCII strings, short
// numbers, shallow nesting. JsonReader reads exactly that over a pointer and builds the same
// tree directly.
//
// nlohmann stays the reference: the reader answers only where it is sure to give the tree
// json::parse would give (same values, same number types: integers without a minus unsigned,
// with one signed, the rest double; the last of duplicate keys wins). Anything else - text that
// is not valid JSON, bytes above 0x7F in strings (UTF-8 validation), \u escapes, integers beyond
// 64 bits, doubles out of range - makes it give up (false / nullopt), and the caller parses with
// json::parse, which then gives the verdict and its error. (simdjson was measured first; pyarrow's
// libparquet carries its own simdjson build, whose symbols then replaced Debian's in the gateway
// process and crashed it.) tests/unit/util/json_read_test.cpp and fuzz/frame_fuzz.cpp hold the
// reader to that.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ocppgw::util {

// A recursive-descent reader over one text. Each read returns false at the first thing it does
// not handle itself (the position is then unspecified: give up on the whole text).
class JsonReader {
 public:
  explicit JsonReader(std::string_view text) : at_(text.data()), end_(text.data() + text.size()) {}

  bool at_end() const { return at_ == end_; }
  void skip_blanks() {
    while (at_ != end_ && (*at_ == ' ' || *at_ == '\n' || *at_ == '\r' || *at_ == '\t')) ++at_;
  }
  // The next character is `c` (no blanks skipped); consumed when it is.
  bool consume(char c) {
    if (at_ == end_ || *at_ != c) return false;
    ++at_;
    return true;
  }
  bool next_is(char c) const { return at_ != end_ && *at_ == c; }
  bool literal(std::string_view word);

  // Any value, at most `depth_left` arrays and objects deep.
  bool value(nlohmann::json& out, size_t depth_left);
  // A string (decoded, appended to `out`): printable ASCII and the two-character escapes only.
  // With `plain`, a string without escapes is not copied: *plain is its text, a view into the
  // input, and `out` is left as it was (util/json_tape.hpp keeps strings in the text).
  bool string(std::string& out, std::string_view* plain = nullptr);

  // A number as json::parse types it: an integer without a minus unsigned, with one signed,
  // anything with a fraction or exponent a double.
  struct Number {
    enum class Kind { Unsigned, Signed, Float } kind = Kind::Unsigned;
    uint64_t u = 0;
    int64_t i = 0;
    double d = 0;
  };
  bool number(Number& out);
  bool number(nlohmann::json& out);

 private:
  bool object(nlohmann::json& out, size_t depth_left);
  bool array(nlohmann::json& out, size_t depth_left);

  const char* at_;
  const char* end_;
};

// The tree json::parse(text) would build, or nullopt when that is not certain (see above).
// `max_depth` is the most arrays and objects nested in one another that it reads (as
// rpc/frame.cpp counts brackets); deeper documents yield nullopt too.
std::optional<nlohmann::json> try_parse_json(std::string_view text, size_t max_depth);

}  // namespace ocppgw::util
