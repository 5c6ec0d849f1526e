// The environment a child process gets: this process's, with some variables
// added or replaced. Extra variables are (name, value) pairs everywhere.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace liveupdate::subprocess {

using EnvVars = std::vector<std::pair<std::string, std::string>>;  // (name, value), in order

// This process's environment ("NAME=value" each, in environ's order) without
// the variables that extra names, then extra's variables in extra's order. A
// name given twice in extra keeps its last value, as a shell's assignments do.
std::vector<std::string> environment_with(const EnvVars &extra);

}  // namespace liveupdate::subprocess
