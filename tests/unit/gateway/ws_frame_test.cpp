// tests/unit/gateway/ws_frame_test.cpp: the byte-level RFC 6455 rules of gateway/ws_frame.hpp,
// each held to its section: a client frame's header (5.2, 5.1 masking, 5.5 control frames),
// a server frame's header, masking (5.3), close codes (7.4), streaming UTF-8 (RFC 3629 via
// 8.1) and the handshake's accept key (1.3, 4.2.2).
#include "gateway/ws_frame.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ocppgw::gateway::testing {
namespace {

namespace websocket = boost::beast::websocket;
using ws::Opcode;

constexpr std::array<uint8_t, 4> kMask{0x12, 0x34, 0xAB, 0xFF};

std::string bytes(std::initializer_list<uint8_t> list) {
  std::string s;
  for (uint8_t b : list) s.push_back(static_cast<char>(b));
  return s;
}

// The length forms of RFC 6455 5.2: 7-bit, 16-bit (126) and 64-bit (127).
enum class Form { k7, k16, k64 };

// A client frame header: `b0` as given, mask bit set unless `masked` is false, `length` in the
// given form (even a longer form than it needs), then the mask key when masked.
std::string client_header(uint8_t b0, uint64_t length, Form form, bool masked = true) {
  const uint8_t mask_bit = masked ? 0x80 : 0x00;
  std::string h(1, static_cast<char>(b0));
  int extended = 0;
  switch (form) {
    case Form::k7:
      h.push_back(static_cast<char>(mask_bit | length));
      break;
    case Form::k16:
      h.push_back(static_cast<char>(mask_bit | 126));
      extended = 2;
      break;
    case Form::k64:
      h.push_back(static_cast<char>(mask_bit | 127));
      extended = 8;
      break;
  }
  for (int i = extended - 1; i >= 0; --i) h.push_back(static_cast<char>(length >> (8 * i)));
  if (masked) h.append(reinterpret_cast<const char*>(kMask.data()), kMask.size());
  return h;
}

uint8_t first_byte(bool fin, uint8_t opcode) {
  return static_cast<uint8_t>((fin ? 0x80 : 0) | opcode);
}

struct Parsed {
  size_t size;
  ws::FrameHeader header;
  boost::system::error_code ec;
};

// Parses with `ec` preset to an unrelated error, so that "no error" means the parser cleared it.
Parsed parse(std::string_view in) {
  Parsed p{0, {}, websocket::error::closed};
  p.size = ws::parse_client_header(in, p.header, p.ec);
  return p;
}

void expect_refused(std::string_view in, websocket::error expected) {
  const Parsed p = parse(in);
  EXPECT_EQ(p.ec, expected);
  EXPECT_EQ(p.size, 0u);
}

struct LengthCase {
  uint64_t length;
  Form form;
  size_t header_size;  // including the 4-byte mask
};

// The smallest and largest length of each form, in that (minimal) form.
const std::vector<LengthCase> kLengthForms = {
    {0, Form::k7, 6},       {125, Form::k7, 6},
    {126, Form::k16, 8},    {65535, Form::k16, 8},
    {65536, Form::k64, 14}, {std::numeric_limits<uint64_t>::max() >> 1, Form::k64, 14},
};

// --- parse_client_header (RFC 6455 5.2) ---

TEST(WsFrameParse, ReadsEachLengthFormWithItsHeaderSize) {
  for (const auto& c : kLengthForms) {
    SCOPED_TRACE(c.length);
    const Parsed p = parse(client_header(first_byte(true, 2), c.length, c.form));
    EXPECT_FALSE(p.ec) << p.ec.message();
    EXPECT_EQ(p.size, c.header_size);
    EXPECT_EQ(p.header.length, c.length);
  }
}

TEST(WsFrameParse, ReturnsTheHeaderSizeWithoutTakingPayloadBytesThatFollow) {
  for (const auto& c : kLengthForms) {
    SCOPED_TRACE(c.length);
    const Parsed p = parse(client_header(first_byte(true, 1), c.length, c.form) + "payload");
    EXPECT_FALSE(p.ec) << p.ec.message();
    EXPECT_EQ(p.size, c.header_size);
  }
}

TEST(WsFrameParse, ReturnsFinOpcodeAndMaskAsSent) {
  const std::array<uint8_t, 4> other_mask{0x00, 0x80, 0x7F, 0x01};
  for (const Opcode op : {Opcode::continuation, Opcode::text, Opcode::binary, Opcode::close,
                          Opcode::ping, Opcode::pong}) {
    for (const bool fin : {true, false}) {
      if (ws::is_control(op) && !fin) continue;  // refused, see below
      SCOPED_TRACE(::testing::Message() << "opcode " << int(op) << " fin " << fin);
      std::string in = client_header(first_byte(fin, static_cast<uint8_t>(op)), 5, Form::k7);
      in.replace(2, 4, reinterpret_cast<const char*>(other_mask.data()), 4);
      const Parsed p = parse(in);
      ASSERT_FALSE(p.ec) << p.ec.message();
      EXPECT_EQ(p.header.fin, fin);
      EXPECT_EQ(p.header.opcode, op);
      EXPECT_EQ(p.header.mask, other_mask);
      EXPECT_EQ(p.header.length, 5u);
    }
  }
}

TEST(WsFrameParse, ReturnsZeroAndNoErrorForEveryStrictPrefix) {
  for (const auto& c : kLengthForms) {
    const std::string full = client_header(first_byte(true, 2), c.length, c.form);
    ASSERT_EQ(full.size(), c.header_size);
    for (size_t n = 0; n < full.size(); ++n) {
      SCOPED_TRACE(::testing::Message() << "length " << c.length << " prefix " << n);
      // Zero bytes after the prefix: a parser that reads past the end of its input takes the
      // 16-bit length 126 (00 7E) for 0 and refuses it.
      const std::string buffer = full.substr(0, n) + std::string(ws::kMaxHeader, '\0');
      const Parsed p = parse(std::string_view(buffer.data(), n));
      EXPECT_EQ(p.size, 0u);
      EXPECT_FALSE(p.ec) << p.ec.message();
    }
  }
}

TEST(WsFrameParse, RefusesEachReservedBitWhenNoExtensionIsNegotiated) {
  for (const uint8_t rsv : std::initializer_list<uint8_t>{0x40, 0x20, 0x10}) {  // RSV1, RSV2, RSV3
    SCOPED_TRACE(int(rsv));
    expect_refused(client_header(first_byte(true, 1) | rsv, 1, Form::k7),
                   websocket::error::bad_reserved_bits);
  }
}

TEST(WsFrameParse, RefusesReservedOpcodes) {
  for (uint8_t op = 0; op < 16; ++op) {
    const bool reserved = (op >= 3 && op <= 7) || op >= 11;
    if (!reserved) continue;
    SCOPED_TRACE(int(op));
    expect_refused(client_header(first_byte(true, op), 1, Form::k7), websocket::error::bad_opcode);
  }
}

TEST(WsFrameParse, RefusesAnUnmaskedFrameFromAClient) {
  for (const uint8_t op : std::initializer_list<uint8_t>{1, 2, 8}) {
    SCOPED_TRACE(int(op));
    expect_refused(client_header(first_byte(true, op), 1, Form::k7, /*masked=*/false),
                   websocket::error::bad_unmasked_frame);
  }
}

TEST(WsFrameParse, RefusesAFragmentedControlFrame) {
  for (const Opcode op : {Opcode::close, Opcode::ping, Opcode::pong}) {
    SCOPED_TRACE(int(op));
    expect_refused(client_header(first_byte(false, static_cast<uint8_t>(op)), 0, Form::k7),
                   websocket::error::bad_control_fragment);
  }
}

TEST(WsFrameParse, RefusesAControlFramePayloadAbove125Bytes) {
  for (const Opcode op : {Opcode::close, Opcode::ping, Opcode::pong}) {
    SCOPED_TRACE(int(op));
    const uint8_t b0 = first_byte(true, static_cast<uint8_t>(op));
    EXPECT_FALSE(parse(client_header(b0, 125, Form::k7)).ec);
    expect_refused(client_header(b0, 126, Form::k16), websocket::error::bad_control_size);
    expect_refused(client_header(b0, 65536, Form::k64), websocket::error::bad_control_size);
  }
}

TEST(WsFrameParse, RefusesALengthInALongerFormThanItNeeds) {
  const std::vector<std::pair<uint64_t, Form>> non_minimal = {
      {0, Form::k16},   {125, Form::k16}, {0, Form::k64},
      {125, Form::k64}, {126, Form::k64}, {65535, Form::k64},
  };
  for (const auto& [length, form] : non_minimal) {
    SCOPED_TRACE(length);
    expect_refused(client_header(first_byte(true, 2), length, form), websocket::error::bad_size);
  }
}

TEST(WsFrameParse, RefusesA64BitLengthWithTheTopBitSet) {
  for (const uint64_t length : {uint64_t{1} << 63, std::numeric_limits<uint64_t>::max()}) {
    SCOPED_TRACE(length);
    expect_refused(client_header(first_byte(true, 2), length, Form::k64),
                   websocket::error::bad_size);
  }
}

// --- write_server_header ---

TEST(WsFrameWrite, UsesTheShortestLengthFormAtEachBoundary) {
  const std::vector<std::pair<uint64_t, std::string>> cases = {
      {0, bytes({0x81, 0x00})},
      {125, bytes({0x81, 0x7D})},
      {126, bytes({0x81, 0x7E, 0x00, 0x7E})},
      {65535, bytes({0x81, 0x7E, 0xFF, 0xFF})},
      {65536, bytes({0x81, 0x7F, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00})},
      {0x0102030405060708, bytes({0x81, 0x7F, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08})},
  };
  for (const auto& [length, expected] : cases) {
    SCOPED_TRACE(length);
    uint8_t out[ws::kMaxHeader] = {};
    const size_t n = ws::write_server_header(Opcode::text, length, out);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(out), n), expected);
  }
}

