// gateway/ws_frame.hpp: the byte-level rules of RFC 6455 that a WebSocket server applies: a
// client frame's header (masked, no extension bits), masking, a server frame's header, the
// streaming UTF-8 check of text messages and close payloads, and the handshake's accept key.
// Pure functions and small value types, without I/O: gateway/ws_stream.hpp drives them, and
// tests/unit/gateway/ws_frame_test.cpp holds each rule to its RFC section.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <boost/beast/websocket/error.hpp>

namespace ocppgw::gateway::ws {

enum class Opcode : uint8_t {
  continuation = 0,
  text = 1,
  binary = 2,
  close = 8,
  ping = 9,
  pong = 10
};

inline bool is_control(Opcode op) { return static_cast<uint8_t>(op) >= 8; }

// The largest control frame payload (RFC 6455 5.5) and the largest header a frame can have.
constexpr size_t kMaxControlPayload = 125;
constexpr size_t kMaxHeader = 14;

struct FrameHeader {
  bool fin = false;
  Opcode opcode = Opcode::continuation;
  uint64_t length = 0;
  std::array<uint8_t, 4> mask{};
};

// Reads the header of a frame a client sent from the start of `bytes`. Returns its size, or 0
// when `bytes` holds only part of it. A header that breaks the rules for a client's frame sets
// `ec` (Beast's websocket error codes, so that logs read as before): reserved bits set (no
// extension is negotiated), an unknown opcode, no mask (5.1: a client masks every frame), a
// fragmented or oversize control frame (5.5), a length in a longer form than it needs or with
// the 64-bit form's top bit set (5.2).
size_t parse_client_header(std::string_view bytes, FrameHeader& header,
                           boost::system::error_code& ec);

// Writes the header of an unmasked server frame with `fin` set; returns its size (2-10 bytes).
size_t write_server_header(Opcode opcode, uint64_t length, uint8_t* out);

// Unmasks (or masks) `n` bytes in place; `offset` is the payload position of data[0], which
// selects the mask byte to start from.
void apply_mask(char* data, size_t n, const std::array<uint8_t, 4>& mask, uint64_t offset);

// Close codes a peer may send: RFC 6455 7.4's 1000-1003 and 1007-1011, the ones IANA's registry
// added since (1012 service restart, 1013 try again later, 1014 bad gateway: a charge point that
// reboots may well say 1012), and 3000-4999 for libraries and applications. 1004-1006 and 1015
// must not be sent; the rest is unassigned.
bool is_valid_close_code(uint16_t code);

// UTF-8 checked as it arrives (RFC 3629 well-formed sequences: no overlong forms, no
// surrogates, nothing above U+10FFFF): a text message fails at its first bad byte even when it
// is split across frames and reads (RFC 6455 8.1).
class Utf8Check {
 public:
  // False once the bytes seen so far cannot start valid UTF-8.
  bool feed(std::string_view bytes);
  // True when no sequence is left open (the message may end here).
  bool complete() const { return need_ == 0; }
  void reset() { *this = {}; }

 private:
  uint8_t need_ = 0;                  // continuation bytes still expected
  uint8_t low_ = 0x80, high_ = 0xBF;  // range of the next continuation byte
};

// Sec-WebSocket-Accept for a Sec-WebSocket-Key (4.2.2): base64(SHA-1(key + GUID)).
std::string accept_key(std::string_view sec_websocket_key);

// A key the handshake accepts: present and at most 24 bytes. RFC 6455 4.1 asks for the base64
// of 16 random bytes, but the server only hashes it, and charge point firmware that gets the
// encoding wrong still deserves a connection; the bound keeps the hash input small (the limit
// Beast's handshake applied before this stream replaced it).
bool is_valid_key(std::string_view sec_websocket_key);

}  // namespace ocppgw::gateway::ws
