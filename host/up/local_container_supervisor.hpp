// Starts and supervises the processes of LocalContainers and keeps their
// status shaped like Docker's: containerID, containerName, containerState
// {status running/exited, running, startedAt, finishedAt, exitCode, error}.
//
// As with Docker, a restart (what a live update asks for) keeps the
// container's ID and changes its startedAt; a container started anew (first
// apply, or its spec changed) gets a new ID. A new ID makes the LiveUpdate
// treat it as a new container (initial sync, resync), which after every
// restart would loop.
//
// Each process runs in its own process group (a terminal's Ctrl-C reaches
// the host, which then stops the containers itself), dies with the daemon
// even when the daemon is killed (ChildSpawner), and is reaped by a monitor
// thread waiting on a pidfd.
#pragma once

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <sys/types.h>

#include <boost/json.hpp>

#include "common/mutex.hpp"
#include "host/up/child_spawner.hpp"
#include "host/up/local_container_spec.hpp"

namespace liveupdate::host::up {

class LocalContainerSupervisor {
public:
    // Called (on any thread, with no lock held) whenever a container's status changes.
    using StatusFn = std::function<void(const std::string &name, const boost::json::object &status)>;
    // The processes' output, one line at a time.
    using OutputFn = std::function<void(const std::string &name, std::string_view line)>;

    LocalContainerSupervisor(StatusFn on_status, OutputFn on_output);
    LocalContainerSupervisor(const LocalContainerSupervisor &) = delete;
    LocalContainerSupervisor &operator=(const LocalContainerSupervisor &) = delete;
    ~LocalContainerSupervisor();  // stops every process

    // Starts the container, or restarts it when its spec changed.
    void apply(const std::string &name, const LocalProcessSpec &spec);
    void remove(const std::string &name);
    // Restarts the process of the container with this name (or ID), keeping its ID. Throws
    // std::runtime_error saying why when there is no such container.
    void restart(const std::string &name_or_id);
    std::optional<boost::json::object> status(const std::string &name) const;
    std::optional<LocalProcessSpec> spec(const std::string &name) const;
    // Stops every process (SIGTERM to its group, SIGKILL after a grace period).
    void stop_all();

private:
    struct Container;
    void start_locked(Container &c, bool same_container) LU_REQUIRES(mutex_);
    void monitor(Container &c, pid_t pid, int pidfd, int output_fd, int generation);
    void stop(const std::shared_ptr<Container> &c);
    void notify(const std::string &name);

    StatusFn on_status_;
    OutputFn on_output_;
    std::unique_ptr<ChildSpawner> spawner_;
    mutable common::Mutex mutex_;
    std::map<std::string, std::shared_ptr<Container>> containers_ LU_GUARDED_BY(mutex_);
};

}  // namespace liveupdate::host::up
