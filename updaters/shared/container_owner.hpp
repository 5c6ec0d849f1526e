// The numeric owner that the docker updater's `user` setting ("name", "uid",
// "name:group", "uid:gid") stands for in a container, resolved against the
// container's /etc/passwd and /etc/group as Docker resolves `--user`.
// Copies through the archive API carry it in their tar headers: Docker keeps
// an archive's numeric owner, so the files end up owned as `tar` running as
// that user would have left them.
#pragma once

#include <cstdint>
#include <string_view>

namespace liveupdate::updaters {

struct Owner {
    std::uint32_t uid = 0;
    std::uint32_t gid = 0;
};

// passwd and group: the files' text ("" when the image has none). Throws
// std::invalid_argument naming the name that is in neither.
Owner resolve_owner(std::string_view user, std::string_view passwd, std::string_view group);

}  // namespace liveupdate::updaters
