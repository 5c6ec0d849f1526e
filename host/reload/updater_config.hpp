// The updater configuration: which plugin serves each updater class
// ("docker", "kubernetes", "local", ...) and with which settings.
//
//   {"updaters": {
//      "docker":     {"plugin": "docker", "settings": {"host": "unix:///var/run/docker.sock"}},
//      "kubernetes": {"plugin": "/opt/plugins/libupdater_kubernetes.so"},
//      "local":      {"plugin": "./libmy_updater.so", "settings": {"workingDir": "/srv"}}}}
//
// "plugin" is a name (no "/" and not ending in ".so": the host's own
// lib/libupdater_<name>.so) or a path, relative paths being relative to the
// configuration file's folder. "settings" (default {}) is handed to the
// plugin's create(). Unknown keys are errors (a typo must not pass silently).
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "host/core/host_error.hpp"

namespace liveupdate::host::reload {

// What serves one updater class.
struct UpdaterChoice {
    std::filesystem::path plugin;  // absolute, normalized
    std::string settings = "{}";   // a JSON object, serialized

    bool operator==(const UpdaterChoice &) const = default;
};

// Updater class → choice.
using UpdaterChoices = std::map<std::string, UpdaterChoice, std::less<>>;

// where() is "<file>: <field path>" (e.g. "up.json: updaters.docker.plugin").
class UpdaterConfigError : public host::HostError {
public:
    UpdaterConfigError(const std::string &where, const std::string &why)
        : HostError("invalid updater configuration", where, why) {}
};

// Turns a plugin name into its file (the host's plugin folder).
using PluginNameResolver = std::function<std::filesystem::path(std::string_view name)>;

// Parses a configuration's text; file names it in errors and anchors relative paths.
UpdaterChoices parse_updater_config(std::string_view text, const std::filesystem::path &file,
                                    const PluginNameResolver &resolve_name);
// Reads and parses file; UpdaterConfigError also when it cannot be read.
UpdaterChoices load_updater_config(const std::filesystem::path &file, const PluginNameResolver &resolve_name);

}  // namespace liveupdate::host::reload
