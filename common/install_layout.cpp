#include "common/install_layout.hpp"

#include <system_error>

#ifndef LU_PLUGINDIR_FROM_BINDIR
#error "LU_PLUGINDIR_FROM_BINDIR comes from cmake/LuLayout.cmake"
#endif

namespace liveupdate::common {
namespace fs = std::filesystem;

fs::path running_executable() {
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : exe;
}

std::vector<fs::path> plugin_folders(const fs::path &executable) {
    const fs::path bin = executable.parent_path();
    return {(bin / LU_PLUGINDIR_FROM_BINDIR).lexically_normal(), (bin / ".." / "lib").lexically_normal()};
}

std::vector<fs::path> agent_places(const fs::path &executable) {
    std::vector<fs::path> places;
    for (const fs::path &folder : plugin_folders(executable)) places.push_back(folder / kAgentFileName);
    places.push_back(executable.parent_path() / kAgentFileName);
    return places;
}

}  // namespace liveupdate::common
