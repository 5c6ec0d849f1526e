// Loads plugin shared objects with Boost.DLL and negotiates the ABI version
// through the plugin kind's entry symbol: the highest version both serve
// (abi_range.hpp). Every failure (missing file, not a shared object, missing
// entry symbol, no ABI version in common, wrong kind) is a PluginLoadError
// naming the file and the cause.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include <boost/dll/shared_library.hpp>

#include "liveupdate/liveupdate_plugin.h"
#include "liveupdate/updater_plugin.h"

namespace liveupdate::host {

struct PluginLoadOptions {
    // Load from a private copy of the file (hot reload: the original may be
    // rebuilt or replaced while the loaded code runs). The copy is removed
    // once loaded; the mapping stays valid.
    bool private_copy = false;
    // When set, the file (the private copy) is first loaded in a child process
    // running `prober __probe-plugin` (plugin_probe.hpp), so that a plugin whose
    // load crashes is refused instead of taking the process down.
    std::filesystem::path prober = {};
};

// What a plugin said about itself (copied out of the plugin's memory).
struct PluginIdentity {
    std::string kind;
    std::string name;
    std::string version;
    uint32_t abi_min = 0;
    uint32_t abi_max = 0;
};

// A loaded shared object; unloading happens when the last owner goes away.
class LoadedLibrary {
public:
    // kind ("liveupdate", "updater") is what a probe checks.
    static std::shared_ptr<LoadedLibrary> load(const std::filesystem::path &file, const PluginLoadOptions &options,
                                               std::string_view kind = "liveupdate");

    const std::filesystem::path &file() const { return file_; }
    // Resolves an exported function; PluginLoadError when it is absent.
    void *symbol(const char *name) const;

private:
    LoadedLibrary(std::filesystem::path file, boost::dll::shared_library library)
        : file_(std::move(file)), library_(std::move(library)) {}

    std::filesystem::path file_;
    boost::dll::shared_library library_;
};

// The liveupdate plugin: its function table, valid while this object lives.
class LiveUpdatePlugin {
public:
    static std::shared_ptr<const LiveUpdatePlugin> load(const std::filesystem::path &file,
                                                        const PluginLoadOptions &options = {});

    const lu_liveupdate_api &api() const { return *api_; }
    const PluginIdentity &identity() const { return identity_; }
    const std::filesystem::path &file() const { return library_->file(); }

private:
    LiveUpdatePlugin(std::shared_ptr<LoadedLibrary> library, const lu_liveupdate_api *api, PluginIdentity identity)
        : library_(std::move(library)), api_(api), identity_(std::move(identity)) {}

    std::shared_ptr<LoadedLibrary> library_;
    const lu_liveupdate_api *api_;
    PluginIdentity identity_;
};

// An updater plugin: its function table, valid while this object lives.
class UpdaterPlugin {
public:
    static std::shared_ptr<const UpdaterPlugin> load(const std::filesystem::path &file,
                                                     const PluginLoadOptions &options = {});

    const lu_updater_api &api() const { return *api_; }
    const PluginIdentity &identity() const { return identity_; }
    const std::filesystem::path &file() const { return library_->file(); }

private:
    UpdaterPlugin(std::shared_ptr<LoadedLibrary> library, const lu_updater_api *api, PluginIdentity identity)
        : library_(std::move(library)), api_(api), identity_(std::move(identity)) {}

    std::shared_ptr<LoadedLibrary> library_;
    const lu_updater_api *api_;
    PluginIdentity identity_;
};

}  // namespace liveupdate::host
