#include "core/engine_slot.hpp"

#include <mutex>
#include <utility>

#include "core/log.hpp"

namespace liveupdate::host {

EngineSlot::EngineSlot(std::filesystem::path plugin_file, MicroTime start_time, LoadOptions options)
    : plugin_file_(std::move(plugin_file)), start_time_(start_time),
      engine_(std::make_unique<Engine>(LiveUpdatePlugin::load(plugin_file_, options), start_time)) {}

void EngineSlot::reload() { reload(plugin_file()); }

void EngineSlot::reload(const std::filesystem::path &plugin_file) {
    // Loaded before taking the lock: a plugin that fails to load never stops service.
    std::unique_ptr<Engine> retired = reload(LiveUpdatePlugin::load(plugin_file, LoadOptions{.private_copy = true}));
}

std::unique_ptr<Engine> EngineSlot::reload(std::shared_ptr<const LiveUpdatePlugin> plugin) {
    auto fresh = std::make_unique<Engine>(plugin, start_time_);
    std::unique_ptr<Engine> retired;
    {
        std::unique_lock lock(mutex_);
        fresh->restore(engine_->snapshot());
        retired = std::exchange(engine_, std::move(fresh));
        plugin_file_ = plugin->file();
    }
    log::info("reloaded liveupdate plugin " + plugin->file().string() + " (" + plugin->identity().name + " " +
              plugin->identity().version + ")");
    return retired;
}

std::filesystem::path EngineSlot::plugin_file() const {
    std::shared_lock lock(mutex_);
    return plugin_file_;
}

PluginIdentity EngineSlot::identity() const {
    std::shared_lock lock(mutex_);
    return engine_->plugin().identity();
}

}  // namespace liveupdate::host
