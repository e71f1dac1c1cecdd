// tests/unit/web/live_stream_test.cpp: GET /api/v1/stream over a fake connection. The guard
// refuses before anything opens; an opened stream gets the SSE head, `retry`, `hello` (user,
// role, server time) and `pipeline`; `changes` comes once per tick only when the feed changed,
// the same event to every stream, with seq; `pipeline` and `: keepalive` on their intervals; the
// cap answers 503 and frees a place when a stream closes; a stream whose write fails is dropped;
// a stream whose login ended is closed at its next check; stop() closes every stream and
// refuses new ones. The timer runs on an io_context in the test
// thread, with intervals of a few milliseconds.
#include "web/live_stream.hpp"

#include <optional>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <boost/asio/io_context.hpp>

namespace ocppgw::web {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

// What a connection would send, kept as text.
class FakeStream : public ResponseStream {
 public:
  explicit FakeStream(std::function<void()> on_closed) : on_closed_(std::move(on_closed)) {}
  bool write(std::shared_ptr<const std::string> bytes) override {
    if (closed || full) return false;
    text += *bytes;
    return true;
  }
  void close() override {
    if (closed) return;
    closed = true;
    if (on_closed_) on_closed_();
  }
  // The events' names and data, in order ("retry" and comments as they are).
  std::vector<std::string> events(const std::string& name) const {
    std::vector<std::string> out;
    const std::regex event("event: " + name + "\ndata: ([^\n]*)\n\n");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), event);
         it != std::sregex_iterator(); ++it)
      out.push_back((*it)[1]);
    return out;
  }

  std::string text;
  bool closed = false;
  bool full = false;

 private:
  std::function<void()> on_closed_;
};

struct Opened {
  std::optional<HttpResponse> refusal;  // respond() was called instead
  std::optional<HttpResponse> head;
  std::shared_ptr<FakeStream> stream;
};

class LiveStreamTest : public ::testing::Test {
 protected:
  void make(LiveStream::Options options) {
    live_ = std::make_unique<LiveStream>(
        ioc_.get_executor(), feed_,
        [this] {
          return json{{"status", "ok"}, {"n", ++health_}};
        },
        options);
    live_->add_route(
        router_,
        [this](const HttpRequest& request, const HttpRespond& respond) -> std::optional<Principal> {
          if (request[http::field::authorization] != "Bearer good" || logged_out_) {
            respond(json_error(request, http::status::unauthorized, "log in"));
            return std::nullopt;
          }
          return Principal{"vera", Role::Operator};
        });
    live_->start();
  }

  Opened open(bool authorized = true) {
    HttpRequest request{http::verb::get, "/api/v1/stream", 11};
    if (authorized) request.set(http::field::authorization, "Bearer good");
    Opened out;
    router_.handle(
        std::move(request), [&](HttpResponse res) { out.refusal = std::move(res); },
        [&](HttpResponse head, std::function<void()> on_closed) {
          out.head = std::move(head);
          out.stream = std::make_shared<FakeStream>(std::move(on_closed));
          return out.stream;
        });
    return out;
  }

  void run_for(std::chrono::milliseconds duration) {
    ioc_.restart();
    ioc_.run_for(duration);
  }

  boost::asio::io_context ioc_;
  ChangeFeed feed_;
  Router router_;
  int health_ = 0;
  bool logged_out_ = false;  // every session ended: the guard refuses from now on
  std::unique_ptr<LiveStream> live_;
};

LiveStream::Options fast() {
  LiveStream::Options o;
  o.changes_interval = 10ms;
  o.pipeline_interval = 1h;  // only the one right after hello, unless a test wants more
  o.keepalive_interval = 1h;
  return o;
}

TEST_F(LiveStreamTest, AnonymousCallersAreRefusedBeforeAnythingOpens) {
  make(fast());
  const auto opened = open(false);
  ASSERT_TRUE(opened.refusal);
  EXPECT_EQ(opened.refusal->result(), http::status::unauthorized);
  EXPECT_FALSE(opened.stream);
  EXPECT_EQ(live_->open_streams(), 0u);
}

