// The updaters in service, one per updater class, kept in step with a set of
// choices (command line and configuration file). Each plugin file is loaded
// from a private copy, so it can be rebuilt in place. Changes are all or
// nothing: every new updater is loaded and created before any is swapped in.
// Swapping needs no quiescing: an update in flight keeps the updater it
// started with (the executor holds it), and the old plugin is unloaded when
// its last update finishes.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/mutex.hpp"
#include "host/core/host_services.hpp"
#include "host/core/plugin_loader.hpp"
#include "host/core/updater.hpp"
#include "host/core/updater_registry.hpp"
#include "host/reload/updater_config.hpp"

namespace liveupdate::host::reload {

struct UpdaterChanges {
    std::vector<std::string> added, replaced, removed;  // updater classes

    bool empty() const { return added.empty() && replaced.empty() && removed.empty(); }
    std::string summary() const;  // e.g. "added docker; replaced local"
};

// A loaded updater plugin and the classes it serves.
struct LoadedUpdaterPlugin {
    std::shared_ptr<const host::UpdaterPlugin> plugin;
    std::vector<std::string> classes;
};

class UpdaterSet {
public:
    UpdaterSet(host::UpdaterRegistry &registry, std::shared_ptr<host::UpdaterHostServices> services,
               host::PluginLoadOptions load = {.private_copy = true})
        : registry_(registry), services_(std::move(services)), load_(std::move(load)) {}

    // Serves exactly `choices`: classes whose plugin file or settings changed get
    // a new updater, classes no longer chosen stop being served. Throws
    // (host::HostError naming the class) and changes nothing when any fails.
    UpdaterChanges apply(const UpdaterChoices &choices);

    // Loads `file` again and re-creates the updater of every class it serves;
    // returns those classes (none: not a file in service). Throws and changes
    // nothing on failure.
    std::vector<std::string> reload(const std::filesystem::path &file);

    std::set<std::filesystem::path> files() const;
    std::vector<LoadedUpdaterPlugin> loaded() const;

private:
    struct Serving {
        UpdaterChoice choice;
        std::shared_ptr<const host::UpdaterPlugin> plugin;
        std::shared_ptr<const host::Updater> updater;
    };

    std::shared_ptr<const host::Updater> create(const std::string &via, const UpdaterChoice &choice,
                                                std::shared_ptr<const host::UpdaterPlugin> plugin) const;

    host::UpdaterRegistry &registry_;
    std::shared_ptr<host::UpdaterHostServices> services_;
    host::PluginLoadOptions load_;
    mutable common::Mutex mutex_;
    std::map<std::string, Serving, std::less<>> serving_ LU_GUARDED_BY(mutex_);
};

}  // namespace liveupdate::host::reload
