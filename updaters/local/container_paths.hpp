// Where a container path lands inside a local container's root folder.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace liveupdate::local {

// A relative archive entry name or an absolute container path, checked and
// normalised: nullopt with a reason when it is empty, contains a ".." segment
// or (for entries) is absolute. "./app//x" → "app/x"; "/" → "".
struct RelativePath {
    std::string path;     // "" stands for the root itself
    std::string refusal;  // non-empty when refused
};
RelativePath archive_entry_relative(std::string_view entry_name);
RelativePath container_path_relative(std::string_view container_path);

// root (canonical, absolute) joined with a checked relative path.
std::string under_root(std::string_view root, std::string_view relative);

}  // namespace liveupdate::local
