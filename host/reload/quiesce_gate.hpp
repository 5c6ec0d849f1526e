// The gate reconcile workers pass through, so that hot reload can quiesce
// them: closing the gate holds new passes at once and waits for the passes
// in flight to leave. Closing wins over entering (a steady stream of
// reconciles cannot starve a reload), unlike std::shared_mutex on glibc.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <utility>

#include "common/mutex.hpp"

namespace liveupdate::host::reload {

class QuiesceGate {
public:
    using Clock = std::chrono::steady_clock;

    // One worker's way through the gate; leaving happens on destruction.
    class Pass {
    public:
        Pass(Pass &&other) noexcept : gate_(std::exchange(other.gate_, nullptr)) {}
        Pass(const Pass &) = delete;
        Pass &operator=(const Pass &) = delete;
        Pass &operator=(Pass &&) = delete;
        ~Pass();

    private:
        friend class QuiesceGate;
        explicit Pass(QuiesceGate *gate) : gate_(gate) {}
        QuiesceGate *gate_;
    };

    // The gate held closed; it reopens on destruction.
    class Hold {
    public:
        Hold(Hold &&other) noexcept
            : gate_(std::exchange(other.gate_, nullptr)),
              closing_at_(other.closing_at_),
              closed_at_(other.closed_at_) {}
        Hold(const Hold &) = delete;
        Hold &operator=(const Hold &) = delete;
        Hold &operator=(Hold &&) = delete;
        ~Hold();

        // When closing began (new passes held from then on) and when the last pass left.
        Clock::time_point closing_at() const { return closing_at_; }
        Clock::time_point closed_at() const { return closed_at_; }

    private:
        friend class QuiesceGate;
        Hold(QuiesceGate *gate, Clock::time_point closing_at, Clock::time_point closed_at)
            : gate_(gate), closing_at_(closing_at), closed_at_(closed_at) {}
        QuiesceGate *gate_;
        Clock::time_point closing_at_;
        Clock::time_point closed_at_;
    };

    QuiesceGate() = default;
    QuiesceGate(const QuiesceGate &) = delete;
    QuiesceGate &operator=(const QuiesceGate &) = delete;

    // Waits while the gate is closed or closing. Not re-entrant on one thread
    // while a close is pending (the close would wait for this thread's first pass).
    Pass enter();
    // Holds new passes, then waits until none is in flight. Closes queue up.
    Hold close();

    std::size_t in_flight() const;
    // close() calls closing or holding, and enter() calls held by them: what
    // a test waits for to know a thread has reached the gate.
    std::size_t closers() const;
    std::size_t waiting() const;
    // The longest time one enter() waited because the gate was closed or closing.
    Clock::duration longest_wait() const;

private:
    void leave();
    void reopen();

    mutable common::Mutex mutex_;
    std::condition_variable changed_;
    std::size_t in_flight_ LU_GUARDED_BY(mutex_) = 0;
    std::size_t closers_ LU_GUARDED_BY(mutex_) = 0;  // closing or holding
    std::size_t waiting_ LU_GUARDED_BY(mutex_) = 0;  // in enter(), held
    bool held_ LU_GUARDED_BY(mutex_) = false;
    Clock::duration longest_wait_ LU_GUARDED_BY(mutex_){};
};

}  // namespace liveupdate::host::reload