TEST(WsFrameWrite, SetsFinAndTheOpcodeAndNoMaskBit) {
  for (const Opcode op : {Opcode::continuation, Opcode::text, Opcode::binary, Opcode::close,
                          Opcode::ping, Opcode::pong}) {
    SCOPED_TRACE(int(op));
    uint8_t out[ws::kMaxHeader] = {};
    ws::write_server_header(op, 3, out);
    EXPECT_EQ(out[0], 0x80 | static_cast<uint8_t>(op));
    EXPECT_EQ(out[1] & 0x80, 0);
  }
}

TEST(WsFrameWrite, ServerHeaderIsRefusedAsUnmaskedAndReadsBackOnceMasked) {
  for (const auto& c : kLengthForms) {
    SCOPED_TRACE(c.length);
    uint8_t out[ws::kMaxHeader] = {};
    const size_t n = ws::write_server_header(Opcode::binary, c.length, out);
    ASSERT_EQ(n + 4, c.header_size);
    std::string header(reinterpret_cast<const char*>(out), n);
    expect_refused(header, websocket::error::bad_unmasked_frame);

    header[1] = static_cast<char>(header[1] | 0x80);
    header.append(reinterpret_cast<const char*>(kMask.data()), kMask.size());
    const Parsed p = parse(header);
    ASSERT_FALSE(p.ec) << p.ec.message();
    EXPECT_EQ(p.size, c.header_size);
    EXPECT_TRUE(p.header.fin);
    EXPECT_EQ(p.header.opcode, Opcode::binary);
    EXPECT_EQ(p.header.length, c.length);
    EXPECT_EQ(p.header.mask, kMask);
  }
}

