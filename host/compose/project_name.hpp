// The Compose project name: -p, else COMPOSE_PROJECT_NAME, else the
// top-level name:, else the project folder's name; normalised as Compose
// normalises it (lower case, only a-z 0-9 _ -, no leading _ or -).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace liveupdate::host::compose {

std::string normalize_project_name(std::string_view name);

// Throws std::invalid_argument when the chosen name normalises to nothing,
// naming where it came from.
std::string choose_project_name(const std::optional<std::string> &option, const std::optional<std::string> &environment,
                                const std::optional<std::string> &top_level, const std::string &directory);

}  // namespace liveupdate::host::compose
