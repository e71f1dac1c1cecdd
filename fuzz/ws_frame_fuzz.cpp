// fuzz/ws_frame_fuzz.cpp: the WebSocket frame codec (gateway/ws_frame.hpp) on arbitrary bytes read
// as a client's stream, frame after frame. It must never read out of bounds, and:
// - a header it accepts follows RFC 6455's rules for a client's frame (known opcode, control
//   frames whole and short), and the same opcode and length written by the server's writer, with
//   the mask bit and key added, parse back to the same header;
// - a shorter prefix of a header never parses;
// - unmasking in two pieces equals unmasking at once, and masking twice restores the bytes;
// - the streaming UTF-8 check gives the same answer whole and split, and agrees with a plain
//   decoder of RFC 3629 written here.
#include <array>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "gateway/ws_frame.hpp"

namespace ws = ocppgw::gateway::ws;

namespace {

// RFC 3629 section 4, sequence by sequence: the reference the streaming check must agree with.
bool reference_utf8(std::string_view s) {
  size_t i = 0;
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  const auto in = [&](size_t k, uint8_t lo, uint8_t hi) {
    return k < s.size() && byte(k) >= lo && byte(k) <= hi;
  };
  while (i < s.size()) {
    const uint8_t b = byte(i);
    if (b <= 0x7F) {
      i += 1;
    } else if (b >= 0xC2 && b <= 0xDF) {
      if (!in(i + 1, 0x80, 0xBF)) return false;
      i += 2;
    } else if (b >= 0xE0 && b <= 0xEF) {
      const uint8_t lo = b == 0xE0 ? 0xA0 : 0x80, hi = b == 0xED ? 0x9F : 0xBF;
      if (!in(i + 1, lo, hi) || !in(i + 2, 0x80, 0xBF)) return false;
      i += 3;
    } else if (b >= 0xF0 && b <= 0xF4) {
      const uint8_t lo = b == 0xF0 ? 0x90 : 0x80, hi = b == 0xF4 ? 0x8F : 0xBF;
      if (!in(i + 1, lo, hi) || !in(i + 2, 0x80, 0xBF) || !in(i + 3, 0x80, 0xBF)) return false;
      i += 4;
    } else {
      return false;
    }
  }
  return true;
}

void check_header(size_t used, const ws::FrameHeader& h) {
  const auto op = static_cast<uint8_t>(h.opcode);
  if (op > 2 && (op < 8 || op > 10)) std::abort();
  if (ws::is_control(h.opcode) && (!h.fin || h.length > ws::kMaxControlPayload)) std::abort();
  // The server's header for the same frame, masked as a client would send it.
  std::array<uint8_t, ws::kMaxHeader> out{};
  const size_t n = ws::write_server_header(h.opcode, h.length, out.data());
  out[1] |= 0x80;
  for (size_t k = 0; k < 4; ++k) out[n + k] = h.mask[k];
  if (!h.fin) out[0] &= 0x7F;
  ws::FrameHeader again;
  boost::system::error_code ec;
  const std::string_view written(reinterpret_cast<const char*>(out.data()), n + 4);
  if (ws::parse_client_header(written, again, ec) != n + 4 || ec || again.fin != h.fin ||
      again.opcode != h.opcode || again.length != h.length || again.mask != h.mask)
    std::abort();
  // A header's minimal form is the only one accepted, so the writer's size is the one read.
  if (n + 4 != used) std::abort();
}

void check_mask(std::string_view payload, const std::array<uint8_t, 4>& mask, uint64_t offset) {
  std::string whole(payload), split(payload);
  ws::apply_mask(whole.data(), whole.size(), mask, offset);
  const size_t cut = payload.size() / 3;
  ws::apply_mask(split.data(), cut, mask, offset);
  ws::apply_mask(split.data() + cut, split.size() - cut, mask, offset + cut);
  if (whole != split) std::abort();
  for (size_t k = 0; k < payload.size(); ++k) {
    if (static_cast<uint8_t>(whole[k]) !=
        (static_cast<uint8_t>(payload[k]) ^ mask[(offset + k) % 4]))
      std::abort();
  }
  ws::apply_mask(whole.data(), whole.size(), mask, offset);
  if (whole != payload) std::abort();
}

void check_utf8(std::string_view text) {
  ws::Utf8Check whole;
  const bool whole_ok = whole.feed(text) && whole.complete();
  // Split at every third of the text: a sequence cut across frames or reads.
  ws::Utf8Check split;
  const size_t a = text.size() / 3, b = 2 * text.size() / 3;
  const bool split_ok = split.feed(text.substr(0, a)) && split.feed(text.substr(a, b - a)) &&
                        split.feed(text.substr(b)) && split.complete();
  if (whole_ok != split_ok || whole_ok != reference_utf8(text)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  check_utf8(input);
  std::string_view rest = input;
  while (!rest.empty()) {
    ws::FrameHeader h;
    boost::system::error_code ec;
    const size_t used = ws::parse_client_header(rest, h, ec);
    if (ec || used == 0) {
      if (used != 0) std::abort();  // a refusal consumes nothing
      break;
    }
    if (used > rest.size() || used > ws::kMaxHeader) std::abort();
    for (size_t k = 0; k < used; ++k) {
      ws::FrameHeader part;
      boost::system::error_code part_ec;
      if (ws::parse_client_header(rest.substr(0, k), part, part_ec) != 0) std::abort();
    }
    check_header(used, h);
    rest.remove_prefix(used);
    const size_t n = h.length < rest.size() ? static_cast<size_t>(h.length) : rest.size();
    check_mask(rest.substr(0, n), h.mask, used % 7);
    if (h.opcode == ws::Opcode::text || h.opcode == ws::Opcode::continuation) {
      std::string text(rest.substr(0, n));
      ws::apply_mask(text.data(), text.size(), h.mask, 0);
      check_utf8(text);
    }
    rest.remove_prefix(n);
  }
  // Close codes: two bytes of the input, big-endian as on the wire.
  if (size >= 2) {
    const auto code = static_cast<uint16_t>((data[0] << 8) | data[1]);
    const bool defined = (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) ||
                         (code >= 3000 && code <= 4999);
    if (ws::is_valid_close_code(code) != defined) std::abort();
  }
  return 0;
}
