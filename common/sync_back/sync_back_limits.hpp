// What may come back from a container: a container is trusted less than the
// developer's disk, so each name, size and burst is checked before anything
// is written locally (docs/sync-back.md). Pure checks; "" means accepted, any
// other text is the reason, ready for a message that names the path.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace liveupdate::sync_back {

struct Limits {
    std::uint64_t max_file_bytes = 64ull << 20;  // a file over it is reported, not written
    std::size_t max_name_bytes = 4095;           // a relative name, as PATH_MAX less its NUL
    std::size_t max_segment_bytes = 255;         // one segment, as NAME_MAX
    std::uint32_t max_files_per_second = 2000;   // the steady rate; past it, the rest wait
    std::uint32_t max_burst_files = 20000;       // at once after a quiet while (an `npm install`)
};

// A name relative to a sync rule's containerPath, as a watcher reports it:
// refused when empty, absolute, with an empty, "." or ".." segment, a NUL,
// bytes that are not UTF-8, or past the length limits.
std::string name_refusal(std::string_view relative_name, const Limits &limits);

// A file of `bytes` bytes: refused past limits.max_file_bytes.
std::string size_refusal(std::uint64_t bytes, const Limits &limits);

// How many files may come back now: a bucket of `burst` files, refilled at
// `per_second` (time comes in, in ms). A generator's burst passes whole; a
// container that never stops is held to the steady rate.
class RateBudget {
public:
    RateBudget(std::uint32_t per_second, std::uint32_t burst);
    // Takes one file from the bucket at now_ms; false when it is empty.
    bool take(std::int64_t now_ms);

private:
    std::uint32_t per_second_;
    std::int64_t capacity_milli_;  // thousandths of a file: the refill of one ms is exact
    std::int64_t level_milli_;
    std::int64_t last_ms_ = 0;
    bool started_ = false;
};

}  // namespace liveupdate::sync_back
