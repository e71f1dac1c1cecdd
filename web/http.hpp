// web/http.hpp: the request/response types every route uses, and the one seam between the
// gateway's connections and web/: a handler gets a parsed request and a respond() callback.
// respond() may be called once, from any thread (the connection posts the write back onto its
// own strand), so a route may answer later, e.g. after a CSMS call completes.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include <boost/beast/http.hpp>
#include <nlohmann/json_fwd.hpp>

namespace ocppgw::web {

namespace http = boost::beast::http;
using HttpRequest = http::request<http::string_body>;
using HttpResponse = http::response<http::string_body>;
using HttpRespond = std::function<void(HttpResponse)>;
using HttpHandler = std::function<void(HttpRequest&& request, HttpRespond respond)>;

// A response to `request` (same HTTP version and keep-alive) with a body and content type.
HttpResponse make_response(const HttpRequest& request, http::status status, std::string body,
                           std::string_view content_type);
// A plain-text response "<text>\n".
HttpResponse text_response(const HttpRequest& request, http::status status, std::string_view text);
// An application/json response: `body` and a newline.
HttpResponse json_response(const HttpRequest& request, http::status status,
                           const nlohmann::json& body);
// The REST API's error shape: {"error": "<message>"}.
HttpResponse json_error(const HttpRequest& request, http::status status, std::string_view message);

// What only the connection knows, as request fields. The gateway's HTTP session sets both on
// every request it hands to a route, replacing any a client sent, so routes may trust them.
// The client's IP address (no port), e.g. for throttling logins per address:
inline constexpr std::string_view kPeerAddressField = "X-Ocppgw-Peer-Address";
// "https" when the request came over TLS, else "http" (a cookie is marked Secure over TLS):
inline constexpr std::string_view kSchemeField = "X-Ocppgw-Scheme";

}  // namespace ocppgw::web
