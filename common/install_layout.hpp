// Where lu-host, its plugins and lu-agent lie relative to each other: in the
// build tree (bin/lu-host, bin/lu-agent, lib/*.so) and in an installation
// (bin/lu-host, <libdir>/liveupdate/ with the plugins and lu-agent; the
// relative path comes from cmake/LuLayout.cmake).
#pragma once

#include <filesystem>
#include <vector>

namespace liveupdate::common {

inline constexpr const char *kAgentFileName = "lu-agent";

// The running executable (/proc/self/exe); empty when it cannot be read.
std::filesystem::path running_executable();

// The folders that may hold the plugins of `executable`, in the order to look
// at them: the installed layout, then the build tree's ../lib.
std::vector<std::filesystem::path> plugin_folders(const std::filesystem::path &executable);

// Where lu-agent may lie for `executable`, in order: in each plugin folder,
// then beside the executable (the build tree's bin/).
std::vector<std::filesystem::path> agent_places(const std::filesystem::path &executable);

}  // namespace liveupdate::common
