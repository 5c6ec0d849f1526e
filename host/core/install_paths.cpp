#include "host/core/install_paths.hpp"

#include <system_error>

#include "common/install_layout.hpp"

namespace liveupdate::host {
namespace fs = std::filesystem;

namespace {
constexpr const char *kLiveUpdatePluginFile = "libliveupdate.so";
}

std::vector<fs::path> plugin_directories_looked_at() { return common::plugin_folders(common::running_executable()); }

fs::path plugin_directory() {
    const std::vector<fs::path> folders = plugin_directories_looked_at();
    for (const fs::path &folder : folders) {
        std::error_code ec;
        if (fs::is_regular_file(folder / kLiveUpdatePluginFile, ec)) return folder;
    }
    return folders.front();
}

fs::path default_liveupdate_plugin() { return plugin_directory() / kLiveUpdatePluginFile; }

fs::path updater_plugin(std::string_view name) {
    return plugin_directory() / ("libupdater_" + std::string(name) + ".so");
}

}  // namespace liveupdate::host
