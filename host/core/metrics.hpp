// Prometheus metrics, written in the text exposition format 0.0.4: counters
// and histograms in labelled families, kept in a registry that renders them
// (HELP and TYPE lines, label values escaped, a histogram's _bucket{le=...},
// _sum and _count). Thread-safe; recording a sample is atomics only once its
// labels were seen (a shared lock to find them, an exclusive one the first time).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

namespace liveupdate::host::metrics {

// Label values in the order of the family's label names.
using LabelValues = std::vector<std::string>;

class Counter {
public:
    void add(std::uint64_t n = 1) { value_.fetch_add(n, std::memory_order_relaxed); }
    std::uint64_t value() const { return value_.load(std::memory_order_relaxed); }

private:
    std::atomic<std::uint64_t> value_{0};
};

class Histogram {
public:
    // bounds: the buckets' upper bounds, increasing (+Inf is implied).
    explicit Histogram(std::shared_ptr<const std::vector<double>> bounds);
    void observe(double value);

    struct Snapshot {
        std::vector<std::uint64_t> cumulative;  // per bound, then +Inf (== count)
        double sum = 0;
        std::uint64_t count = 0;
    };
    Snapshot snapshot() const;
    const std::vector<double> &bounds() const { return *bounds_; }

private:
    std::shared_ptr<const std::vector<double>> bounds_;
    std::unique_ptr<std::atomic<std::uint64_t>[]> buckets_;  // per bound, then +Inf; not cumulative
    std::atomic<double> sum_{0};
};

// One metric name with its labels; each set of label values one child, kept
// for the registry's life (a reference from with() stays valid).
template <typename Metric>
class Family {
public:
    using Make = std::function<std::unique_ptr<Metric>()>;
    Family(std::vector<std::string> label_names, Make make)
        : label_names_(std::move(label_names)), make_(std::move(make)) {}

    // Throws std::invalid_argument when values and label names differ in number.
    Metric &with(const LabelValues &values);
    const std::vector<std::string> &label_names() const { return label_names_; }
    // Calls fn(values, metric) for each child, in label order.
    void each(const std::function<void(const LabelValues &, const Metric &)> &fn) const;

private:
    std::vector<std::string> label_names_;
    Make make_;
    mutable std::shared_mutex mutex_;
    std::map<LabelValues, std::unique_ptr<Metric>> children_;
};

// A sample read when the registry renders (a figure another part keeps).
struct Sample {
    LabelValues labels;
    double value = 0;
};
using CollectFn = std::function<std::vector<Sample>()>;

class Registry {
public:
    // Each name once; the family lives as long as the registry.
    Family<Counter> &counter(std::string name, std::string help, std::vector<std::string> label_names);
    Family<Histogram> &histogram(std::string name, std::string help, std::vector<std::string> label_names,
                                 std::vector<double> bounds);

    // A counter whose samples collect gives at each render, until the
    // returned handle is dropped (the part keeping the figures is gone).
    [[nodiscard]] std::shared_ptr<void> collected_counter(std::string name, std::string help,
                                                          std::vector<std::string> label_names, CollectFn collect);

    // The whole registry in the text format, families in registration order.
    std::string render() const;

private:
    struct Entry;
    mutable std::mutex mutex_;
    std::vector<std::shared_ptr<Entry>> entries_;
};

// The Content-Type of render()'s text.
inline constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";

// A label value as the text format writes it between quotes: \\, \" and \n escaped.
std::string escape_label_value(std::string_view value);
// A sample value or bound: integers without a fraction, "+Inf", "NaN".
std::string format_value(double value);

}  // namespace liveupdate::host::metrics
