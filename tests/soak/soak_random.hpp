// The soak's one source of randomness: a seeded SplitMix64, so that a seed
// names the same sequence of choices on every machine and standard library
// (std's distributions are implementation-defined).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lu_soak {

class Random {
public:
    explicit Random(std::uint64_t seed) : state_(seed) {}

    std::uint64_t next() {
        std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    // In [0, n); n > 0.
    std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
    // In [low, high].
    std::size_t between(std::size_t low, std::size_t high) { return low + below(high - low + 1); }
    // True with probability percent/100.
    bool percent(unsigned percent) { return below(100) < percent; }
    template <class T>
    const T &pick(const std::vector<T> &items) {
        return items[below(items.size())];
    }
    // Printable bytes, newlines included, so a diff of two contents reads.
    std::string text(std::size_t size) {
        static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789 \n";
        std::string out(size, ' ');
        for (auto &c : out) c = alphabet[below(sizeof alphabet - 1)];
        return out;
    }

private:
    std::uint64_t state_;
};

}  // namespace lu_soak
