// A command written as one string (exec.command: "npm install --silent") to
// argv, as Compose splits it: words separated by blanks, with 'single' and
// "double" quotes and backslash escapes, and no shell involved.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace liveupdate::host::compose {

// Throws std::invalid_argument for an unclosed quote or a trailing backslash.
std::vector<std::string> split_command_words(std::string_view command);

}  // namespace liveupdate::host::compose
