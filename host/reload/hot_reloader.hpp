// Hot reload in `lu-host up`: watches the liveupdate plugin file, the updater
// plugin files in service and the updater configuration; a rebuilt plugin is
// reloaded (the liveupdate plugin keeps its state through snapshot/restore),
// an edited configuration swaps updaters. A change that cannot be applied is
// logged with its reason and what was in service stays. Also what
// `lu-host plugins` lists.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include <boost/json.hpp>

#include "common/micro_time.hpp"
#include "common/mutex.hpp"
#include "host/core/host_services.hpp"
#include "host/core/plugin_slot.hpp"
#include "host/core/updater_registry.hpp"
#include "host/reload/plugin_file_watcher.hpp"
#include "host/reload/plugin_reloader.hpp"
#include "host/reload/quiesce_gate.hpp"
#include "host/reload/updater_config.hpp"
#include "host/reload/updater_set.hpp"

namespace liveupdate::host::reload {

struct HotReloadOptions {
    std::filesystem::path liveupdate_plugin;             // the file the plugin slot was loaded from
    UpdaterChoices defaults;                             // from the command line; the configuration overrides
    std::optional<std::filesystem::path> config;         // updater configuration file
    PluginNameResolver resolve_name;                     // plugin names in the configuration
    std::chrono::milliseconds settle{100};               // quiet time after a file change before acting
    bool watch = true;                                   // false: reload only when asked
    host::PluginLoadOptions load{.private_copy = true};  // how new plugin files are loaded (probe first?)
};

class HotReloader {
public:
    HotReloader(host::PluginSlot &plugin_slot, QuiesceGate &gate, host::UpdaterRegistry &registry,
                std::shared_ptr<host::UpdaterHostServices> services, HotReloadOptions options);
    HotReloader(const HotReloader &) = delete;
    HotReloader &operator=(const HotReloader &) = delete;
    ~HotReloader();  // stops watching

    // Serves the chosen updaters, then starts watching. Throws (UpdaterConfigError,
    // host::PluginLoadError, host::PluginCallError) when they cannot be served.
    void start();

    // What a file change triggers (also callable directly). Each logs its outcome
    // and returns whether the change is in service; on false the old one is.
    bool reload_liveupdate();
    bool reload_updaters(const std::filesystem::path &file);
    bool reload_config();

    // One entry per loaded plugin: kind, name, version, abi, abiRange, file,
    // classes (updaters), loadedAt, reloads, lastError (when the last attempt failed).
    boost::json::array plugins() const;
    std::optional<PluginReloadTimes> last_plugin_reload() const;

private:
    struct FileRecord {
        common::MicroTime loaded_at;
        unsigned reloads = 0;
        std::string last_error;
    };

    UpdaterChoices chosen() const;
    void on_file_changed(const std::filesystem::path &file);
    void loaded(const std::filesystem::path &file, bool is_reload) LU_EXCLUDES(records_mutex_);
    void failed(const std::filesystem::path &file, const std::string &error) LU_EXCLUDES(records_mutex_);
    void rewatch() LU_REQUIRES(operation_mutex_);

    host::PluginSlot &plugin_slot_;
    PluginReloader plugin_reloader_;
    UpdaterSet updaters_;
    HotReloadOptions options_;

    common::Mutex operation_mutex_;  // one reload at a time
    mutable common::Mutex records_mutex_;
    std::map<std::filesystem::path, FileRecord> records_ LU_GUARDED_BY(records_mutex_);
    std::optional<PluginReloadTimes> last_plugin_reload_ LU_GUARDED_BY(records_mutex_);
    // A reload on the watcher's own thread reads it (rewatch).
    std::unique_ptr<PluginFileWatcher> watcher_ LU_GUARDED_BY(operation_mutex_);
};

}  // namespace liveupdate::host::reload
