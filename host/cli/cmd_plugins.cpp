// `lu-host plugins [-o json]`: the plugins a running `lu-host up` has loaded.
#include <algorithm>
#include <iostream>
#include <vector>

#include "common/json_fields.hpp"
#include "host/cli/commands.hpp"
#include "host/cli/options.hpp"
#include "host/cli/pretty_json.hpp"
#include "host/up/control_socket.hpp"

namespace liveupdate::host::cli {
namespace json = boost::json;

namespace {

constexpr const char *kPluginsHelp =
    "usage: lu-host plugins [-o|--output json] [--control-socket PATH]\n"
    "\n"
    "Lists the plugins a running `lu-host up` has loaded: the liveupdate plugin\n"
    "and the updater plugins with the updater classes they serve, each with its\n"
    "name, version, ABI version, file, and how often it was hot-reloaded. A\n"
    "reload that was refused is shown under the plugin that stayed in service.\n"
    "exit: 0 ok, 1 no daemon answered, 2 usage error\n";

void print_table(const json::array &plugins) {
    const std::vector<std::pair<std::string, std::string>> columns{
        {"KIND", "kind"},       {"NAME", "name"},       {"VERSION", "version"}, {"ABI", "abi"},
        {"CLASSES", "classes"}, {"RELOADS", "reloads"}, {"FILE", "file"}};
    std::vector<std::vector<std::string>> rows{{}};
    rows[0].reserve(columns.size());
    for (const auto &[title, key] : columns) rows[0].push_back(title);
    for (const auto &p : plugins) {
        if (!p.is_object()) continue;
        std::vector<std::string> row;
        row.reserve(columns.size());
        for (const auto &[title, key] : columns) row.push_back(cell_text(p.as_object(), key));
        rows.push_back(std::move(row));
    }
    std::vector<std::size_t> width(columns.size(), 0);
    for (const auto &row : rows)
        for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
    for (std::size_t r = 0; r < rows.size(); ++r) {
        std::string line;
        for (std::size_t i = 0; i < rows[r].size(); ++i) {
            line += rows[r][i];
            if (i + 1 < rows[r].size()) line += std::string(width[i] - rows[r][i].size() + 2, ' ');
        }
        std::cout << line << '\n';
        if (r == 0) continue;
        const json::object &entry = plugins[r - 1].as_object();
        if (const json::value *error = common::member(entry, "lastError"); error != nullptr && error->is_string())
            std::cout << "  last reload refused: " << error->as_string() << '\n';
    }
}

}  // namespace

const OptionTable kPluginsOptions{{"-o", "--output", "--control-socket"}, {"--help", "-h"}};

int run_plugins_command(int argc, char **argv) {
    ParsedArgs args;
    try {
        args = parse_args(argc, argv, kPluginsOptions);
        if (args.has("--help") || args.has("-h")) {
            std::cout << kPluginsHelp;
            return kExitOk;
        }
        if (!args.positional.empty()) throw UsageError("unexpected argument \"" + args.positional[0] + "\"");
        const std::string output = args.value("-o").value_or(args.value("--output").value_or("text"));
        if (output != "text" && output != "json") throw UsageError("-o must be json (or text)");
    } catch (const UsageError &e) {
        std::cerr << "lu-host plugins: " << e.what() << "\n\n" << kPluginsHelp;
        return kExitUsage;
    }
    const std::string socket = args.value("--control-socket").value_or(up::default_control_socket_path());
    json::value answer;
    try {
        answer = up::control_request(socket, json::object{{"op", "plugins"}});
    } catch (const std::exception &e) {
        std::cerr << "lu-host plugins: " << e.what() << '\n';
        return kExitFailure;
    }
    const json::value *plugins = answer.is_object() ? common::member(answer.as_object(), "plugins") : nullptr;
    if (plugins == nullptr || !plugins->is_array()) {
        const json::value *error = answer.is_object() ? common::member(answer.as_object(), "error") : nullptr;
        std::cerr << "lu-host plugins: "
                  << (error != nullptr && error->is_string() ? std::string(error->as_string())
                                                             : "the daemon gave no plugin list")
                  << '\n';
        return kExitFailure;
    }
    if (args.value("-o").value_or(args.value("--output").value_or("text")) == "json") {
        std::cout << json::serialize(*plugins) << '\n';
    } else {
        print_table(plugins->as_array());
    }
    return kExitOk;
}

}  // namespace liveupdate::host::cli