// --- apply_mask (RFC 6455 5.3) ---

std::string sample_payload(size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s.push_back(static_cast<char>(i * 37 + 11));
  return s;
}

// The rule as the RFC states it: octet i XOR mask[(offset + i) mod 4].
std::string naive_mask(std::string s, uint64_t offset) {
  for (size_t i = 0; i < s.size(); ++i) s[i] = static_cast<char>(s[i] ^ kMask[(offset + i) % 4]);
  return s;
}

std::string masked(std::string s, uint64_t offset) {
  ws::apply_mask(s.data(), s.size(), kMask, offset);
  return s;
}

TEST(WsFrameMask, MatchesTheByteByByteRuleAtEveryOffsetAndLength) {
  for (uint64_t offset = 0; offset < 8; ++offset) {
    for (size_t n = 0; n <= 40; ++n) {
      SCOPED_TRACE(::testing::Message() << "offset " << offset << " length " << n);
      const std::string in = sample_payload(n);
      EXPECT_EQ(masked(in, offset), naive_mask(in, offset));
    }
  }
}

TEST(WsFrameMask, MaskingTwiceRestoresTheInput) {
  for (uint64_t offset = 0; offset < 8; ++offset) {
    const std::string in = sample_payload(40);
    EXPECT_EQ(masked(masked(in, offset), offset), in) << "offset " << offset;
  }
}

TEST(WsFrameMask, MaskingInTwoPiecesWithTheirOffsetsEqualsMaskingWhole) {
  const std::string in = sample_payload(37);
  for (uint64_t start = 0; start < 4; ++start) {
    const std::string whole = masked(in, start);
    for (size_t split = 0; split <= in.size(); ++split) {
      SCOPED_TRACE(::testing::Message() << "start " << start << " split " << split);
      const std::string pieces =
          masked(in.substr(0, split), start) + masked(in.substr(split), start + split);
      EXPECT_EQ(pieces, whole);
    }
  }
}

// --- is_valid_close_code (RFC 6455 7.4.1, 7.4.2) ---

