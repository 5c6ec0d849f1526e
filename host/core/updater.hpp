// C++ owner of one updater instance (lu_updater) of a loaded updater plugin.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <boost/json.hpp>

#include "host/core/host_services.hpp"
#include "host/core/plugin_loader.hpp"
#include "liveupdate/updater.hpp"

namespace liveupdate::host {

class Updater {
public:
    // config_json: the updater's settings object ("{}" when none). Throws PluginCallError.
    Updater(std::shared_ptr<const UpdaterPlugin> plugin, std::shared_ptr<UpdaterHostServices> services,
            std::string_view config_json = "{}");
    Updater(const Updater &) = delete;
    Updater &operator=(const Updater &) = delete;
    ~Updater();

    // Thread-safe as the plugin is (the ABI requires it). A failing call is an infra failure.
    updater::Outcome update(const lu_update_request &request) const;

    // Readies the container for its first update (lu_updater_api.prepare):
    // nullopt when it did, or when the plugin has nothing to prepare (an older
    // table, or a NULL member); else the plugin's error text. Thread-safe.
    std::optional<std::string> prepare(const updater::ContainerRef &container) const;

    // The plugin's extension table for id, or nullptr.
    const void *extension(const char *id) const;
    lu_updater *handle() const { return updater_; }
    const UpdaterPlugin &plugin() const { return *plugin_; }

private:
    std::shared_ptr<const UpdaterPlugin> plugin_;
    std::shared_ptr<UpdaterHostServices> services_;
    lu_updater *updater_ = nullptr;
};

}  // namespace liveupdate::host
