// util/metrics.cpp: see metrics.hpp.
#include "util/metrics.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ocppgw::metrics {

Histogram::Histogram(const std::vector<double>& bounds)
    : bounds_(bounds), buckets_(new std::atomic<uint64_t>[bounds.size() + 1]) {
  for (size_t i = 0; i <= bounds_.size(); ++i) buckets_[i].store(0, std::memory_order_relaxed);
}

void Histogram::observe(double v) noexcept {
  // lower_bound: a value equal to a bound belongs to that bucket (le = "less or equal").
  const size_t i =
      static_cast<size_t>(std::lower_bound(bounds_.begin(), bounds_.end(), v) - bounds_.begin());
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(v, std::memory_order_relaxed);
}

Histogram::Snapshot Histogram::snapshot() const {
  Snapshot s;
  s.cumulative.reserve(bounds_.size() + 1);
  uint64_t running = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    running += buckets_[i].load(std::memory_order_relaxed);
    s.cumulative.push_back(running);
  }
  s.count = running;
  s.sum = sum_.load(std::memory_order_relaxed);
  return s;
}

const std::vector<double>& latency_buckets() {
  static const std::vector<double> bounds{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                          0.1,    0.25,  0.5,    1,     2.5,  5,     10};
  return bounds;
}

template <class T>
T& Family<T>::with(const LabelValues& values) {
  std::lock_guard lock(mu_);
  if (auto it = index_.find(values); it != index_.end()) return *it->second;
  if (values.size() != label_names_.size()) {
    std::fprintf(stderr, "metrics: %zu label values for %zu label names\n", values.size(),
                 label_names_.size());
    std::abort();
  }
  if constexpr (std::is_same_v<T, Histogram>)
    children_.emplace_back(bounds_);
  else
    children_.emplace_back();
  index_.emplace(values, &children_.back());
  return children_.back();
}

template class Family<Counter>;
template class Family<Gauge>;
template class Family<Histogram>;

struct Registry::Entry {
  std::string name;
  std::string help;
  Type type;
  std::vector<std::string> label_names;
  std::unique_ptr<Family<Counter>> counters;
  std::unique_ptr<Family<Gauge>> gauges;
  std::unique_ptr<Family<Histogram>> histograms;
  Collect collect;
};

Registry::Registry() = default;
Registry::~Registry() = default;

Registry::Entry& Registry::find_or_add(const std::string& name, const std::string& help, Type type,
                                       const std::vector<std::string>& label_names) {
  auto& slot = entries_[name];
  if (slot) {
    if (slot->type != type || slot->label_names != label_names) {
      std::fprintf(stderr, "metrics: %s registered twice with different types or labels\n",
                   name.c_str());
      std::abort();
    }
    return *slot;
  }
  slot = std::make_unique<Entry>(Entry{name, help, type, label_names, {}, {}, {}, {}});
  return *slot;
}

Family<Counter>& Registry::counter(const std::string& name, const std::string& help,
                                   std::vector<std::string> label_names) {
  std::lock_guard lock(mu_);
  Entry& e = find_or_add(name, help, Type::Counter, label_names);
  if (!e.counters) e.counters.reset(new Family<Counter>(std::move(label_names), {}));
  return *e.counters;
}

Family<Gauge>& Registry::gauge(const std::string& name, const std::string& help,
                               std::vector<std::string> label_names) {
  std::lock_guard lock(mu_);
  Entry& e = find_or_add(name, help, Type::Gauge, label_names);
  if (!e.gauges) e.gauges.reset(new Family<Gauge>(std::move(label_names), {}));
  return *e.gauges;
}

Family<Histogram>& Registry::histogram(const std::string& name, const std::string& help,
                                       std::vector<double> bounds,
                                       std::vector<std::string> label_names) {
  std::lock_guard lock(mu_);
  Entry& e = find_or_add(name, help, Type::Histogram, label_names);
  if (!e.histograms)
    e.histograms.reset(new Family<Histogram>(std::move(label_names), std::move(bounds)));
  return *e.histograms;
}

