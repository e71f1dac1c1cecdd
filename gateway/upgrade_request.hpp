// gateway/upgrade_request.hpp: what the gateway reads from a WebSocket upgrade request before
// it trusts anything: the charge point id in the target, the subprotocol offered, the HTTP Basic
// credentials, the key its failed logins count under. Pure functions of untrusted text, in a
// library of their own so the fuzz targets (fuzz/) and the unit tests reach them without a
// server.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/ip/address.hpp>

#include "rpc/rpc_error.hpp"

namespace ocppgw::gateway {

// The charge point id of a request target: the one path segment under `prefix` (more segments
// are refused), percent-decoded. Errors name what is wrong (for the 400 body).
struct TargetParse {
  std::optional<std::string> charge_point_id;
  std::string error;
  bool not_found = false;  // the path is not under the prefix at all (404 rather than 400)
};
TargetParse parse_charge_point_target(std::string_view target, std::string_view prefix);

// Server-side subprotocol choice: the first of `preference` that the client offered.
struct Negotiation {
  std::optional<rpc::OcppVersion> chosen;
  std::string error;  // why nothing was chosen
};
Negotiation negotiate_subprotocol(std::string_view offered_header,
                                  const std::vector<rpc::OcppVersion>& preference);

// The key under which BasicAuthenticator counts a client's failed and pending logins: the
// IPv4 address (also when it arrives IPv4-mapped), or the /64 of an IPv6 address.
std::string login_limit_key(const boost::asio::ip::address& address);

// The user and password of an `Authorization: Basic <base64(user:password)>` header value.
struct BasicCredentials {
  std::string user;
  std::string password;
};
struct BasicParse {
  std::optional<BasicCredentials> credentials;
  std::string error;  // why there are none; never contains the password
};
BasicParse parse_basic_authorization(std::string_view header_value);

}  // namespace ocppgw::gateway