TEST(WsCloseCode, AcceptsTheDefinedAndTheApplicationRanges) {
  for (const uint16_t code :
       std::initializer_list<uint16_t>{1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012,
                                       1013, 1014, 3000, 3999, 4000, 4999}) {
    EXPECT_TRUE(ws::is_valid_close_code(code)) << code;
  }
}

TEST(WsCloseCode, RefusesReservedUnassignedAndOutOfRangeCodes) {
  // 1004 reserved; 1005, 1006 and 1015 must not be sent on the wire (7.4.1, IANA); 1016-2999
  // unassigned; 0-999 unused; above 4999 undefined.
  for (const uint16_t code : std::initializer_list<uint16_t>{0, 1, 999, 1004, 1005, 1006, 1015,
                                                             1016, 2000, 2999, 5000, 65535}) {
    EXPECT_FALSE(ws::is_valid_close_code(code)) << code;
  }
}

// --- Utf8Check (RFC 3629 section 3/4, RFC 6455 8.1) ---

struct Fed {
  bool ok;
  bool complete;
};

Fed feed_whole(std::string_view s) {
  ws::Utf8Check check;
  const bool ok = check.feed(s);
  return {ok, check.complete()};
}

// Well-formed sequences at the edges of each RFC 3629 table row.
const std::vector<std::string> kWellFormed = {
    bytes({0xC2, 0x80}),              // U+0080
    bytes({0xDF, 0xBF}),              // U+07FF
    bytes({0xE0, 0xA0, 0x80}),        // U+0800
    bytes({0xE1, 0x80, 0x80}),        // U+1000
    bytes({0xED, 0x9F, 0xBF}),        // U+D7FF, just below the surrogates
    bytes({0xEE, 0x80, 0x80}),        // U+E000, just above them
    bytes({0xEF, 0xBF, 0xBF}),        // U+FFFF
    bytes({0xF0, 0x90, 0x80, 0x80}),  // U+10000
    bytes({0xF3, 0xBF, 0xBF, 0xBF}),  // U+FFFFF
    bytes({0xF4, 0x8F, 0xBF, 0xBF}),  // U+10FFFF
};

TEST(WsUtf8Check, AcceptsAscii) {
  for (const std::string_view s :
       {"", "a", "BootNotification", "[2,\"19223201\",\"Heartbeat\",{}]"}) {
    const Fed f = feed_whole(s);
    EXPECT_TRUE(f.ok) << s;
    EXPECT_TRUE(f.complete) << s;
  }
}

TEST(WsUtf8Check, AcceptsWellFormedTwoThreeAndFourByteSequences) {
  for (const auto& seq : kWellFormed) {
    for (const std::string& s : {seq, "ascii before " + seq + " and after"}) {
      SCOPED_TRACE(::testing::PrintToString(s));
      const Fed f = feed_whole(s);
      EXPECT_TRUE(f.ok);
      EXPECT_TRUE(f.complete);
    }
  }
}

TEST(WsUtf8Check, RefusesEachIllFormedClassAtItsFirstBadByte) {
  struct Bad {
    const char* what;
    std::string bytes;
    size_t bad_at;  // index of the first byte that cannot start or continue valid UTF-8
  };
  const std::vector<Bad> cases = {
      {"lone continuation 80", bytes({0x80}), 0},
      {"lone continuation BF", bytes({0xBF}), 0},
      {"C0 lead (overlong 2-byte)", bytes({0xC0, 0x80}), 0},
      {"C1 lead (overlong 2-byte)", bytes({0xC1, 0xBF}), 0},
      {"E0 80 (overlong 3-byte)", bytes({0xE0, 0x80, 0x80}), 1},
      {"E0 9F (overlong 3-byte)", bytes({0xE0, 0x9F, 0xBF}), 1},
      {"ED A0 (surrogate U+D800)", bytes({0xED, 0xA0, 0x80}), 1},
      {"ED BF (surrogate U+DFFF)", bytes({0xED, 0xBF, 0xBF}), 1},
      {"F0 80 (overlong 4-byte)", bytes({0xF0, 0x80, 0x80, 0x80}), 1},
      {"F0 8F (overlong 4-byte)", bytes({0xF0, 0x8F, 0xBF, 0xBF}), 1},
      {"F4 90 (above U+10FFFF)", bytes({0xF4, 0x90, 0x80, 0x80}), 1},
      {"F4 BF (above U+10FFFF)", bytes({0xF4, 0xBF, 0xBF, 0xBF}), 1},
      {"F5 lead", bytes({0xF5, 0x80, 0x80, 0x80}), 0},
      {"F8 lead", bytes({0xF8, 0x80, 0x80, 0x80}), 0},
      {"FE lead", bytes({0xFE}), 0},
      {"FF lead", bytes({0xFF}), 0},
      {"2-byte lead then ASCII", bytes({0xC3, 0x41}), 1},
      {"3-byte lead, one continuation, then ASCII", bytes({0xE2, 0x82, 0x41}), 2},
      {"4-byte lead then a new lead", bytes({0xF0, 0x9F, 0xC3, 0xA9}), 2},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    EXPECT_FALSE(feed_whole(c.bytes).ok);
    ws::Utf8Check byte_by_byte;
    for (size_t i = 0; i < c.bad_at; ++i) ASSERT_TRUE(byte_by_byte.feed(c.bytes.substr(i, 1)));
    EXPECT_FALSE(byte_by_byte.feed(c.bytes.substr(c.bad_at, 1)));
  }
}

