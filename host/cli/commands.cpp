#include "host/cli/commands.hpp"

#include <array>

namespace liveupdate::host::cli {

namespace {

const std::array kCommands{
    Command{"replay",
            "run replay scenarios with a fake clock and the record updater",
            run_replay_command,
            kReplayOptions,
            {Operand::files, Operand::files, ""}},
    Command{"up",
            "watch object files and live-update LocalContainers until Ctrl-C",
            run_up_command,
            kUpOptions,
            {Operand::files, Operand::files, ""}},
    Command{"get",
            "list the objects of a running `up` (e.g. get liveupdates -o json)",
            run_get_command,
            kGetOptions,
            {Operand::kinds, Operand::none, ""}},
    Command{"describe",
            "show one object of a running `up` with its status and log",
            run_describe_command,
            kGetOptions,
            {Operand::kinds, Operand::liveupdates, ""}},
    Command{"trigger",
            "queue LiveUpdates of a running `up` for update (manual mode), as `tilt trigger`",
            run_trigger_command,
            kTriggerOptions,
            {Operand::liveupdates, Operand::liveupdates, ""}},
    Command{"verify",
            "compare the containers of a running `up` with the local trees; --fix sends what differs",
            run_verify_command,
            kVerifyOptions,
            {Operand::words, Operand::liveupdates, "liveupdate"}},
    Command{"plugins",
            "list the plugins a running `up` has loaded (name, version, ABI, file)",
            run_plugins_command,
            kPluginsOptions,
            {Operand::none, Operand::none, ""}},
    Command{"rbac",
            "print the least Role the operator (up --from-cluster) needs in a namespace",
            run_rbac_command,
            kRbacOptions,
            {Operand::none, Operand::none, ""}},
    Command{"crds",
            "print the CustomResourceDefinitions of the tilt.dev kinds for a cluster",
            run_crds_command,
            kCrdsOptions,
            {Operand::none, Operand::none, ""}},
    Command{"webhook",
            "serve the validating admission webhook for tilt.dev objects; install, uninstall",
            run_webhook_command,
            kWebhookOptions,
            {Operand::words, Operand::none, "install uninstall"}},
    Command{"completion",
            "print a bash or zsh completion script for lu-host",
            run_completion_command,
            kCompletionOptions,
            {Operand::words, Operand::none, "bash zsh liveupdates"}},
};

}  // namespace

std::span<const Command> commands() { return kCommands; }

const Command *find_command(std::string_view name) {
    for (const Command &command : kCommands) {
        if (command.name == name) return &command;
    }
    return nullptr;
}

}  // namespace liveupdate::host::cli
