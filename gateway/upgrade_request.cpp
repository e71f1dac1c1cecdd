// gateway/upgrade_request.cpp: see upgrade_request.hpp.
#include "gateway/upgrade_request.hpp"

#include <cctype>

#include "csms/charge_point_id.hpp"
#include "util/hex.hpp"
#include "util/text.hpp"

namespace ocppgw::gateway {
namespace {

std::string supported_list(const std::vector<rpc::OcppVersion>& versions) {
  std::string out;
  for (auto v : versions) out += (out.empty() ? "" : ", ") + std::string(rpc::subprotocol(v));
  return out;
}

// RFC 4648 base64 with padding, nothing else accepted (no whitespace, no URL alphabet).
std::optional<std::string> decode_base64(std::string_view in) {
  auto value = [](char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  if (in.empty() || in.size() % 4 != 0) return std::nullopt;
  size_t padding = 0;
  while (padding < 2 && in[in.size() - 1 - padding] == '=') ++padding;
  std::string out;
  uint32_t bits = 0;
  int nbits = 0;
  for (size_t i = 0; i < in.size() - padding; ++i) {
    const int v = value(in[i]);
    if (v < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<uint32_t>(v);
    nbits += 6;
    if (nbits >= 8) {
      nbits -= 8;
      out += static_cast<char>((bits >> nbits) & 0xFF);
    }
  }
  // Leftover bits must be zero (a canonical encoding).
  if ((bits & ((1u << nbits) - 1)) != 0) return std::nullopt;
  return out;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

}  // namespace

std::string login_limit_key(const boost::asio::ip::address& address) {
  if (!address.is_v6()) return address.to_string();
  const auto v6 = address.to_v6();
  if (v6.is_v4_mapped())
    return boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, v6).to_string();
  // One IPv6 client usually holds a whole /64: limiting single addresses would not limit it.
  auto bytes = v6.to_bytes();
  std::fill(bytes.begin() + 8, bytes.end(), 0);
  return boost::asio::ip::address_v6(bytes).to_string() + "/64";
}

TargetParse parse_charge_point_target(std::string_view target, std::string_view prefix) {
  TargetParse out;
  if (auto q = target.find_first_of("?#"); q != std::string_view::npos)
    target = target.substr(0, q);
  const bool under_prefix = target.size() > prefix.size() &&
                            target.substr(0, prefix.size()) == prefix &&
                            (prefix == "/" || target[prefix.size()] == '/');
  if (!under_prefix) {
    out.not_found = true;
    out.error = "not a charge point endpoint; use " + std::string(prefix == "/" ? "" : prefix) +
                "/{chargePointId}";
    return out;
  }
  // Exactly one segment after the prefix: with more, which one names the charge point would be
  // a guess (and /ocpp/a/CP-1 must not pass for CP-1).
  const std::string_view segment = target.substr(prefix == "/" ? 1 : prefix.size() + 1);
  if (segment.find('/') != std::string_view::npos) {
    out.error = "the charge point id must be the only path segment after " +
                std::string(prefix == "/" ? "" : prefix) + "/";
    return out;
  }
  std::string id;
  for (size_t i = 0; i < segment.size(); ++i) {
    if (segment[i] != '%') {
      id += segment[i];
      continue;
    }
    const int hi = i + 2 < segment.size() ? util::hex_digit(segment[i + 1]) : -1;
    const int lo = i + 2 < segment.size() ? util::hex_digit(segment[i + 2]) : -1;
    if (hi < 0 || lo < 0) {
      out.error = "bad percent-encoding in charge point id";
      return out;
    }
    id += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  if (out.error = csms::charge_point_id_error(id); out.error.empty())
    out.charge_point_id = std::move(id);
  return out;
}

Negotiation negotiate_subprotocol(std::string_view offered_header,
                                  const std::vector<rpc::OcppVersion>& preference) {
  Negotiation out;
  const std::vector<std::string> offered = util::split_list(offered_header);
  if (offered.empty()) {
    out.error =
        "no Sec-WebSocket-Protocol offered; this server speaks " + supported_list(preference);
    return out;
  }
  for (auto v : preference)
    for (const auto& o : offered)
      if (o == rpc::subprotocol(v)) {
        out.chosen = v;
        return out;
      }
  std::string list;
  for (const auto& o : offered) list += (list.empty() ? "" : ", ") + o;
  out.error = "none of the offered subprotocols (" + list + ") is supported; this server speaks " +
              supported_list(preference);
  return out;
}

BasicParse parse_basic_authorization(std::string_view header) {
  BasicParse out;
  while (!header.empty() && (header.front() == ' ' || header.front() == '\t'))
    header.remove_prefix(1);
  while (!header.empty() && (header.back() == ' ' || header.back() == '\t'))
    header.remove_suffix(1);
  if (header.empty()) {
    out.error = "no Authorization header (HTTP Basic required)";
    return out;
  }
  const size_t space = header.find(' ');
  if (space == std::string_view::npos || !iequals(header.substr(0, space), "Basic")) {
    out.error = "Authorization is not the Basic scheme";
    return out;
  }
  std::string_view token = header.substr(space + 1);
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  auto decoded = decode_base64(token);
  if (!decoded) {
    out.error = "Basic credentials are not valid base64";
    return out;
  }
  const size_t colon = decoded->find(':');
  if (colon == std::string::npos) {
    out.error = "Basic credentials have no ':' between user and password";
    return out;
  }
  out.credentials = BasicCredentials{decoded->substr(0, colon), decoded->substr(colon + 1)};
  return out;
}

}  // namespace ocppgw::gateway
