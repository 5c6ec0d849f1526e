#include "host/cli/commands.hpp"

#include <array>

namespace liveupdate::host::cli {

namespace {

const std::array kCommands{
    Command{"replay", "run replay scenarios with a fake clock and the record updater", run_replay_command},
    Command{"up", "watch object files and live-update LocalContainers until Ctrl-C", run_up_command},
    Command{"get", "list the objects of a running `up` (e.g. get liveupdates -o json)", run_get_command},
    Command{"describe", "show one object of a running `up` with its status and log", run_describe_command},
    Command{"trigger", "queue LiveUpdates of a running `up` for update (manual mode), as `tilt trigger`",
            run_trigger_command},
    Command{"verify", "compare the containers of a running `up` with the local trees; --fix sends what differs",
            run_verify_command},
    Command{"plugins", "list the plugins a running `up` has loaded (name, version, ABI, file)", run_plugins_command},
    Command{"rbac", "print the least Role the operator (up --from-cluster) needs in a namespace", run_rbac_command},
    Command{"crds", "print the CustomResourceDefinitions of the tilt.dev kinds for a cluster", run_crds_command},
    Command{"webhook", "serve the validating admission webhook for tilt.dev objects; install, uninstall",
            run_webhook_command},
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
