// gateway/http_stream.hpp: the connection side of a streaming response (web::ResponseStream,
// web/http.hpp), used by the live stream (text/event-stream). HttpSession hands its connection
// over to one of these when a route opens a stream, as it hands an upgrade over to a WsSession:
// from then on the connection carries that one response until either side closes it.
//
// - The head goes out first, without Content-Length: chunked on HTTP/1.1, delimited by the
//   connection's end on HTTP/1.0.
// - The request timeout (web_request_timeout, handshake_timeout) no longer applies: nothing is
//   read any more but the end of the connection (what a client sends is discarded). A write
//   the client does not take within `write_timeout` ends the stream.
// - What waits to be sent is bounded (`max_queued_bytes`): a client that stops reading must not
//   grow the gateway's memory, so past the bound the connection is closed with one warning
//   (stream_dropped) and write() returns false. An EventSource reconnects by itself.
// - `on_closed` runs once when the stream ends, whichever side ended it.
// The connection keeps its slot (max_connections) while it streams.
// Threading: write() and close() from any thread; everything else on the connection's strand.
#pragma once

#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/beast/http.hpp>

#include "gateway/tls_stream.hpp"
#include "web/http.hpp"

namespace ocppgw::gateway {

class StreamingResponse : public web::ResponseStream,
                          public std::enable_shared_from_this<StreamingResponse> {
 public:
  struct Options {
    size_t max_queued_bytes = 256 * 1024;
    std::chrono::seconds write_timeout{10};
    std::string remote;  // ip:port, for log lines
    std::string target;  // the request target, for log lines
  };

  // `executor`: the connection's strand.
  StreamingResponse(boost::asio::any_io_executor executor, Options options,
                    std::function<void()> on_closed);

  // On the connection's strand: takes the connection over and sends `head`, then what was
  // written so far and from then on.
  void start(HttpStream&& stream, std::shared_ptr<void> slot, web::HttpResponse head);

  bool write(std::shared_ptr<const std::string> bytes) override;
  void close() override;

 private:
  void read_until_closed();
  void write_queued();
  void on_written(boost::beast::error_code ec);
  // Ends the stream once: closes the connection and runs on_closed.
  void finish(std::string_view reason, bool dropped = false);
  void close_connection();

  boost::asio::any_io_executor executor_;
  Options options_;
  std::function<void()> on_closed_;

  // Strand only.
  std::optional<HttpStream> stream_;
  std::shared_ptr<void> slot_;
  std::unique_ptr<boost::beast::http::response<boost::beast::http::empty_body>> head_;
  std::unique_ptr<boost::beast::http::response_serializer<boost::beast::http::empty_body>>
      serializer_;
  bool chunked_ = true;
  bool finished_ = false;
  std::vector<std::shared_ptr<const std::string>> in_flight_;
  std::vector<boost::asio::const_buffer> buffers_;
  std::string chunk_header_;
  char discard_[512];
  std::chrono::steady_clock::time_point opened_;

  // Shared with writers on other threads.
  std::mutex mu_;
  std::deque<std::shared_ptr<const std::string>> queue_;
  size_t queued_bytes_ = 0;  // queue_ and in_flight_
  bool started_ = false;     // the head is out: queued bytes may be written
  bool writing_ = false;     // a write is in flight or posted
  bool closed_ = false;
};

}  // namespace ocppgw::gateway
