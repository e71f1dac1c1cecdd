// util/metrics.hpp: counters, gauges and histograms for the Prometheus endpoint (/metrics, see
// docs/api.md "Metrics and probes"), and their exposition in text format 0.0.4.
//
// A family has a name, a help text and a fixed list of label names; each combination of label
// values is one child, created on first use by Family::with() and never removed. with() takes
// a lock and a map lookup, so the hot paths (every frame, every commit) resolve their children
// once and keep the reference: Counter::inc, Gauge::add and Histogram::observe are a few relaxed
// atomic operations, no lock. Label values must come from bounded sets (action names of the
// protocol, error codes, route patterns), never from what a client chose (charge point ids):
// every child lives as long as the registry and is rendered at every scrape.
//
// Values known only when asked (outbox depth, analytics lag) are scrape-time families: a
// callback returns the samples when the registry is rendered.
//
// process_registry() holds the instruments of code that has no wiring to pass a registry
// through (the sink, the dispatcher's counters, the HTTP router), as Prometheus client
// libraries do; the scrape-time families of one serving process live in a registry it owns.
// Thread-safety: everything may be called from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ocppgw::metrics {

// Label values, in the order of the family's label names.
using LabelValues = std::vector<std::string>;

class Counter {
 public:
  void inc(uint64_t n = 1) noexcept { value_.fetch_add(n, std::memory_order_relaxed); }
  uint64_t value() const noexcept { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

class Gauge {
 public:
  void set(double v) noexcept { value_.store(v, std::memory_order_relaxed); }
  void add(double d) noexcept { value_.fetch_add(d, std::memory_order_relaxed); }
  double value() const noexcept { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class Histogram {
 public:
  // `bounds`: the upper bounds of the buckets, ascending (+Inf is implied).
  explicit Histogram(const std::vector<double>& bounds);
  void observe(double v) noexcept;

  struct Snapshot {
    std::vector<uint64_t> cumulative;  // per bound, then +Inf (== count)
    uint64_t count = 0;
    double sum = 0;
  };
  // Read while others observe: each number is exact, together they may be off by the
  // observations in flight (Prometheus tolerates that).
  Snapshot snapshot() const;
  const std::vector<double>& bounds() const { return bounds_; }

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;  // per bound, then +Inf; not cumulative
  std::atomic<double> sum_{0};
};

// Bucket bounds in seconds from 0.5 ms to 10 s: acks, commits, HTTP requests.
const std::vector<double>& latency_buckets();

enum class Type { Counter, Gauge, Histogram };

template <class T>
class Family {
 public:
  // The child for `values` (as many as the family has label names), created on first use.
  T& with(const LabelValues& values);
  // The one child of a family without labels.
  T& get() { return with({}); }

 private:
  friend class Registry;
  Family(std::vector<std::string> label_names, std::vector<double> bounds)
      : label_names_(std::move(label_names)), bounds_(std::move(bounds)) {}
  template <class Fn>
  void each(Fn&& fn) const {
    std::lock_guard lock(mu_);
    for (const auto& [values, child] : index_) fn(values, *child);
  }

  const std::vector<std::string> label_names_;
  const std::vector<double> bounds_;  // histograms only
  mutable std::mutex mu_;
  std::deque<T> children_;  // stable addresses
  std::map<LabelValues, T*> index_;
};

// One sample of a scrape-time family.
struct Sample {
  LabelValues labels;
  double value = 0;
};
using Collect = std::function<std::vector<Sample>()>;

class Registry {
 public:
  Registry();
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // Registering a name again returns the family registered first; the type and label names must
  // match (a mismatch is a programming error and aborts with a message).
  // Counter names end in "_total"; durations are in seconds, sizes in their unit.
  Family<Counter>& counter(const std::string& name, const std::string& help,
                           std::vector<std::string> label_names = {});
  Family<Gauge>& gauge(const std::string& name, const std::string& help,
                       std::vector<std::string> label_names = {});
  Family<Histogram>& histogram(const std::string& name, const std::string& help,
                               std::vector<double> bounds,
                               std::vector<std::string> label_names = {});
  // A counter or gauge family whose samples `collect` returns at each scrape (it runs on the
  // scraping thread and must be cheap and thread-safe).
  void add_collected(const std::string& name, const std::string& help, Type type,
                     std::vector<std::string> label_names, Collect collect);

  // Every family, by name, in the Prometheus text format 0.0.4: "# HELP", "# TYPE", then the
  // samples (histograms as _bucket{le=...}, _sum and _count).
  std::string render() const;

 private:
  struct Entry;
  Entry& find_or_add(const std::string& name, const std::string& help, Type type,
                     const std::vector<std::string>& label_names);
  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<Entry>> entries_;
};

// The registry of the process-wide instruments (see the top of this file).
Registry& process_registry();

// The content type of render()'s output.
inline constexpr const char* kTextFormat = "text/plain; version=0.0.4; charset=utf-8";

}  // namespace ocppgw::metrics
