// A test updater whose outcome depends on the container: config
// {"<container id>": "run" | "infra" | "paused" | "unpreparable", "barrier": N,
// "threads": true}. It logs two lines per update; with a barrier, each update
// waits until N are in flight (all at once: they run concurrently; the next N
// wait for each other again) and fails when they never are; with threads, a
// third line names the thread it ran on. prepare() says "prepared <id>" in the
// host's log, or fails.
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>

#include "liveupdate/updater.hpp"

namespace {

namespace lu = liveupdate::updater;

class ByContainerUpdater {
public:
    static constexpr const char *name = "by-container";
    static constexpr const char *version = "0.0.1";

    ByContainerUpdater(std::string_view config, const lu::Host &host) : config_(config), host_(host) {
        const std::size_t at = config_.find("\"barrier\":");
        if (at != std::string::npos) barrier_ = std::stoi(config_.substr(at + 10));
        threads_ = config_.find("\"threads\": true") != std::string::npos;
    }

    lu::Outcome update(const lu::Request &request) {
        const std::string &id = request.container.id;
        request.log(LU_LOG_INFO, "[" + id + "] copying " + std::to_string(request.copies.size()) + " path(s)");
        if (!wait_for_all())
            return lu::Outcome::infra_failure("the barrier of " + std::to_string(barrier_) + " was never reached");
        request.log(LU_LOG_INFO, "[" + id + "] ran " + std::to_string(request.runs.size()) + " command(s)");
        if (threads_) request.log(LU_LOG_INFO, "[" + id + "] on thread " + std::to_string(::syscall(SYS_gettid)));
        if (has(id, "run")) return lu::Outcome::run_failure(2, "command \"make\" failed with exit code 2");
        if (has(id, "infra")) return lu::Outcome::infra_failure("the container's filesystem is read-only");
        if (has(id, "paused")) return lu::Outcome::container_not_running("container " + id + " is paused");
        return lu::Outcome::ok();
    }

    void prepare(const lu::ContainerRef &container) {
        if (has(container.id, "unpreparable")) throw std::runtime_error("container " + container.id + " is read-only");
        host_.log(LU_LOG_INFO, "prepared " + container.id);
    }

private:
    bool has(const std::string &id, const char *what) const {
        return config_.find("\"" + id + "\": \"" + what + "\"") != std::string::npos;
    }

    // The bound only keeps a serialized host from hanging the test.
    bool wait_for_all() {
        if (barrier_ <= 0) return true;
        std::unique_lock lock(mutex_);
        const int released_at = (arrived_ / barrier_ + 1) * barrier_;
        ++arrived_;
        changed_.notify_all();
        return changed_.wait_for(lock, std::chrono::seconds(60), [&] { return arrived_ >= released_at; });
    }

    std::string config_;
    lu::Host host_;
    int barrier_ = 0;
    bool threads_ = false;
    std::mutex mutex_;
    std::condition_variable changed_;
    int arrived_ = 0;
};

}  // namespace

extern "C" LU_EXPORT const lu_updater_api *lu_updater_plugin_entry(uint32_t abi_version,
                                                                   const lu_plugin_info **out_info) {
    return lu::entry<ByContainerUpdater>(abi_version, out_info);
}