void Registry::add_collected(const std::string& name, const std::string& help, Type type,
                             std::vector<std::string> label_names, Collect collect) {
  std::lock_guard lock(mu_);
  Entry& e = find_or_add(name, help, type, label_names);
  e.collect = std::move(collect);
}

namespace {

// A sample value: integers without a fraction, others in the shortest form that reads back
// exactly; the infinities and NaN as the format spells them.
void append_value(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "NaN";
    return;
  }
  if (std::isinf(v)) {
    out += v > 0 ? "+Inf" : "-Inf";
    return;
  }
  char buf[64];
  const auto r = std::abs(v) < 9e15 && v == std::floor(v)
                     ? std::to_chars(buf, buf + sizeof buf, static_cast<int64_t>(v))
                     : std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void append_escaped(std::string& out, std::string_view text, bool quote_too) {
  for (char c : text) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else if (c == '"' && quote_too)
      out += "\\\"";
    else
      out += c;
  }
}

// {a="x",b="y"} plus an optional le="..." last; nothing when there are no labels at all.
void append_labels(std::string& out, const std::vector<std::string>& names,
                   const LabelValues& values, const std::string* le = nullptr) {
  if (names.empty() && !le) return;
  out += '{';
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out += ',';
    out += names[i];
    out += "=\"";
    append_escaped(out, values[i], true);
    out += '"';
  }
  if (le) {
    if (!names.empty()) out += ',';
    out += "le=\"" + *le + "\"";
  }
  out += '}';
}

void append_sample(std::string& out, const std::string& name, const std::vector<std::string>& names,
                   const LabelValues& values, double value, const std::string* le = nullptr) {
  out += name;
  append_labels(out, names, values, le);
  out += ' ';
  append_value(out, value);
  out += '\n';
}

const char* type_name(Type t) {
  switch (t) {
    case Type::Counter:
      return "counter";
    case Type::Gauge:
      return "gauge";
    case Type::Histogram:
      return "histogram";
  }
  return "untyped";
}

}  // namespace

std::string Registry::render() const {
  std::string out;
  std::lock_guard lock(mu_);
  for (const auto& entry : entries_) {
    // Named references, not a structured binding: the lambdas below capture `name`, which
    // clang 14 (the fuzz targets' compiler) cannot do with a binding.
    const std::string& name = entry.first;
    const auto& e = entry.second;
    out += "# HELP " + name + " ";
    append_escaped(out, e->help, false);
    out += "\n# TYPE " + name + " " + type_name(e->type) + "\n";
    const auto& names = e->label_names;
    if (e->counters)
      e->counters->each([&](const LabelValues& values, const Counter& c) {
        append_sample(out, name, names, values, static_cast<double>(c.value()));
      });
    if (e->gauges)
      e->gauges->each([&](const LabelValues& values, const Gauge& g) {
        append_sample(out, name, names, values, g.value());
      });
    if (e->histograms)
      e->histograms->each([&](const LabelValues& values, const Histogram& h) {
        const auto snap = h.snapshot();
        for (size_t i = 0; i <= h.bounds().size(); ++i) {
          std::string le;
          append_value(le, i < h.bounds().size() ? h.bounds()[i] : INFINITY);
          append_sample(out, name + "_bucket", names, values,
                        static_cast<double>(snap.cumulative[i]), &le);
        }
        append_sample(out, name + "_sum", names, values, snap.sum);
        append_sample(out, name + "_count", names, values, static_cast<double>(snap.count));
      });
    if (e->collect)
      for (const auto& s : e->collect()) {
        if (s.labels.size() != names.size()) continue;  // a collector's defect: skip the sample
        append_sample(out, name, names, s.labels, s.value);
      }
  }
  return out;
}

Registry& process_registry() {
  static Registry registry;
  return registry;
}

}  // namespace ocppgw::metrics
