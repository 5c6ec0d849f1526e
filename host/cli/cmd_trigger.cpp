// `lu-host trigger NAME...`: queues LiveUpdates through the running daemon's
// trigger queue, as `tilt trigger` does for resources.
#include <iostream>

#include "common/json_fields.hpp"
#include "host/cli/commands.hpp"
#include "host/cli/options.hpp"
#include "host/up/control_socket.hpp"

namespace liveupdate::host::cli {
namespace json = boost::json;

namespace {

constexpr const char *kTriggerHelp =
    "usage: lu-host trigger NAME... [--control-socket PATH]\n"
    "\n"
    "Queues the named LiveUpdates of a running `lu-host up` in Tilt's trigger\n"
    "queue (the ConfigMap tilt-trigger-queue, by their tilt.dev/resource\n"
    "annotation). A LiveUpdate in manual mode (annotation tilt.dev/update-mode:\n"
    "manual) then syncs the changes it holds; one in auto mode syncs what is\n"
    "pending, if anything. The command returns once the names are queued.\n"
    "With `lu-host up --from-cluster` the queue is the ConfigMap of its\n"
    "namespace, written through the API server.\n"
    "Nothing is queued when one name is unknown.\n"
    "exit: 0 queued, 1 unknown name or no daemon answered, 2 usage error\n";

}  // namespace

const OptionTable kTriggerOptions{{"--control-socket"}, {"--help", "-h"}};

int run_trigger_command(int argc, char **argv) {
    ParsedArgs args;
    try {
        args = parse_args(argc, argv, kTriggerOptions);
        if (args.has("--help") || args.has("-h")) {
            std::cout << kTriggerHelp;
            return kExitOk;
        }
        if (args.positional.empty()) throw UsageError("no LiveUpdate named");
    } catch (const UsageError &e) {
        std::cerr << "lu-host trigger: " << e.what() << "\n\n" << kTriggerHelp;
        return kExitUsage;
    }
    json::array names;
    for (const auto &name : args.positional) names.emplace_back(name);
    const std::string socket = args.value("--control-socket").value_or(up::default_control_socket_path());
    json::value answer;
    try {
        answer = up::control_request(socket, json::object{{"op", "trigger"}, {"names", std::move(names)}});
    } catch (const std::exception &e) {
        std::cerr << "lu-host trigger: " << e.what() << '\n';
        return kExitFailure;
    }
    if (const std::string error = common::string_field(answer, {"error"}); !error.empty()) {
        std::cerr << "lu-host trigger: " << error << '\n';
        return kExitFailure;
    }
    const json::value *triggered = common::member(answer, {"triggered"});
    if (triggered != nullptr && triggered->is_array())
        for (const auto &t : triggered->as_array())
            std::cout << common::string_field(t, {"name"}) << ": triggered (manifest "
                      << common::string_field(t, {"manifest"}) << ")\n";
    return kExitOk;
}

}  // namespace liveupdate::host::cli
