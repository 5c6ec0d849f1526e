// Where lu-host finds its plugins: the first folder of its layout that holds
// libliveupdate.so (installed: <libdir>/liveupdate/; build tree: ../lib),
// relative to its own binary (common/install_layout.hpp).
#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

namespace liveupdate::host {

// The folders looked at, in order.
std::vector<std::filesystem::path> plugin_directories_looked_at();
// The first of them holding libliveupdate.so; the first of them when none does.
std::filesystem::path plugin_directory();
// <plugin_directory>/libliveupdate.so
std::filesystem::path default_liveupdate_plugin();
// <plugin_directory>/libupdater_<name>.so
std::filesystem::path updater_plugin(std::string_view name);

}  // namespace liveupdate::host
