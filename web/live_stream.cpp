// web/live_stream.cpp: see live_stream.hpp.
#include "web/live_stream.hpp"

#include <vector>

#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>

#include "util/logging.hpp"
#include "util/metrics.hpp"
#include "util/time.hpp"

namespace ocppgw::web {
namespace {

metrics::Gauge& streams_gauge() {
  static auto& gauge =
      metrics::process_registry()
          .gauge("ocppgw_web_streams",
                 "Live streams (GET /api/v1/stream, Server-Sent Events) open now; at most "
                 "max_streams.")
          .get();
  return gauge;
}

std::shared_ptr<const std::string> shared(std::string text) {
  return std::make_shared<const std::string>(std::move(text));
}

}  // namespace

void LiveStream::Streams::remove(uint64_t id) {
  std::lock_guard lock(mu);
  if (entries.erase(id) > 0) streams_gauge().add(-1);
}

LiveStream::LiveStream(boost::asio::any_io_executor executor, ChangeFeed& feed,
                       std::function<nlohmann::json()> pipeline, Options options)
    : feed_(feed),
      pipeline_(std::move(pipeline)),
      options_(options),
      timer_(boost::asio::make_strand(std::move(executor))) {}

LiveStream::~LiveStream() { stop(); }

std::string LiveStream::format_event(std::string_view name, const nlohmann::json& data) {
  // dump() without indentation is one line: a JSON string escapes its newlines, so the data
  // field never needs splitting into several "data:" lines.
  return "event: " + std::string(name) +
         "\ndata: " + data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n\n";
}

size_t LiveStream::open_streams() const {
  std::lock_guard lock(streams_->mu);
  return streams_->entries.size();
}

nlohmann::json LiveStream::report() const {
  return {{"open", open_streams()}, {"max", options_.max_streams}};
}

void LiveStream::add_route(Router& router, StreamGuard guard) {
  guard_ = std::move(guard);
  router.add_stream(http::verb::get, "/api/v1/stream",
                    [this](HttpRequest&& request, const PathParams&, HttpRespond respond,
                           const StreamOpener& open_stream) {
                      const auto who = guard_(request, respond);
                      if (!who) return;
                      open(std::move(request), respond, open_stream, *who);
                    });
}

void LiveStream::open(HttpRequest&& request, const HttpRespond& respond,
                      const StreamOpener& open_stream, const Principal& who) {
  auto head = make_response(request, http::status::ok, "", "text/event-stream");
  head.set(http::field::cache_control, "no-cache");
  // Proxies such as nginx buffer responses by default, which would hold events back.
  head.set("X-Accel-Buffering", "no");
  // HEAD (served by this GET route) and connections that cannot stream get the head alone.
  if (request.method() == http::verb::head || !open_stream) return respond(std::move(head));

  uint64_t id = 0;
  {
    std::lock_guard lock(streams_->mu);
    if (streams_->stopped || streams_->entries.size() >= options_.max_streams) {
      auto res = json_error(request, http::status::service_unavailable,
                            streams_->stopped
                                ? "the gateway is shutting down"
                                : "too many live streams are open (max_streams " +
                                      std::to_string(options_.max_streams) + "); try again later");
      res.set(http::field::retry_after, "5");
      return respond(std::move(res));
    }
    // Reserved before the opener runs, so the cap holds while streams open concurrently.
    id = streams_->next_id++;
    streams_->entries[id] = {};
    streams_gauge().add(1);
  }
  auto stream = open_stream(std::move(head), [weak = std::weak_ptr<Streams>(streams_), id] {
    if (auto streams = weak.lock()) streams->remove(id);
  });
  if (!stream) return streams_->remove(id);
  const nlohmann::json hello = {{"user", who.name},
                                {"role", role_name(who.role)},
                                {"server_time", util::format_rfc3339_ms(util::now_ms())}};
  // The pipeline panel need not wait for the next tick.
  stream->write(shared("retry: " + std::to_string(options_.retry_ms) + "\n\n" +
                       format_event("hello", hello) + format_event("pipeline", pipeline_())));
  const auto now = std::chrono::steady_clock::now();
  auto credentials = std::make_shared<const HttpRequest>(std::move(request));
  std::lock_guard lock(streams_->mu);
  // Not there any more: the client went away (or stop() ran) while the stream opened.
  if (auto it = streams_->entries.find(id); it != streams_->entries.end())
    it->second = {std::move(stream), now, std::move(credentials), now + options_.recheck_interval};
  else
    stream->close();
}

void LiveStream::recheck(std::chrono::steady_clock::time_point now) {
  std::vector<std::pair<std::shared_ptr<ResponseStream>, std::shared_ptr<const HttpRequest>>> due;
  {
    std::lock_guard lock(streams_->mu);
    for (auto& [id, entry] : streams_->entries)
      if (entry.stream && entry.next_check <= now) {
        entry.next_check = now + options_.recheck_interval;
        due.emplace_back(entry.stream, entry.request);
      }
  }
  // Outside the lock: the guard may look the session up, and close() removes the entry.
  for (const auto& [stream, request] : due)
    if (!guard_(*request, [](HttpResponse) {})) stream->close();
}

void LiveStream::start() {
  next_pipeline_ = std::chrono::steady_clock::now();
  boost::asio::post(timer_.get_executor(), [this] { schedule(); });
}

void LiveStream::schedule() {
  timer_.expires_after(options_.changes_interval);
  timer_.async_wait([this](boost::system::error_code ec) {
    if (!ec) tick();
  });
}

void LiveStream::tick() {
  {
    std::lock_guard lock(streams_->mu);
    if (streams_->stopped) return;
  }
  const auto now = std::chrono::steady_clock::now();
  if (open_streams() == 0) {
    feed_.discard();
  } else {
    if (auto changes = feed_.take()) broadcast(shared(format_event("changes", *changes)));
    if (now >= next_pipeline_) {
      next_pipeline_ = now + options_.pipeline_interval;
      broadcast(shared(format_event("pipeline", pipeline_())));
    }
    broadcast(shared(": keepalive\n\n"), now - options_.keepalive_interval);
    recheck(now);
  }
  schedule();
}

void LiveStream::broadcast(const std::shared_ptr<const std::string>& bytes,
                           std::optional<std::chrono::steady_clock::time_point> quiet_since) {
  std::vector<std::pair<uint64_t, std::shared_ptr<ResponseStream>>> targets;
  {
    std::lock_guard lock(streams_->mu);
    const auto now = std::chrono::steady_clock::now();
    for (auto& [id, entry] : streams_->entries) {
      if (!entry.stream || (quiet_since && entry.last_sent > *quiet_since)) continue;
      entry.last_sent = now;
      targets.emplace_back(id, entry.stream);
    }
  }
  // Outside the lock: a write that finds its stream full closes that connection, whose
  // on_closed takes the lock to remove it.
  for (const auto& [id, stream] : targets)
    if (!stream->write(bytes)) streams_->remove(id);
}

void LiveStream::stop() {
  std::vector<std::shared_ptr<ResponseStream>> open;
  {
    std::lock_guard lock(streams_->mu);
    if (streams_->stopped) return;
    streams_->stopped = true;
    for (auto& [id, entry] : streams_->entries)
      if (entry.stream) open.push_back(entry.stream);
  }
  // The timer is not cancelled from here (it belongs to its strand): its next tick sees
  // `stopped` and does not reschedule, and destroying it cancels the wait.
  for (const auto& stream : open) stream->close();
}

}  // namespace ocppgw::web
