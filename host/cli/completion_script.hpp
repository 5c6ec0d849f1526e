// The completion scripts of `lu-host completion bash|zsh`, made from the
// command table (commands.hpp): the subcommands, each one's options as it
// parses them, and its operands; LiveUpdate names come, when completing,
// from `lu-host completion liveupdates` (the running daemon).
#pragma once

#include <span>
#include <string>

#include "host/cli/commands.hpp"

namespace liveupdate::host::cli {

std::string bash_completion_script(std::span<const Command> commands);
std::string zsh_completion_script(std::span<const Command> commands);

}  // namespace liveupdate::host::cli
