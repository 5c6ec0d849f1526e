// Where lu-host finds its plugins: ../lib next to the binary (build/bin → build/lib).
#pragma once

#include <filesystem>
#include <string_view>

namespace liveupdate::host {

std::filesystem::path plugin_directory();
// ../lib/libliveupdate.so
std::filesystem::path default_liveupdate_plugin();
// ../lib/libupdater_<name>.so
std::filesystem::path updater_plugin(std::string_view name);

}  // namespace liveupdate::host
