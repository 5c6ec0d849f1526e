// lu-host: dispatches to the subcommand named by the first argument.
#include <cstdlib>
#include <iostream>
#include <string_view>

#include "host/cli/commands.hpp"
#include "host/core/log.hpp"
#include "host/core/plugin_probe.hpp"

namespace {

using namespace liveupdate::host;

void print_help(std::ostream &out) {
    out << "usage: lu-host [--log-level debug|info|warn|error] <command> [args...]\n"
           "       lu-host <command> --help\n"
           "       lu-host --version   host version, SDK ABI, installed and loaded plugins\n\ncommands:\n";
    for (const cli::Command &command : cli::commands()) {
        out << "  " << command.name << std::string(12 - std::min<std::size_t>(command.name.size(), 11), ' ')
            << command.summary << '\n';
    }
    out << "\nThe log goes to stderr; its level also comes from LU_LOG_LEVEL.\n"
           "exit codes: 0 success, 1 failure, 2 usage error, 3 a plugin could not be loaded\n";
}

bool set_level(std::string_view text) {
    auto level = liveupdate::common::parse_log_level(text);
    if (level) log::set_threshold(*level);
    return level.has_value();
}

}  // namespace

int main(int argc, char **argv) {
    if (argc >= 2 && argv[1] == kProbeCommand) return run_plugin_probe(argc - 1, argv + 1);
    if (const char *env = std::getenv("LU_LOG_LEVEL"); env != nullptr && !set_level(env)) {
        std::cerr << "lu-host: LU_LOG_LEVEL must be debug, info, warn or error\n";
        return cli::kExitUsage;
    }
    int first = 1;
    while (first < argc && std::string_view(argv[first]).starts_with("--log-level")) {
        std::string_view arg = argv[first];
        std::string_view value;
        if (arg.size() > 11 && arg[11] == '=') {
            value = arg.substr(12);
        } else if (arg.size() == 11 && first + 1 < argc) {
            value = argv[++first];
        }
        if (!set_level(value)) {
            std::cerr << "lu-host: --log-level needs debug, info, warn or error\n";
            return cli::kExitUsage;
        }
        ++first;
    }
    if (first >= argc) {
        print_help(std::cerr);
        return cli::kExitUsage;
    }
    const std::string_view name = argv[first];
    if (name == "--help" || name == "-h" || name == "help") {
        print_help(std::cout);
        return cli::kExitOk;
    }
    if (name == "--version") return cli::run_version_command();
    const cli::Command *command = cli::find_command(name);
    if (command == nullptr) {
        std::cerr << "lu-host: unknown command \"" << name << "\"\n\n";
        print_help(std::cerr);
        return cli::kExitUsage;
    }
    try {
        return command->run(argc - first, argv + first);
    } catch (const std::exception &e) {
        log::error(e.what());
        return cli::kExitFailure;
    }
}
