// web/http.hpp: the request/response types every route uses, and the one seam between the
// gateway's connections and web/: a handler gets a parsed request and a respond() callback.
// respond() may be called once, from any thread (the connection posts the write back onto its
// own strand), so a route may answer later, e.g. after a CSMS call completes.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include <boost/beast/http.hpp>

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

}  // namespace ocppgw::web
