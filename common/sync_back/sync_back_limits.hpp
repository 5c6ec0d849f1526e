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
    std::uint32_t max_files_per_second = 2000;   // past it, the rest wait for the next second's budget
};

// A name relative to a sync rule's containerPath, as a watcher reports it:
// refused when empty, absolute, with an empty, "." or ".." segment, a NUL,
// bytes that are not UTF-8, or past the length limits.
std::string name_refusal(std::string_view relative_name, const Limits &limits);

// A file of `bytes` bytes: refused past limits.max_file_bytes.
std::string size_refusal(std::uint64_t bytes, const Limits &limits);

// How many files may come back now: a budget of max_files_per_second, renewed
// at each whole second of the caller's clock (time comes in).
class RateBudget {
public:
    explicit RateBudget(std::uint32_t per_second) : per_second_(per_second) {}
    // Takes one file from the budget of the second holding now_ms; false when it is spent.
    bool take(std::int64_t now_ms);

private:
    std::uint32_t per_second_;
    std::int64_t second_ = -1;
    std::uint32_t taken_ = 0;
};

}  // namespace liveupdate::sync_back
