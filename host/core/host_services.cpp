#include "core/host_services.hpp"

#include <cstring>
#include <exception>

#include "liveupdate/liveupdate.hpp"

namespace liveupdate::host {

namespace {

thread_local const LogSinkFn *t_update_sink = nullptr;

void log_from_updater(void *, int32_t level, lu_str line) {
    const std::string_view text = abi::to_view(line);
    if (t_update_sink != nullptr) {
        (*t_update_sink)(from_abi_level(level), text);
    } else {
        log::write(from_abi_level(level), "updater: " + std::string(text));
    }
}

void write_reason(char *error, size_t capacity, std::string_view reason) {
    if (error == nullptr || capacity == 0) return;
    const size_t n = std::min(reason.size(), capacity - 1);
    std::memcpy(error, reason.data(), n);
    error[n] = '\0';
}

}  // namespace

UpdaterHostServices::UpdaterHostServices() {
    host_.struct_size = sizeof(lu_updater_host);
    host_.ctx = this;
    host_.log = log_from_updater;
    host_.get_extension = &UpdaterHostServices::get_extension;
    local_table_.struct_size = sizeof(lu_host_local_containers);
    local_table_.restart = &UpdaterHostServices::restart_local;
}

void UpdaterHostServices::set_local_containers(std::shared_ptr<LocalContainers> local_containers) {
    std::lock_guard lock(mutex_);
    local_containers_ = std::move(local_containers);
}

void UpdaterHostServices::add_extension(std::string id, const void *table) {
    std::lock_guard lock(mutex_);
    extensions_[std::move(id)] = table;
}

const void *UpdaterHostServices::get_extension(void *ctx, const char *id) {
    if (ctx == nullptr || id == nullptr) return nullptr;
    auto *self = static_cast<UpdaterHostServices *>(ctx);
    std::lock_guard lock(self->mutex_);
    if (std::strcmp(id, LU_HOST_LOCAL_CONTAINERS_ID) == 0) {
        return self->local_containers_ ? &self->local_table_ : nullptr;
    }
    auto found = self->extensions_.find(std::string_view(id));
    return found == self->extensions_.end() ? nullptr : found->second;
}

int32_t UpdaterHostServices::restart_local(void *ctx, const lu_container_ref *container, char *error,
                                           size_t error_capacity) {
    auto *self = static_cast<UpdaterHostServices *>(ctx);
    std::shared_ptr<LocalContainers> local;
    {
        std::lock_guard lock(self->mutex_);
        local = self->local_containers_;
    }
    if (!local || container == nullptr) {
        write_reason(error, error_capacity, "the host supervises no local containers");
        return 1;
    }
    try {
        local->restart(*container);
        return 0;
    } catch (const std::exception &e) {
        write_reason(error, error_capacity, e.what());
        return 1;
    }
}

UpdateLogScope::UpdateLogScope(const LogSinkFn &sink) : previous_(t_update_sink) { t_update_sink = &sink; }

UpdateLogScope::~UpdateLogScope() { t_update_sink = previous_; }

}  // namespace liveupdate::host