TEST_F(LiveStreamTest, AStreamStartsWithRetryHelloAndPipeline) {
  make(fast());
  const auto opened = open();
  ASSERT_FALSE(opened.refusal);
  ASSERT_TRUE(opened.head && opened.stream);
  EXPECT_EQ(opened.head->result(), http::status::ok);
  EXPECT_EQ((*opened.head)[http::field::content_type], "text/event-stream");
  EXPECT_EQ((*opened.head)[http::field::cache_control], "no-cache");
  EXPECT_EQ((*opened.head)["X-Accel-Buffering"], "no");
  EXPECT_TRUE(opened.head->body().empty());

  const std::string& text = opened.stream->text;
  EXPECT_EQ(text.rfind("retry: 2000\n\nevent: hello\ndata: ", 0), 0u) << text;
  const auto hello = opened.stream->events("hello");
  ASSERT_EQ(hello.size(), 1u);
  const json data = json::parse(hello[0]);
  EXPECT_EQ(data["user"], "vera");
  EXPECT_EQ(data["role"], "operator");
  EXPECT_TRUE(std::regex_match(data["server_time"].get<std::string>(),
                               std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z)")))
      << data;
  EXPECT_LT(text.find("event: hello"), text.find("event: pipeline"));
  ASSERT_EQ(opened.stream->events("pipeline").size(), 1u);
  EXPECT_EQ(json::parse(opened.stream->events("pipeline")[0])["status"], "ok");
  EXPECT_EQ(live_->open_streams(), 1u);
  EXPECT_EQ(live_->report(), (json{{"open", 1}, {"max", 100}}));
}

TEST_F(LiveStreamTest, ChangesGoOutOncePerTickOnlyWhenSomethingChanged) {
  make(fast());
  const auto a = open(), b = open();
  run_for(50ms);
  EXPECT_TRUE(a.stream->events("changes").empty()) << "nothing changed: no event";

  feed_.charge_point("CP-2");
  feed_.charge_point("CP-1");
  feed_.session("CP-1");
  run_for(50ms);
  auto changes = a.stream->events("changes");
  ASSERT_EQ(changes.size(), 1u) << a.stream->text;
  EXPECT_EQ(json::parse(changes[0]), (json{{"charge_points", {"CP-1", "CP-2"}},
                                           {"sessions", true},
                                           {"quality", false},
                                           {"seq", 1}}));
  EXPECT_EQ(b.stream->events("changes"), changes) << "every stream gets the same event";

  feed_.quality();
  run_for(50ms);
  changes = a.stream->events("changes");
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(json::parse(changes[1])["seq"], 2);
  EXPECT_EQ(json::parse(changes[1])["quality"], true);
}

TEST_F(LiveStreamTest, ChangesWithoutListenersAreDropped) {
  make(fast());
  feed_.charge_point("CP-1");
  run_for(30ms);
  const auto late = open();
  feed_.charge_point("CP-2");
  run_for(30ms);
  const auto changes = late.stream->events("changes");
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(json::parse(changes[0])["charge_points"], json::array({"CP-2"}));
  EXPECT_EQ(json::parse(changes[0])["seq"], 1);
}

TEST_F(LiveStreamTest, PipelineComesOnItsIntervalAndKeepaliveOnlyAfterSilence) {
  auto options = fast();
  options.pipeline_interval = 40ms;
  make(options);
  const auto opened = open();
  run_for(210ms);
  const auto pipelines = opened.stream->events("pipeline").size();
  EXPECT_GE(pipelines, 4u);  // the one after hello and ~5 ticks of 40 ms
  EXPECT_LE(pipelines, 8u);
  EXPECT_EQ(opened.stream->text.find(": keepalive"), std::string::npos)
      << "pipeline events keep it busy";

  live_->stop();
  auto quiet = fast();
  quiet.keepalive_interval = 30ms;
  make(quiet);
  const auto silent = open();
  run_for(100ms);
  EXPECT_NE(silent.stream->text.find(": keepalive\n\n"), std::string::npos) << silent.stream->text;
}

TEST_F(LiveStreamTest, OverMaxStreamsIs503UntilOneCloses) {
  auto options = fast();
  options.max_streams = 2;
  make(options);
  const auto a = open(), b = open();
  ASSERT_TRUE(a.stream && b.stream);
  const auto c = open();
  ASSERT_TRUE(c.refusal);
  EXPECT_FALSE(c.stream);
  EXPECT_EQ(c.refusal->result(), http::status::service_unavailable);
  EXPECT_EQ((*c.refusal)[http::field::retry_after], "5");
  EXPECT_NE(c.refusal->body().find("max_streams"), std::string::npos);

  a.stream->close();  // the client went away
  EXPECT_EQ(live_->open_streams(), 1u);
  const auto d = open();
  EXPECT_TRUE(d.stream);
  EXPECT_EQ(live_->open_streams(), 2u);
}

TEST_F(LiveStreamTest, AStreamThatCannotTakeMoreIsDropped) {
  make(fast());
  const auto slow = open(), fine = open();
  slow.stream->full = true;
  feed_.charge_point("CP-1");
  run_for(30ms);
  EXPECT_EQ(live_->open_streams(), 1u);
  EXPECT_EQ(fine.stream->events("changes").size(), 1u);
}

TEST_F(LiveStreamTest, AStreamWhoseLoginEndedIsClosedAtItsNextCheck) {
  auto options = fast();
  options.recheck_interval = 30ms;
  make(options);
  const auto opened = open();
  run_for(100ms);
  EXPECT_FALSE(opened.stream->closed) << "still logged in";
  logged_out_ = true;
  run_for(100ms);
  EXPECT_TRUE(opened.stream->closed);
  EXPECT_EQ(live_->open_streams(), 0u);
}

TEST_F(LiveStreamTest, StopClosesEveryStreamAndRefusesNewOnes) {
  make(fast());
  const auto a = open(), b = open();
  live_->stop();
  EXPECT_TRUE(a.stream->closed);
  EXPECT_TRUE(b.stream->closed);
  EXPECT_EQ(live_->open_streams(), 0u);
  const auto late = open();
  ASSERT_TRUE(late.refusal);
  EXPECT_EQ(late.refusal->result(), http::status::service_unavailable);
  feed_.charge_point("CP-1");
  run_for(30ms);
  EXPECT_TRUE(a.stream->events("changes").empty());
}

}  // namespace
}  // namespace ocppgw::web
