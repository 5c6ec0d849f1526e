// Which compose files a path stands for, as `docker compose` finds them: a
// compose file itself, or the first of compose.yaml, compose.yml,
// docker-compose.yml, docker-compose.yaml in a folder (then its
// compose.override.* / docker-compose.override.* too, when present).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace liveupdate::host::compose {

// compose.yaml, compose.yml, docker-compose.yml, docker-compose.yaml and
// their .override variants.
bool is_compose_file_name(std::string_view file_name);

// Absolute files, merge order; empty when path is neither a compose file nor
// a folder holding one.
std::vector<std::string> compose_files_of(const std::string &path);

}  // namespace liveupdate::host::compose
