// web/live_stream.hpp: GET /api/v1/stream, the operator page's live stream (Server-Sent
// Events, text/event-stream), documented in docs/api.md "Live stream". Role viewer, by bearer
// token or by the session cookie (EventSource cannot send headers, the cookie goes by itself).
//
// What a stream receives:
//   retry: 2000                            once, first: the browser's reconnection delay
//   event: hello      {"user","role","server_time"}   once, right after
//   event: pipeline   the /health body     right after hello, so the page need not wait
//   event: changes    ChangeFeed::take()   at most once per changes_interval (1 s), only when
//                                          something changed; the same event to every stream
//   event: pipeline   the /health body     every pipeline_interval (2 s)
//   : keepalive                            after keepalive_interval (15 s) with nothing sent
// Every event's data is one line of JSON. Every recheck_interval (60 s) each stream's
// credentials are checked again: a stream whose login ended (logout, expiry, account removed)
// is closed, and the browser's reconnection then gets 401.
//
// Streams are capped (max_streams; over it: 503 with Retry-After, the browser tries again) and
// counted (gauge ocppgw_web_streams, /health section "streams"). Each connection bounds what it
// queues for its client (ResponseStream::write): a client that stops reading is dropped, never
// buffered without end.
//
// Threading: the route runs on I/O threads; one timer on a strand of `executor` ticks every
// changes_interval and writes to every stream; stop() may be called from any thread. The
// streams' own writes are posted to their connections. Destroy the object once the executor's
// threads no longer run (the App does, after joining its I/O threads).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <nlohmann/json.hpp>

#include "web/api_auth.hpp"
#include "web/change_feed.hpp"
#include "web/router.hpp"

namespace ocppgw::web {

// Who may open a stream: the caller, or nullopt after it answered the refusal (401/403).
using StreamGuard =
    std::function<std::optional<Principal>(const HttpRequest& request, const HttpRespond& respond)>;

class LiveStream {
 public:
  struct Options {
    size_t max_streams = 100;
    std::chrono::milliseconds changes_interval{1000};
    std::chrono::milliseconds pipeline_interval{2000};
    std::chrono::milliseconds keepalive_interval{15000};
    std::chrono::milliseconds recheck_interval{60000};
    int retry_ms = 2000;
  };

  // `pipeline`: the body of GET /health (thread-safe and cheap, as the health sections are).
  // `feed` must outlive this object.
  LiveStream(boost::asio::any_io_executor executor, ChangeFeed& feed,
             std::function<nlohmann::json()> pipeline, Options options);
  ~LiveStream();
  LiveStream(const LiveStream&) = delete;
  LiveStream& operator=(const LiveStream&) = delete;

  // GET /api/v1/stream. This object must outlive the router's use of it.
  void add_route(Router& router, StreamGuard guard);
  // Starts the timer.
  void start();
  // Stops the timer and closes every stream; idempotent, any thread.
  void stop();

  size_t open_streams() const;
  size_t max_streams() const { return options_.max_streams; }
  // For /health: {"open": n, "max": m}.
  nlohmann::json report() const;

  // One Server-Sent Event: "event: <name>\ndata: <json>\n\n".
  static std::string format_event(std::string_view name, const nlohmann::json& data);

 private:
  struct Entry {
    std::shared_ptr<ResponseStream> stream;  // null until the opener returned
    std::chrono::steady_clock::time_point last_sent;
    std::shared_ptr<const HttpRequest> request;  // its credentials, checked again
    std::chrono::steady_clock::time_point next_check;
  };
  // The streams, shared with each stream's on_closed callback (weakly: a connection that ends
  // after this object is gone finds nothing to remove).
  struct Streams {
    mutable std::mutex mu;
    std::map<uint64_t, Entry> entries;
    uint64_t next_id = 1;
    bool stopped = false;
    void remove(uint64_t id);
  };

  void open(HttpRequest&& request, const HttpRespond& respond, const StreamOpener& open_stream,
            const Principal& who);
  void schedule();
  void tick();
  // Closes the streams whose credentials no longer pass the guard (those due for a check).
  void recheck(std::chrono::steady_clock::time_point now);
  // Writes `bytes` to every open stream (or those quiet since `quiet_since`, for keepalives).
  void broadcast(const std::shared_ptr<const std::string>& bytes,
                 std::optional<std::chrono::steady_clock::time_point> quiet_since = {});

  ChangeFeed& feed_;
  StreamGuard guard_;  // set by add_route
  std::function<nlohmann::json()> pipeline_;
  Options options_;
  std::shared_ptr<Streams> streams_ = std::make_shared<Streams>();
  boost::asio::steady_timer timer_;
  std::chrono::steady_clock::time_point next_pipeline_{};
};

}  // namespace ocppgw::web
