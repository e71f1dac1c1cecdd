// tests/unit/util/metrics_test.cpp: counters, gauges, histograms and scrape-time families, and
// their text exposition (format 0.0.4) byte for byte.
#include "util/metrics.hpp"

#include <cmath>
#include <thread>

#include <gtest/gtest.h>

namespace ocppgw::metrics {
namespace {

TEST(Metrics, CounterFamilyRendersHelpTypeAndOneLinePerChild) {
  Registry r;
  auto& frames = r.counter("t_frames_total", "Frames.", {"version", "action"});
  frames.with({"1.6", "Heartbeat"}).inc();
  frames.with({"1.6", "Heartbeat"}).inc(2);
  frames.with({"2.0.1", "BootNotification"}).inc();
  EXPECT_EQ(r.render(),
            "# HELP t_frames_total Frames.\n"
            "# TYPE t_frames_total counter\n"
            "t_frames_total{version=\"1.6\",action=\"Heartbeat\"} 3\n"
            "t_frames_total{version=\"2.0.1\",action=\"BootNotification\"} 1\n");
}

TEST(Metrics, ChildrenAreStableAndRegisteringAgainReturnsTheSameFamily) {
  Registry r;
  Counter& a = r.counter("t_total", "x", {"k"}).with({"v"});
  Counter& b = r.counter("t_total", "x", {"k"}).with({"v"});
  EXPECT_EQ(&a, &b);
  for (int i = 0; i < 100; ++i) r.counter("t_total", "x", {"k"}).with({std::to_string(i)});
  a.inc();
  EXPECT_EQ(b.value(), 1u);
}

TEST(Metrics, MismatchedRegistrationAborts) {
  Registry r;
  r.counter("t_total", "x", {"k"});
  EXPECT_DEATH(r.gauge("t_total", "x", {"k"}), "registered twice");
  EXPECT_DEATH(r.counter("t_total", "x", {"k", "j"}), "registered twice");
  EXPECT_DEATH(r.counter("t_total", "x", {"k"}).with({"a", "b"}), "label values");
}

TEST(Metrics, GaugeWithoutLabelsAndValueFormats) {
  Registry r;
  auto& g = r.gauge("t_gauge", "A gauge.");
  g.get().set(2.5);
  g.get().add(-1);
  EXPECT_EQ(r.render(), "# HELP t_gauge A gauge.\n# TYPE t_gauge gauge\nt_gauge 1.5\n");
  g.get().set(-INFINITY);
  EXPECT_NE(r.render().find("t_gauge -Inf\n"), std::string::npos);
  g.get().set(NAN);
  EXPECT_NE(r.render().find("t_gauge NaN\n"), std::string::npos);
  g.get().set(1e20);
  EXPECT_NE(r.render().find("t_gauge 1e+20\n"), std::string::npos);
}

TEST(Metrics, HistogramBucketsAreCumulativeWithInfSumAndCount) {
  Registry r;
  auto& h = r.histogram("t_seconds", "Latency.", {0.1, 1}, {"kind"});
  auto& child = h.with({"ack"});
  child.observe(0.05);
  child.observe(0.1);  // on a bound: that bucket (le)
  child.observe(0.5);
  child.observe(7);
  EXPECT_EQ(r.render(),
            "# HELP t_seconds Latency.\n"
            "# TYPE t_seconds histogram\n"
            "t_seconds_bucket{kind=\"ack\",le=\"0.1\"} 2\n"
            "t_seconds_bucket{kind=\"ack\",le=\"1\"} 3\n"
            "t_seconds_bucket{kind=\"ack\",le=\"+Inf\"} 4\n"
            "t_seconds_sum{kind=\"ack\"} 7.65\n"
            "t_seconds_count{kind=\"ack\"} 4\n");
}

TEST(Metrics, HistogramWithoutLabelsPutsLeAlone) {
  Registry r;
  r.histogram("t_size", "Size.", {10}).get().observe(3);
  EXPECT_NE(r.render().find("t_size_bucket{le=\"10\"} 1\nt_size_bucket{le=\"+Inf\"} 1\n"
                            "t_size_sum 3\nt_size_count 1\n"),
            std::string::npos);
}

TEST(Metrics, LabelValuesAndHelpAreEscaped) {
  Registry r;
  r.counter("t_total", "Back\\slash and\nnewline \"kept\".", {"v"}).with({"a\"b\\c\nd"}).inc();
  EXPECT_EQ(r.render(),
            "# HELP t_total Back\\\\slash and\\nnewline \"kept\".\n"
            "# TYPE t_total counter\n"
            "t_total{v=\"a\\\"b\\\\c\\nd\"} 1\n");
}

TEST(Metrics, CollectedFamiliesAreReadAtEachScrapeAndSortedByName) {
  Registry r;
  int depth = 3;
  r.add_collected("t_b_depth", "Depth.", Type::Gauge, {}, [&] {
    return std::vector<Sample>{{{}, static_cast<double>(depth)}};
  });
  r.add_collected("t_a_errors_total", "Errors.", Type::Counter, {"code"}, [] {
    return std::vector<Sample>{{{"timeout"}, 2}, {{"bad", "extra"}, 9}};  // the second is skipped
  });
  EXPECT_EQ(r.render(),
            "# HELP t_a_errors_total Errors.\n# TYPE t_a_errors_total counter\n"
            "t_a_errors_total{code=\"timeout\"} 2\n"
            "# HELP t_b_depth Depth.\n# TYPE t_b_depth gauge\nt_b_depth 3\n");
  depth = 4;
  EXPECT_NE(r.render().find("t_b_depth 4\n"), std::string::npos);
}

TEST(Metrics, ConcurrentIncrementsAndObservationsAreAllCounted) {
  Registry r;
  auto& c = r.counter("t_total", "x").get();
  auto& h = r.histogram("t_seconds", "x", latency_buckets()).get();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) {
        c.inc();
        h.observe(0.001);
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(c.value(), 40000u);
  const auto snap = h.snapshot();
  EXPECT_EQ(snap.count, 40000u);
  EXPECT_NEAR(snap.sum, 40.0, 1e-6);
  EXPECT_EQ(snap.cumulative[1], 40000u);  // le=0.001
  EXPECT_EQ(snap.cumulative[0], 0u);      // le=0.0005
}

}  // namespace
}  // namespace ocppgw::metrics
