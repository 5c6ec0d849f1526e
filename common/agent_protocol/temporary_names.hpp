// The names lu-agent gives the temporary entries it writes beside a path and
// renames into place (agent/fs_ops.cpp): ".lu-agent-<pid>-<n>". One still
// there was left by an agent killed between writing and renaming it (agent
// killed, container restarted): liveupdate's own, never the app's.
#pragma once

#include <string_view>

namespace liveupdate::agent_protocol {

inline constexpr std::string_view kTemporaryPrefix = ".lu-agent-";

// name: one path component.
inline bool is_temporary_name(std::string_view name) {
    if (!name.starts_with(kTemporaryPrefix)) return false;
    name.remove_prefix(kTemporaryPrefix.size());
    const auto digits = [](std::string_view s) {
        return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
    };
    const auto dash = name.find('-');
    return dash != std::string_view::npos && digits(name.substr(0, dash)) && digits(name.substr(dash + 1));
}

}  // namespace liveupdate::agent_protocol
