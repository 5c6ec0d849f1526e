#include "host/core/host_services.hpp"

#include <cstring>
#include <exception>

#include "common/mutex.hpp"
#include "liveupdate/liveupdate.hpp"

namespace liveupdate::host {

namespace {

void log_from_updater(void *, int32_t level, lu_str line) {
    log::write(common::from_abi(level), "updater: " + std::string(abi::to_view(line)));
}

// Into a caller's buffer, cut to fit and NUL-terminated.
void write_c_string(char *out, size_t capacity, std::string_view text) {
    if (out == nullptr || capacity == 0) return;
    const size_t n = std::min(text.size(), capacity - 1);
    std::memcpy(out, text.data(), n);
    out[n] = '\0';
}

}  // namespace

void log_to_sink(void *ctx, int32_t level, lu_str line) {
    (*static_cast<const LogSinkFn *>(ctx))(common::from_abi(level), abi::to_view(line));
}

UpdaterHostServices::UpdaterHostServices() {
    host_.struct_size = sizeof(lu_updater_host);
    host_.ctx = this;
    host_.log = log_from_updater;
    host_.get_extension = &UpdaterHostServices::get_extension;
    local_table_.struct_size = sizeof(lu_host_local_containers);
    local_table_.restart = &UpdaterHostServices::restart_local;
    local_table_.process = &UpdaterHostServices::process_local;
}

void UpdaterHostServices::set_local_containers(std::shared_ptr<LocalContainerService> local_containers) {
    common::MutexLock lock(mutex_);
    local_containers_ = std::move(local_containers);
}

void UpdaterHostServices::add_extension(std::string id, const void *table) {
    common::MutexLock lock(mutex_);
    extensions_[std::move(id)] = table;
}

const void *UpdaterHostServices::get_extension(void *ctx, const char *id) {
    if (ctx == nullptr || id == nullptr) return nullptr;
    auto *self = static_cast<UpdaterHostServices *>(ctx);
    common::MutexLock lock(self->mutex_);
    if (std::strcmp(id, LU_HOST_LOCAL_CONTAINERS_ID) == 0) {
        return self->local_containers_ ? &self->local_table_ : nullptr;
    }
    auto found = self->extensions_.find(std::string_view(id));
    return found == self->extensions_.end() ? nullptr : found->second;
}

std::shared_ptr<LocalContainerService> UpdaterHostServices::local_containers() const {
    common::MutexLock lock(mutex_);
    return local_containers_;
}

int32_t UpdaterHostServices::restart_local(void *ctx, const lu_container_ref *container, char *error,
                                           size_t error_capacity) {
    const std::shared_ptr<LocalContainerService> local = static_cast<UpdaterHostServices *>(ctx)->local_containers();
    if (!local || container == nullptr) {
        write_c_string(error, error_capacity, "the host supervises no local containers");
        return 1;
    }
    try {
        local->restart(updater::to_container_ref(*container));
        return 0;
    } catch (const std::exception &e) {
        write_c_string(error, error_capacity, e.what());
        return 1;
    }
}

int32_t UpdaterHostServices::process_local(void *ctx, const lu_container_ref *container,
                                           void (*each_env)(void *each_ctx, const char *name, const char *value),
                                           void *each_ctx, char *working_dir, size_t working_dir_capacity) {
    const std::shared_ptr<LocalContainerService> local = static_cast<UpdaterHostServices *>(ctx)->local_containers();
    if (!local || container == nullptr || each_env == nullptr) return 1;
    try {
        const std::optional<updater::ContainerProcess> process = local->process(updater::to_container_ref(*container));
        if (!process || process->working_dir.size() >= working_dir_capacity) return 1;
        for (const auto &[name, value] : process->env) each_env(each_ctx, name.c_str(), value.c_str());
        write_c_string(working_dir, working_dir_capacity, process->working_dir);
        return 0;
    } catch (const std::exception &e) {
        log::warn(std::string("local container process settings: ") + e.what());
        return 1;
    }
}

}  // namespace liveupdate::host
