// A std::mutex and a std::shared_mutex the thread-safety analysis knows
// (libstdc++'s have no capability attributes), and their scoped locks. Members it guards say so with
// LU_GUARDED_BY (common/thread_annotations.hpp); docs/threading.md.
#pragma once

#include <mutex>
#include <shared_mutex>
#include <utility>

#include "common/thread_annotations.hpp"

namespace liveupdate::common {

class LU_CAPABILITY("mutex") Mutex {
public:
    Mutex() = default;
    Mutex(const Mutex &) = delete;
    Mutex &operator=(const Mutex &) = delete;

    void lock() LU_ACQUIRE() { mutex_.lock(); }
    void unlock() LU_RELEASE() { mutex_.unlock(); }
    bool try_lock() LU_TRY_ACQUIRE(true) { return mutex_.try_lock(); }

private:
    friend class MutexLock;
    std::mutex mutex_;
};

// Holds a Mutex for its scope, as std::unique_lock does (which it wraps, so
// that condition variables wait on it).
class LU_SCOPED_CAPABILITY MutexLock {
public:
    explicit MutexLock(Mutex &mutex) LU_ACQUIRE(mutex) : lock_(mutex.mutex_) {}
    ~MutexLock() LU_RELEASE() {}
    MutexLock(const MutexLock &) = delete;
    MutexLock &operator=(const MutexLock &) = delete;

    // Lets the mutex go for a while (e.g. around a callback) and takes it again.
    void unlock() LU_RELEASE() { lock_.unlock(); }
    void lock() LU_ACQUIRE() { lock_.lock(); }

    // cv.wait, wait_for, wait_until(lock, rest...): the mutex is let go while
    // waiting and held again on return. A predicate that reads guarded
    // members says so: [&]() LU_REQUIRES(mutex_) { ... }.
    template <class ConditionVariable, class... Rest>
    decltype(auto) wait(ConditionVariable &cv, Rest &&...rest) {
        return cv.wait(lock_, std::forward<Rest>(rest)...);
    }
    template <class ConditionVariable, class... Rest>
    decltype(auto) wait_for(ConditionVariable &cv, Rest &&...rest) {
        return cv.wait_for(lock_, std::forward<Rest>(rest)...);
    }
    template <class ConditionVariable, class... Rest>
    decltype(auto) wait_until(ConditionVariable &cv, Rest &&...rest) {
        return cv.wait_until(lock_, std::forward<Rest>(rest)...);
    }

private:
    std::unique_lock<std::mutex> lock_;
};

// Many readers or one writer. Readers say LU_REQUIRES_SHARED, writers LU_REQUIRES.
class LU_CAPABILITY("shared mutex") SharedMutex {
public:
    SharedMutex() = default;
    SharedMutex(const SharedMutex &) = delete;
    SharedMutex &operator=(const SharedMutex &) = delete;

    void lock() LU_ACQUIRE() { mutex_.lock(); }
    void unlock() LU_RELEASE() { mutex_.unlock(); }
    void lock_shared() LU_ACQUIRE_SHARED() { mutex_.lock_shared(); }
    void unlock_shared() LU_RELEASE_SHARED() { mutex_.unlock_shared(); }

private:
    friend class ReaderLock;
    friend class WriterLock;
    std::shared_mutex mutex_;
};

// Holds a SharedMutex shared for its scope (std::shared_lock).
class LU_SCOPED_CAPABILITY ReaderLock {
public:
    explicit ReaderLock(SharedMutex &mutex) LU_ACQUIRE_SHARED(mutex) : lock_(mutex.mutex_) {}
    ~ReaderLock() LU_RELEASE() {}
    ReaderLock(const ReaderLock &) = delete;
    ReaderLock &operator=(const ReaderLock &) = delete;

private:
    std::shared_lock<std::shared_mutex> lock_;
};

// Holds a SharedMutex exclusively for its scope (std::unique_lock).
class LU_SCOPED_CAPABILITY WriterLock {
public:
    explicit WriterLock(SharedMutex &mutex) LU_ACQUIRE(mutex) : lock_(mutex.mutex_) {}
    ~WriterLock() LU_RELEASE() {}
    WriterLock(const WriterLock &) = delete;
    WriterLock &operator=(const WriterLock &) = delete;

private:
    std::unique_lock<std::shared_mutex> lock_;
};

}  // namespace liveupdate::common
