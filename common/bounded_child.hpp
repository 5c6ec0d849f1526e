// Work that may never end, or may eat all memory, run where it can be
// stopped: yaml-cpp 0.7 spins for ever on some tiny inputs (the 3 bytes
// `&",`), and a thread cannot be killed. The work runs in a forked child
// under a deadline and a memory limit; its caller learns only how it ended
// and redoes the work itself when it finished (deterministic work ends the
// same way twice).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>

namespace liveupdate::common {

struct ChildLimits {
    std::chrono::milliseconds deadline;
    // Data memory the child may add to what this process had at the fork
    // (RLIMIT_DATA). Not applied under a sanitizer, whose shadow memory it counts.
    std::size_t memory_bytes;
};

enum class ChildEnd {
    finished,       // returned or threw (anything but std::bad_alloc)
    timed_out,      // killed at the deadline
    out_of_memory,  // threw std::bad_alloc under the memory limit
    crashed,        // ended by a signal of its own (`signal`)
    abandoned,      // killed because `abandon` said so
};

struct ChildOutcome {
    ChildEnd end = ChildEnd::finished;
    int signal = 0;  // crashed: the signal
};

// Runs `work` in a forked child and waits for it; the child is killed at the
// deadline, once `abandon` (checked every 50 ms, may be null) returns true,
// or if this thread ends first (PR_SET_PDEATHSIG). In the child only this
// thread exists: `work` must not wait on locks other threads may hold.
// Throws std::system_error when the child cannot be started or watched.
ChildOutcome run_in_bounded_child(const std::function<void()> &work, const ChildLimits &limits,
                                  bool (*abandon)() noexcept);

// Whether run_in_bounded_child applies memory_bytes in this build.
bool child_memory_limit_applies() noexcept;

}  // namespace liveupdate::common
