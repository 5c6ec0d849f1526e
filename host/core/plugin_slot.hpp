// The liveupdate plugin instance in service, swappable by hot reload. Calls run under a shared
// lock; reload takes it exclusively, so it waits for in-flight reconciles
// (quiesce) and none starts until the swap is over.
#pragma once

#include <filesystem>
#include <memory>

#include "common/mutex.hpp"
#include "host/core/plugin_instance.hpp"

namespace liveupdate::host {

class PluginSlot {
public:
    // Loads the plugin (from a private copy when options say so) and creates the
    // engine; every engine of the slot is asked for steps up to max_step_version.
    PluginSlot(std::filesystem::path plugin_file, common::MicroTime start_time, const PluginLoadOptions &options = {},
               int max_step_version = LU_STEP_VERSION);

    template <typename Fn>
    decltype(auto) with_instance(Fn &&fn) const {
        common::ReaderLock lock(mutex_);
        return fn(*instance_);
    }

    // Loads plugin_file again from a private copy, creates an engine with the same
    // start time and restores the current engine's snapshot into it, then swaps.
    // On any failure (e.g. an ABI the host does not speak) the current engine
    // stays in service and the error is thrown.
    void reload();
    void reload(const std::filesystem::path &plugin_file);

    // Hot reload in two halves: an engine of the new plugin, created while
    // service goes on; then, with reconciles quiesced, the current state
    // restored into it and the swap. Returns the engine replaced, for the
    // caller to destroy once service resumed.
    [[nodiscard]] std::unique_ptr<PluginInstance> prepare(std::shared_ptr<const LiveUpdatePlugin> plugin) const;
    [[nodiscard]] std::unique_ptr<PluginInstance> swap_in(std::unique_ptr<PluginInstance> fresh);

    std::filesystem::path plugin_file() const;
    PluginIdentity identity() const;

private:
    std::filesystem::path plugin_file_ LU_GUARDED_BY(mutex_);
    const common::MicroTime start_time_;
    const int max_step_version_;
    mutable common::SharedMutex mutex_;
    std::unique_ptr<PluginInstance> instance_ LU_GUARDED_BY(mutex_);
};

}  // namespace liveupdate::host
