// The rebuild watch action: rebuilds and recreates one service with the
// Compose command line (`up -d --build --no-deps SERVICE`), one job at a time
// on its own thread, every output line reported. Discovery then sees the new
// container and the LiveUpdate syncs it.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "common/mutex.hpp"
#include "host/compose/compose_cli.hpp"

namespace liveupdate::host::compose {

struct RebuildJob {
    std::string project;
    std::vector<std::string> files;
    std::string directory;
    std::string service;
    bool operator==(const RebuildJob &) const = default;
};

class ComposeRebuilder {
public:
    // Called on the rebuilder's thread: a line about service, error set for failures.
    using LineFn = std::function<void(const std::string &service, std::string_view line, bool error)>;

    explicit ComposeRebuilder(LineFn on_line);
    ~ComposeRebuilder();
    ComposeRebuilder(const ComposeRebuilder &) = delete;
    ComposeRebuilder &operator=(const ComposeRebuilder &) = delete;

    // Queues the job unless the same one is already waiting.
    void request(RebuildJob job);

private:
    void run();
    void rebuild(const RebuildJob &job);

    LineFn on_line_;
    std::optional<ComposeCli> cli_;  // cli_ and cli_looked_up_: the rebuilder's thread only
    bool cli_looked_up_ = false;
    common::Mutex mutex_;
    std::condition_variable wake_;
    std::deque<RebuildJob> queue_ LU_GUARDED_BY(mutex_);
    bool stopping_ LU_GUARDED_BY(mutex_) = false;
    std::thread thread_;
};

}  // namespace liveupdate::host::compose
