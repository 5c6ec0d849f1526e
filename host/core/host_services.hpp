// What the host offers updater plugins (lu_updater_host): a log callback for
// lines not tied to an update (they go to the host log; an update's lines come
// through its request, see Executor) and extensions by versioned id.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/mutex.hpp"
#include "host/core/log.hpp"
#include "liveupdate/ext/local_containers.h"
#include "liveupdate/updater.hpp"
#include "liveupdate/updater_plugin.h"

namespace liveupdate::host {

// An lu_log_fn whose ctx is a const LogSinkFn *: an update's or a digest's
// lines to their LiveUpdate (thread-safe as the sink is).
void log_to_sink(void *ctx, int32_t level, lu_str line);

// Implemented by whoever supervises LocalContainer processes (lu-host up).
class LocalContainerService {
public:
    virtual ~LocalContainerService() = default;
    // Restarts the container's process; throws std::exception saying why on failure.
    virtual void restart(const updater::ContainerRef &container) = 0;
    // The container's process settings, which commands run in it take too;
    // none for a container this supervisor does not know.
    virtual std::optional<updater::ContainerProcess> process(const updater::ContainerRef &) { return std::nullopt; }
};

class UpdaterHostServices {
public:
    UpdaterHostServices();
    UpdaterHostServices(const UpdaterHostServices &) = delete;
    UpdaterHostServices &operator=(const UpdaterHostServices &) = delete;

    // Offers LU_HOST_LOCAL_CONTAINERS_ID backed by this implementation.
    void set_local_containers(std::shared_ptr<LocalContainerService> local_containers);
    // Offers any other extension table (must outlive every updater).
    void add_extension(std::string id, const void *table);

    // The C view handed to updater create(); valid while this object lives.
    const lu_updater_host *c_host() const { return &host_; }

private:
    static const void *get_extension(void *ctx, const char *id);
    static int32_t restart_local(void *ctx, const lu_container_ref *container, char *error, size_t error_capacity);
    static int32_t process_local(void *ctx, const lu_container_ref *container,
                                 void (*each_env)(void *each_ctx, const char *name, const char *value), void *each_ctx,
                                 char *working_dir, size_t working_dir_capacity);
    std::shared_ptr<LocalContainerService> local_containers() const;

    lu_updater_host host_{};
    lu_host_local_containers local_table_{};
    mutable common::Mutex mutex_;
    std::shared_ptr<LocalContainerService> local_containers_ LU_GUARDED_BY(mutex_);
    std::map<std::string, const void *, std::less<>> extensions_ LU_GUARDED_BY(mutex_);
};

}  // namespace liveupdate::host
