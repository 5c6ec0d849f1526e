// The subcommands of lu-host. Each one parses its own arguments (argv[0] is
// the subcommand's name) and answers --help.
#pragma once

#include <span>
#include <string_view>

#include "host/cli/options.hpp"

namespace liveupdate::host::cli {

// Exit codes of every subcommand.
enum ExitCode : int {
    kExitOk = 0,         // success
    kExitFailure = 1,    // the command ran and failed (e.g. a scenario failed)
    kExitUsage = 2,      // bad command line
    kExitPluginLoad = 3  // a plugin could not be loaded or refused the host's ABI
};

// What `lu-host completion` offers for a command's operands (the words that
// are not options): the first, then every later one.
enum class Operand { none, files, liveupdates, kinds, words };
struct Operands {
    Operand first = Operand::none;
    Operand rest = Operand::none;
    std::string_view words = {};  // for Operand::words, space-separated
};

struct Command {
    std::string_view name;
    std::string_view summary;  // one line for `lu-host --help`
    int (*run)(int argc, char **argv);
    const OptionTable &options;  // what it parses its arguments with
    Operands operands;
};

// The dispatch table. To add a subcommand, declare its function below and add
// a row in commands.cpp.
std::span<const Command> commands();
const Command *find_command(std::string_view name);

// The option tables, each defined beside the command that parses with it.
extern const OptionTable kReplayOptions;
extern const OptionTable kUpOptions;
extern const OptionTable kGetOptions;  // get and describe
extern const OptionTable kTriggerOptions;
extern const OptionTable kVerifyOptions;
extern const OptionTable kPluginsOptions;
extern const OptionTable kRbacOptions;
extern const OptionTable kCrdsOptions;
extern const OptionTable kWebhookOptions;
extern const OptionTable kCompletionOptions;

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
int run_completion_command(int argc, char **argv);

}  // namespace liveupdate::host::cli
