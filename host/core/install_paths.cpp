#include "host/core/install_paths.hpp"

#include <boost/dll/runtime_symbol_info.hpp>

namespace liveupdate::host {

std::filesystem::path plugin_directory() {
    const std::filesystem::path binary(boost::dll::program_location().string());
    return (binary.parent_path() / ".." / "lib").lexically_normal();
}

std::filesystem::path default_liveupdate_plugin() { return plugin_directory() / "libliveupdate.so"; }

std::filesystem::path updater_plugin(std::string_view name) {
    return plugin_directory() / ("libupdater_" + std::string(name) + ".so");
}

}  // namespace liveupdate::host
