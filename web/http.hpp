// web/http.hpp: the request/response types every route uses, and the one seam between the
// gateway's connections and web/: a handler gets a parsed request and a respond() callback.
// respond() may be called once, from any thread (the connection posts the write back onto its
// own strand), so a route may answer later, e.g. after a CSMS call completes.
// A route that answers with a stream instead (the live stream, Server-Sent Events) also gets a
// StreamOpener from the connection: it calls that instead of respond().
#pragma once

#include <functional>
#include <memory>
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

// A response that stays open: the connection has sent the head (no Content-Length: chunked on
// HTTP/1.1, delimited by the connection's end on HTTP/1.0) and sends each write() as it comes,
// until either side closes. The connection's request timeout no longer applies; a write the
// client does not take within the connection's write timeout ends the stream.
// Thread-safe: write() and close() may be called from any thread.
class ResponseStream {
 public:
  virtual ~ResponseStream() = default;
  // Queues `bytes` for the client. False when the stream has ended, or when queueing them would
  // exceed the stream's bound: a client that stops reading must not grow the gateway's memory,
  // so then the connection is closed (and logged) and the stream ends; a browser's EventSource
  // reconnects by itself. Shared, not copied: one event goes to many streams.
  virtual bool write(std::shared_ptr<const std::string> bytes) = 0;
  // Ends the stream and closes the connection; idempotent.
  virtual void close() = 0;
};
// Sends `head` and returns the stream behind it. `on_closed` runs exactly once when the stream
// ends, whichever side ended it (on the connection's thread; it must not block).
using StreamOpener = std::function<std::shared_ptr<ResponseStream>(
    HttpResponse head, std::function<void()> on_closed)>;
// What the gateway's connection calls for each request: the router's handle(). `open_stream`
// may be empty where a connection cannot stream (tests).
using ConnectionHandler =
    std::function<void(HttpRequest&& request, HttpRespond respond, StreamOpener open_stream)>;

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
