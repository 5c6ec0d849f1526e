// The bookkeeping a discovery (Docker Compose, Kubernetes) keeps between its
// source and the daemon: which objects it watches with which spec, which of
// them need their status computed again, the last status reported for each,
// and the last warning given, so that an outage is said once. Thread-safe;
// the discovery's own state may share the board's lock (lock()).
// Header-only: a template over the watch's spec and what the discovery keeps
// beside it (State, reset with the spec).
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>

#include <boost/json.hpp>

#include "common/mutex.hpp"

namespace liveupdate::host {

template <class Spec, class State = std::monostate>
class StatusBoard {
public:
    struct Watched {
        Spec spec;
        State state{};
        std::optional<boost::json::object> reported;
    };

    // Watches the object with that spec and marks it dirty; a new spec
    // forgets the status reported for the old one. on_new_spec runs under the
    // lock when the spec changed (or the object is new).
    void watch(const std::string &name, Spec spec, const std::function<void(Watched &)> &on_new_spec = nullptr) {
        {
            common::MutexLock guard(mutex_);
            auto [it, added] = watched_.try_emplace(name);
            if (added || it->second.spec != spec) {
                it->second.reported.reset();
                it->second.spec = std::move(spec);
                if (on_new_spec) on_new_spec(it->second);
            }
            dirty_.insert(name);
        }
        wake_.notify_all();
    }

    void unwatch(const std::string &name) {
        common::MutexLock guard(mutex_);
        watched_.erase(name);
        dirty_.erase(name);
    }

    std::optional<boost::json::object> status(const std::string &name) const {
        common::MutexLock guard(mutex_);
        const auto found = watched_.find(name);
        if (found == watched_.end()) return std::nullopt;
        return found->second.reported;
    }

    // Marks dirty every watched object whose spec satisfies the predicate.
    void mark_dirty_if(const std::function<bool(const Spec &)> &affected) {
        bool any = false;
        {
            common::MutexLock guard(mutex_);
            for (const auto &[name, w] : watched_)
                if (!affected || affected(w.spec)) any = dirty_.insert(name).second || any;
        }
        if (any) wake_.notify_all();
    }

    // Computed again later (after a failure): no wake-up now.
    void mark_dirty_quietly(const std::string &name) {
        common::MutexLock guard(mutex_);
        dirty_.insert(name);
    }

    // Blocks until an object is dirty, then takes it off the dirty set and
    // returns its name and watch, or nullopt once stopping. ready runs under
    // the lock; false leaves the object out (to be marked dirty again later).
    std::optional<std::pair<std::string, Watched>> next_dirty(
        const std::function<bool(const std::string &, const Watched &)> &ready = nullptr) {
        common::MutexLock guard(mutex_);
        for (;;) {
            guard.wait(wake_, [this]() LU_REQUIRES(mutex_) { return stopping_ || !dirty_.empty(); });
            if (stopping_) return std::nullopt;
            const std::string name = *dirty_.begin();
            dirty_.erase(dirty_.begin());
            const auto found = watched_.find(name);
            if (found == watched_.end() || (ready && !ready(name, found->second))) continue;
            return std::make_pair(name, found->second);
        }
    }

    // Records the status computed for the object under spec: true when it is
    // news to report (the object is still watched with that spec, and the
    // status differs from the last one reported).
    bool record(const std::string &name, const Spec &spec, const boost::json::object &status) {
        common::MutexLock guard(mutex_);
        const auto found = watched_.find(name);
        if (found == watched_.end() || found->second.spec != spec) return false;
        if (found->second.reported && *found->second.reported == status) return false;
        found->second.reported = status;
        return true;
    }

    // True when the warning differs from the last one given: say it.
    bool first_time(const std::string &warning) {
        common::MutexLock guard(mutex_);
        if (warning == last_warning_) return false;
        last_warning_ = warning;
        return true;
    }
    // The source answers again: the next outage is news.
    void source_answers() {
        common::MutexLock guard(mutex_);
        last_warning_.clear();
    }

    // Wakes every wait for good; under_lock runs with the stop, under the lock.
    void stop(const std::function<void()> &under_lock = nullptr) {
        {
            common::MutexLock guard(mutex_);
            stopping_ = true;
            if (under_lock) under_lock();
        }
        wake_.notify_all();
    }
    // Runs f under the lock unless stopping: false once stopping.
    bool unless_stopping(const std::function<void()> &f) {
        common::MutexLock guard(mutex_);
        if (stopping_) return false;
        f();
        return true;
    }
    // Sleeps for the delay, or less when stopped: false once stopping.
    bool sleep_for(std::chrono::milliseconds delay) {
        common::MutexLock guard(mutex_);
        return !guard.wait_for(wake_, delay, [this]() LU_REQUIRES(mutex_) { return stopping_; });
    }

    // The board's lock, for the discovery's own state.
    common::Mutex &lock() const LU_RETURN_CAPABILITY(mutex_) { return mutex_; }

private:
    mutable common::Mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ LU_GUARDED_BY(mutex_) = false;
    std::map<std::string, Watched> watched_ LU_GUARDED_BY(mutex_);
    std::set<std::string> dirty_ LU_GUARDED_BY(mutex_);
    std::string last_warning_ LU_GUARDED_BY(mutex_);
};

}  // namespace liveupdate::host
