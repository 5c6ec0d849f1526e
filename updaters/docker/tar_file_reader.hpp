// Reads the first regular file out of a tar archive held in memory, as the
// Engine API's GET /containers/{id}/archive returns a single file.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace liveupdate::docker {

// nullopt when the archive holds no regular file; throws std::runtime_error
// when it is not a readable tar.
std::optional<std::string> first_file_in_tar(std::string_view tar);

}  // namespace liveupdate::docker
