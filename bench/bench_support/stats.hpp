// What every benchmark measures with: a steady clock, milliseconds since a
// start, and the median and percentiles of its samples.
// Header-only: each bench is one translation unit.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <vector>

namespace lu_bench {

using Clock = std::chrono::steady_clock;

inline double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The sample at rank p (0..1) of the sorted samples, nearest rank; a value-initialized T for none.
template <class T>
T percentile(std::vector<T> samples, double p) {
    if (samples.empty()) return T{};
    std::sort(samples.begin(), samples.end());
    const auto rank = static_cast<std::size_t>(std::lround(p * static_cast<double>(samples.size() - 1)));
    return samples[std::min(rank, samples.size() - 1)];
}

template <class T>
T median(std::vector<T> samples) {
    return percentile(std::move(samples), 0.5);
}

}  // namespace lu_bench
