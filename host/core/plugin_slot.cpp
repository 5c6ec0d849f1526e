#include "host/core/plugin_slot.hpp"

#include <mutex>
#include <utility>

#include "common/mutex.hpp"
#include "host/core/log.hpp"

namespace liveupdate::host {

PluginSlot::PluginSlot(std::filesystem::path plugin_file, common::MicroTime start_time,
                       const PluginLoadOptions &options, int max_step_version)
    : plugin_file_(std::move(plugin_file)),
      start_time_(start_time),
      max_step_version_(max_step_version),
      instance_(std::make_unique<PluginInstance>(LiveUpdatePlugin::load(plugin_file_, options), start_time,
                                                 max_step_version)) {}

void PluginSlot::reload() { reload(plugin_file()); }

void PluginSlot::reload(const std::filesystem::path &plugin_file) {
    // Loaded before taking the lock: a plugin that fails to load never stops service.
    std::unique_ptr<PluginInstance> retired =
        swap_in(prepare(LiveUpdatePlugin::load(plugin_file, PluginLoadOptions{.private_copy = true})));
}

std::unique_ptr<PluginInstance> PluginSlot::prepare(std::shared_ptr<const LiveUpdatePlugin> plugin) const {
    return std::make_unique<PluginInstance>(std::move(plugin), start_time_, max_step_version_);
}

std::unique_ptr<PluginInstance> PluginSlot::swap_in(std::unique_ptr<PluginInstance> fresh) {
    const LiveUpdatePlugin &plugin = fresh->plugin();
    std::unique_ptr<PluginInstance> retired;
    {
        common::WriterLock lock(mutex_);
        fresh->restore_from(*instance_);
        plugin_file_ = plugin.file();
        retired = std::exchange(instance_, std::move(fresh));
    }
    log::info("reloaded liveupdate plugin " + plugin.file().string() + " (" + plugin.identity().name + " " +
              plugin.identity().version + ")");
    return retired;
}

std::filesystem::path PluginSlot::plugin_file() const {
    common::ReaderLock lock(mutex_);
    return plugin_file_;
}

PluginIdentity PluginSlot::identity() const {
    common::ReaderLock lock(mutex_);
    return instance_->plugin().identity();
}

}  // namespace liveupdate::host
