#include "host/core/metrics.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace liveupdate::host::metrics {

Histogram::Histogram(std::shared_ptr<const std::vector<double>> bounds)
    : bounds_(std::move(bounds)), buckets_(new std::atomic<std::uint64_t>[bounds_->size() + 1]) {
    for (std::size_t i = 0; i <= bounds_->size(); ++i) buckets_[i] = 0;
}

void Histogram::observe(double value) {
    // The first bound the value does not exceed ("le"); past the last one: +Inf.
    const auto at = std::lower_bound(bounds_->begin(), bounds_->end(), value);
    buckets_[static_cast<std::size_t>(at - bounds_->begin())].fetch_add(1, std::memory_order_relaxed);
    sum_.fetch_add(value, std::memory_order_relaxed);
}

Histogram::Snapshot Histogram::snapshot() const {
    Snapshot s;
    std::uint64_t running = 0;
    for (std::size_t i = 0; i <= bounds_->size(); ++i) {
        running += buckets_[i].load(std::memory_order_relaxed);
        s.cumulative.push_back(running);
    }
    s.count = running;
    s.sum = sum_.load(std::memory_order_relaxed);
    return s;
}

template <typename Metric>
Metric &Family<Metric>::with(const LabelValues &values) {
    if (values.size() != label_names_.size())
        throw std::invalid_argument("metrics: " + std::to_string(values.size()) + " label value(s) for " +
                                    std::to_string(label_names_.size()) + " label name(s)");
    {
        const std::shared_lock lock(mutex_);
        if (const auto found = children_.find(values); found != children_.end()) return *found->second;
    }
    const std::unique_lock lock(mutex_);
    std::unique_ptr<Metric> &child = children_[values];
    if (!child) child = make_();
    return *child;
}

template <typename Metric>
void Family<Metric>::each(const std::function<void(const LabelValues &, const Metric &)> &fn) const {
    const std::shared_lock lock(mutex_);
    for (const auto &[values, metric] : children_) fn(values, *metric);
}

template class Family<Counter>;
template class Family<Histogram>;

struct Registry::Entry {
    std::string name;
    std::string help;
    std::string type;  // "counter", "histogram"
    std::vector<std::string> label_names;
    std::unique_ptr<Family<Counter>> counters;
    std::unique_ptr<Family<Histogram>> histograms;
    std::shared_ptr<const std::vector<double>> bounds;
    CollectFn collect;
};

namespace {

// HELP text: backslash and newline escaped.
std::string escape_help(std::string_view text) {
    std::string out;
    for (const char c : text) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

// {a="x",b="y"} with an extra (name, value) pair last when given; "" when there is no label at all.
std::string label_text(const std::vector<std::string> &names, const LabelValues &values,
                       std::string_view extra_name = {}, std::string_view extra_value = {}) {
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i)
        out.append(out.empty() ? "{" : ",").append(names[i]).append("=\"").append(escape_label_value(values[i])) += '"';
    if (!extra_name.empty())
        out.append(out.empty() ? "{" : ",").append(extra_name).append("=\"").append(escape_label_value(extra_value)) +=
            '"';
    if (!out.empty()) out += '}';
    return out;
}

}  // namespace

std::string escape_label_value(std::string_view value) {
    std::string out;
    for (const char c : value) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '"')
            out += "\\\"";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

std::string format_value(double value) {
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
    char buffer[64];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
    return ec == std::errc() ? std::string(buffer, end) : "NaN";
}

Family<Counter> &Registry::counter(std::string name, std::string help, std::vector<std::string> label_names) {
    auto entry = std::make_shared<Entry>();
    entry->name = std::move(name);
    entry->help = std::move(help);
    entry->type = "counter";
    entry->label_names = label_names;
    entry->counters =
        std::make_unique<Family<Counter>>(std::move(label_names), [] { return std::make_unique<Counter>(); });
    const std::lock_guard lock(mutex_);
    entries_.push_back(entry);
    return *entry->counters;
}

Family<Histogram> &Registry::histogram(std::string name, std::string help, std::vector<std::string> label_names,
                                       std::vector<double> bounds) {
    auto entry = std::make_shared<Entry>();
    entry->name = std::move(name);
    entry->help = std::move(help);
    entry->type = "histogram";
    entry->label_names = label_names;
    entry->bounds = std::make_shared<const std::vector<double>>(std::move(bounds));
    entry->histograms = std::make_unique<Family<Histogram>>(
        std::move(label_names), [bounds = entry->bounds] { return std::make_unique<Histogram>(bounds); });
    const std::lock_guard lock(mutex_);
    entries_.push_back(entry);
    return *entry->histograms;
}

std::shared_ptr<void> Registry::collected_counter(std::string name, std::string help,
                                                  std::vector<std::string> label_names, CollectFn collect) {
    auto entry = std::make_shared<Entry>();
    entry->name = std::move(name);
    entry->help = std::move(help);
    entry->type = "counter";
    entry->label_names = std::move(label_names);
    entry->collect = std::move(collect);
    {
        const std::lock_guard lock(mutex_);
        entries_.push_back(entry);
    }
    // Dropping the handle waits for a render in progress (it holds mutex_), so
    // collect is never called after its owner is gone.
    return std::shared_ptr<void>(entry.get(), [this, raw = entry.get()](void *) {
        const std::lock_guard lock(mutex_);
        std::erase_if(entries_, [raw](const std::shared_ptr<Entry> &e) { return e.get() == raw; });
    });
}

std::string Registry::render() const {
    const std::lock_guard lock(mutex_);
    std::string out;
    for (const auto &entry : entries_) {
        const Entry &e = *entry;
        out.append("# HELP ").append(e.name).append(" ").append(escape_help(e.help)) += '\n';
        out.append("# TYPE ").append(e.name).append(" ").append(e.type) += '\n';
        if (e.counters) {
            e.counters->each([&](const LabelValues &values, const Counter &c) {
                out.append(e.name)
                    .append(label_text(e.label_names, values))
                    .append(" ")
                    .append(std::to_string(c.value())) += '\n';
            });
        } else if (e.histograms) {
            e.histograms->each([&](const LabelValues &values, const Histogram &h) {
                const Histogram::Snapshot s = h.snapshot();
                for (std::size_t i = 0; i < s.cumulative.size(); ++i) {
                    const std::string le = i < e.bounds->size() ? format_value((*e.bounds)[i]) : "+Inf";
                    out.append(e.name)
                        .append("_bucket")
                        .append(label_text(e.label_names, values, "le", le))
                        .append(" ")
                        .append(std::to_string(s.cumulative[i])) += '\n';
                }
                const std::string labels = label_text(e.label_names, values);
                out.append(e.name).append("_sum").append(labels).append(" ").append(format_value(s.sum)) += '\n';
                out.append(e.name).append("_count").append(labels).append(" ").append(std::to_string(s.count)) += '\n';
            });
        } else if (e.collect) {
            for (const Sample &sample : e.collect()) {
                if (sample.labels.size() != e.label_names.size()) continue;  // a collector's slip: not a broken page
                out.append(e.name)
                    .append(label_text(e.label_names, sample.labels))
                    .append(" ")
                    .append(format_value(sample.value)) += '\n';
            }
        }
    }
    return out;
}

}  // namespace liveupdate::host::metrics
