// The subcommands of lu-host. Each one parses its own arguments (argv[0] is
// the subcommand's name) and answers --help.
#pragma once

#include <span>
#include <string_view>

namespace liveupdate::host::cli {

// Exit codes of every subcommand.
enum ExitCode : int {
    kExitOk = 0,         // success
    kExitFailure = 1,    // the command ran and failed (e.g. a scenario failed)
    kExitUsage = 2,      // bad command line
    kExitPluginLoad = 3  // a plugin could not be loaded or refused the host's ABI
};

struct Command {
    std::string_view name;
    std::string_view summary;  // one line for `lu-host --help`
    int (*run)(int argc, char **argv);
};

// The dispatch table. To add a subcommand, declare its function below and add
// a row in commands.cpp.
std::span<const Command> commands();
const Command *find_command(std::string_view name);

int run_replay_command(int argc, char **argv);
int run_up_command(int argc, char **argv);
int run_get_command(int argc, char **argv);
int run_describe_command(int argc, char **argv);
int run_plugins_command(int argc, char **argv);
// `lu-host --version`: host version, SDK ABI, installed and loaded plugins.
int run_version_command();
int run_trigger_command(int argc, char **argv);
int run_verify_command(int argc, char **argv);
int run_crds_command(int argc, char **argv);
int run_rbac_command(int argc, char **argv);
int run_webhook_command(int argc, char **argv);

}  // namespace liveupdate::host::cli
