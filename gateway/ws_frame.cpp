// gateway/ws_frame.cpp
#include "gateway/ws_frame.hpp"

#include <cstring>

#include <openssl/evp.h>
#include <openssl/sha.h>

namespace ocppgw::gateway::ws {

namespace websocket = boost::beast::websocket;

size_t parse_client_header(std::string_view bytes, FrameHeader& header,
                           boost::system::error_code& ec) {
  ec = {};
  if (bytes.size() < 2) return 0;
  const auto b0 = static_cast<uint8_t>(bytes[0]);
  const auto b1 = static_cast<uint8_t>(bytes[1]);
  if (b0 & 0x70) {
    ec = websocket::error::bad_reserved_bits;
    return 0;
  }
  const uint8_t op = b0 & 0x0F;
  if (op > 2 && (op < 8 || op > 10)) {
    ec = websocket::error::bad_opcode;
    return 0;
  }
  header.fin = (b0 & 0x80) != 0;
  header.opcode = static_cast<Opcode>(op);
  if (!(b1 & 0x80)) {
    ec = websocket::error::bad_unmasked_frame;
    return 0;
  }
  const uint8_t len7 = b1 & 0x7F;
  if (is_control(header.opcode)) {
    if (!header.fin) {
      ec = websocket::error::bad_control_fragment;
      return 0;
    }
    if (len7 > kMaxControlPayload) {
      ec = websocket::error::bad_control_size;
      return 0;
    }
  }
  size_t at = 2;
  if (len7 == 126) {
    if (bytes.size() < 4) return 0;
    header.length =
        (uint64_t{static_cast<uint8_t>(bytes[2])} << 8) | static_cast<uint8_t>(bytes[3]);
    at = 4;
    if (header.length < 126) {
      ec = websocket::error::bad_size;
      return 0;
    }
  } else if (len7 == 127) {
    if (bytes.size() < 10) return 0;
    header.length = 0;
    for (size_t i = 2; i < 10; ++i)
      header.length = (header.length << 8) | static_cast<uint8_t>(bytes[i]);
    at = 10;
    if (header.length < 0x10000 || (header.length >> 63) != 0) {
      ec = websocket::error::bad_size;
      return 0;
    }
  } else {
    header.length = len7;
  }
  if (bytes.size() < at + 4) return 0;
  std::memcpy(header.mask.data(), bytes.data() + at, 4);
  return at + 4;
}

size_t write_server_header(Opcode opcode, uint64_t length, uint8_t* out) {
  out[0] = static_cast<uint8_t>(0x80 | static_cast<uint8_t>(opcode));
  if (length < 126) {
    out[1] = static_cast<uint8_t>(length);
    return 2;
  }
  if (length <= 0xFFFF) {
    out[1] = 126;
    out[2] = static_cast<uint8_t>(length >> 8);
    out[3] = static_cast<uint8_t>(length);
    return 4;
  }
  out[1] = 127;
  for (int i = 0; i < 8; ++i) out[2 + i] = static_cast<uint8_t>(length >> (56 - 8 * i));
  return 10;
}

void apply_mask(char* data, size_t n, const std::array<uint8_t, 4>& mask, uint64_t offset) {
  size_t i = 0;
  // Byte by byte up to the next mask boundary, then eight bytes at a time with the mask
  // repeated (the compiler turns the word loop into vector code), then the tail.
  const size_t shift = offset & 3;
  for (; i < n && ((shift + i) & 3) != 0; ++i)
    data[i] = static_cast<char>(data[i] ^ mask[(shift + i) & 3]);
  uint64_t word_mask;
  uint8_t twice[8];
  for (int k = 0; k < 8; ++k) twice[k] = mask[k & 3];
  std::memcpy(&word_mask, twice, 8);
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, data + i, 8);
    w ^= word_mask;
    std::memcpy(data + i, &w, 8);
  }
  for (; i < n; ++i) data[i] = static_cast<char>(data[i] ^ mask[(shift + i) & 3]);
}

bool is_valid_close_code(uint16_t code) {
  if (code >= 3000 && code <= 4999) return true;
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014);
}

bool Utf8Check::feed(std::string_view bytes) {
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  const auto* end = p + bytes.size();
  while (p < end) {
    if (need_ == 0) {
      // ASCII eight bytes at a time: OCPP-J frames are almost all ASCII.
      while (end - p >= 8) {
        uint64_t w;
        std::memcpy(&w, p, 8);
        if (w & 0x8080808080808080ULL) break;
        p += 8;
      }
      if (p == end) break;
      const uint8_t b = *p++;
      if (b < 0x80) continue;
      low_ = 0x80;
      high_ = 0xBF;
      if (b >= 0xC2 && b <= 0xDF) {
        need_ = 1;
      } else if (b >= 0xE0 && b <= 0xEF) {
        need_ = 2;
        if (b == 0xE0) low_ = 0xA0;   // overlong
        if (b == 0xED) high_ = 0x9F;  // surrogates
      } else if (b >= 0xF0 && b <= 0xF4) {
        need_ = 3;
        if (b == 0xF0) low_ = 0x90;   // overlong
        if (b == 0xF4) high_ = 0x8F;  // above U+10FFFF
      } else {
        return false;
      }
      continue;
    }
    const uint8_t b = *p++;
    if (b < low_ || b > high_) return false;
    --need_;
    low_ = 0x80;
    high_ = 0xBF;
  }
  return true;
}

std::string accept_key(std::string_view key) {
  static constexpr std::string_view kGuid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
  std::string input(key);
  input.append(kGuid);
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(input.data()), input.size(), digest);
  unsigned char encoded[4 * ((SHA_DIGEST_LENGTH + 2) / 3) + 1];
  const int n = EVP_EncodeBlock(encoded, digest, SHA_DIGEST_LENGTH);
  return std::string(reinterpret_cast<const char*>(encoded), static_cast<size_t>(n));
}

bool is_valid_key(std::string_view key) { return !key.empty() && key.size() <= 24; }

}  // namespace ocppgw::gateway::ws
