#include <iostream>

#include "host/cli/commands.hpp"
#include "host/cli/options.hpp"
#include "host/core/install_paths.hpp"
#include "host/replay/replay_runner.hpp"

namespace liveupdate::host::cli {

namespace {

constexpr const char *kReplayHelp =
    "usage: lu-host replay [--plugin PATH] [--record-updater PATH] [--dump] SCENARIO.json...\n"
    "\n"
    "Runs each scenario through the host and the liveupdate plugin with a fake clock\n"
    "and the record updater, and prints PASS <file> or FAIL <file>: step <k>: <path>:\n"
    "expected <x>, got <y> (k is the 0-based index into \"steps\"; a step of an included\n"
    "fixture is \"step <k>: include <file>: step <j>\"), then \"N passed, M failed\".\n"
    "The contract is docs/replay.md.\n"
    "\n"
    "  --plugin PATH          liveupdate plugin (default: libliveupdate.so in lu-host's plugin folder,\n"
    "                         which lu-host --version shows)\n"
    "  --record-updater PATH  record updater (default: libupdater_record.so there)\n"
    "  --dump                 print the checked state after each step (DUMP lines)\n"
    "  --help                 this text\n"
    "\n"
    "exit: 0 all scenarios passed, 1 some failed, 2 usage error\n";

}  // namespace

const OptionTable kReplayOptions{{"--plugin", "--record-updater"}, {"--dump", "--help", "-h"}};

int run_replay_command(int argc, char **argv) {
    ParsedArgs args;
    try {
        args = parse_args(argc, argv, kReplayOptions);
    } catch (const UsageError &e) {
        std::cerr << "lu-host replay: " << e.what() << "\n\n" << kReplayHelp;
        return kExitUsage;
    }
    if (args.has("--help") || args.has("-h")) {
        std::cout << kReplayHelp;
        return kExitOk;
    }
    if (args.positional.empty()) {
        std::cerr << "lu-host replay: no scenario given\n\n" << kReplayHelp;
        return kExitUsage;
    }
    replay::ReplayOptions options;
    options.plugin = args.value("--plugin").value_or(default_liveupdate_plugin().string());
    options.record_updater = args.value("--record-updater").value_or(updater_plugin("record").string());
    options.dump = args.has("--dump");
    return replay::run_replay(options, args.positional, std::cout);
}

}  // namespace liveupdate::host::cli
