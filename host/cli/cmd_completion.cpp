// `lu-host completion bash|zsh`: prints the completion script for the shell;
// `lu-host completion liveupdates`: the names of the running daemon's
// LiveUpdates, one a line, which the scripts ask for while completing.
#include <iostream>

#include "common/json_fields.hpp"
#include "host/cli/commands.hpp"
#include "host/cli/completion_script.hpp"
#include "host/cli/options.hpp"
#include "host/up/control_socket.hpp"

namespace liveupdate::host::cli {
namespace json = boost::json;

namespace {

constexpr const char *kCompletionHelp =
    "usage: lu-host completion bash|zsh\n"
    "       lu-host completion liveupdates [--control-socket PATH]\n"
    "\n"
    "Prints the completion script of lu-host for bash or zsh: subcommands,\n"
    "their options, kinds, and the LiveUpdate names of the running `lu-host up`\n"
    "(which the script asks `lu-host completion liveupdates` for).\n"
    "  bash:  source <(lu-host completion bash)   (the Debian package installs it)\n"
    "  zsh:   source <(lu-host completion zsh)    (after compinit)\n"
    "liveupdates prints those names, one a line.\n"
    "exit: 0 ok, 1 no daemon answered (liveupdates), 2 usage error\n";

int print_live_update_names(const ParsedArgs &args) {
    const std::string socket = args.value("--control-socket").value_or(up::default_control_socket_path());
    json::value answer;
    try {
        answer = up::control_request(socket, json::object{{"op", "get"}, {"kind", "LiveUpdate"}});
    } catch (const std::exception &e) {
        std::cerr << "lu-host completion: " << e.what() << '\n';
        return kExitFailure;
    }
    if (const std::string error = common::string_field(answer, {"error"}); !error.empty()) {
        std::cerr << "lu-host completion: " << error << '\n';
        return kExitFailure;
    }
    const json::value *items = common::member(answer, {"items"});
    if (items != nullptr && items->is_array())
        for (const auto &lu : items->as_array()) std::cout << common::string_field(lu, {"metadata", "name"}) << '\n';
    return kExitOk;
}

}  // namespace

const OptionTable kCompletionOptions{{"--control-socket"}, {"--help", "-h"}};

int run_completion_command(int argc, char **argv) {
    ParsedArgs args;
    try {
        args = parse_args(argc, argv, kCompletionOptions);
        if (args.has("--help") || args.has("-h")) {
            std::cout << kCompletionHelp;
            return kExitOk;
        }
        if (args.positional.size() != 1) throw UsageError("name one shell: bash or zsh");
        const std::string &what = args.positional[0];
        if (what != "bash" && what != "zsh" && what != "liveupdates")
            throw UsageError("unknown shell \"" + what + "\" (bash or zsh)");
    } catch (const UsageError &e) {
        std::cerr << "lu-host completion: " << e.what() << "\n\n" << kCompletionHelp;
        return kExitUsage;
    }
    const std::string &what = args.positional[0];
    if (what == "liveupdates") return print_live_update_names(args);
    std::cout << (what == "bash" ? bash_completion_script(commands()) : zsh_completion_script(commands()));
    return kExitOk;
}

}  // namespace liveupdate::host::cli