TEST(WsUtf8Check, TruncatedSequenceIsValidSoFarButNotComplete) {
  for (const auto& seq : kWellFormed) {
    for (size_t n = 1; n < seq.size(); ++n) {
      SCOPED_TRACE(::testing::PrintToString(seq.substr(0, n)));
      const Fed f = feed_whole(seq.substr(0, n));
      EXPECT_TRUE(f.ok);
      EXPECT_FALSE(f.complete);
    }
  }
}

TEST(WsUtf8Check, TextSplitAtEveryByteIntoTwoFeedsStaysValidAndComplete) {
  std::string text = "{\"idTag\":\"";
  for (const auto& seq : kWellFormed) text += seq + "x";
  text += "\"}";
  for (size_t split = 0; split <= text.size(); ++split) {
    SCOPED_TRACE(split);
    ws::Utf8Check check;
    EXPECT_TRUE(check.feed(std::string_view(text).substr(0, split)));
    EXPECT_TRUE(check.feed(std::string_view(text).substr(split)));
    EXPECT_TRUE(check.complete());
  }
}

TEST(WsUtf8Check, CatchesABadByteAfterEightOrMoreAsciiBytes) {
  // The ASCII run reads eight bytes at a time; the bad byte lands at every position of a word,
  // and ASCII follows it so that the input does not end at the bad byte.
  for (size_t ascii = 0; ascii <= 24; ++ascii) {
    for (const uint8_t bad : std::initializer_list<uint8_t>{0x80, 0xC0, 0xFF}) {
      SCOPED_TRACE(::testing::Message() << ascii << " ASCII bytes then " << int(bad));
      const std::string s = std::string(ascii, 'a') + bytes({bad}) + std::string(16, 'b');
      EXPECT_FALSE(feed_whole(s).ok);
    }
  }
}

TEST(WsUtf8Check, ResetForgetsAnOpenSequence) {
  ws::Utf8Check check;
  ASSERT_TRUE(check.feed(bytes({0xE2, 0x82})));  // first two bytes of U+20AC
  ASSERT_FALSE(check.complete());
  check.reset();
  EXPECT_TRUE(check.complete());
  EXPECT_TRUE(check.feed("A"));  // would be a bad continuation byte without the reset
  EXPECT_TRUE(check.complete());
}

TEST(WsUtf8Check, ResetForgetsARestrictedContinuationRange) {
  ws::Utf8Check check;
  ASSERT_TRUE(check.feed(bytes({0xF4})));  // next byte must be 80..8F
  check.reset();
  EXPECT_TRUE(check.feed(bytes({0xC2, 0xBF})));
  EXPECT_TRUE(check.complete());
}

// --- accept_key and is_valid_key (RFC 6455 1.3, 4.1, 4.2.2) ---

TEST(WsAcceptKey, MatchesTheRfc6455Section1_3Example) {
  EXPECT_EQ(ws::accept_key("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

TEST(WsAcceptKey, MatchesAnotherKeyHashedIndependently) {
  // base64(SHA-1(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")), computed with Python.
  EXPECT_EQ(ws::accept_key("x3JJHMbDL1EzLkh9GBhXDw=="), "HSmrc0sMlYUkAGmm5OPpG2HaGWk=");
}

TEST(WsIsValidKey, RefusesAnEmptyKeyAndOneOver24Bytes) {
  EXPECT_FALSE(ws::is_valid_key(""));
  EXPECT_TRUE(ws::is_valid_key("a"));
  EXPECT_TRUE(ws::is_valid_key("dGhlIHNhbXBsZSBub25jZQ=="));  // 24 bytes, the RFC's form
  EXPECT_TRUE(ws::is_valid_key(std::string(24, 'k')));
  EXPECT_FALSE(ws::is_valid_key(std::string(25, 'k')));
}

}  // namespace
}  // namespace ocppgw::gateway::testing
