// `lu-host get KIND [-o json]` and `lu-host describe KIND NAME`: read the
// running daemon's objects over its control socket.
#include <iomanip>
#include <iostream>
#include <sstream>

#include "common/json_fields.hpp"
#include "host/cli/commands.hpp"
#include "host/cli/kind_names.hpp"
#include "host/cli/options.hpp"
#include "host/cli/pretty_json.hpp"
#include "host/up/control_socket.hpp"

namespace liveupdate::host::cli {
namespace json = boost::json;

namespace {

constexpr const char *kGetHelp =
    "usage: lu-host get KIND [-o|--output json] [--control-socket PATH]\n"
    "\n"
    "Lists the objects of a running `lu-host up` (KIND: liveupdates, filewatches,\n"
    "localcontainers, ...) with their status. -o json prints a List object; for\n"
    "LiveUpdates it also carries \"rejected\": the ones admission refused.\n"
    "exit: 0 ok, 1 no daemon answered, 2 usage error\n";

constexpr const char *kDescribeHelp =
    "usage: lu-host describe KIND NAME [-o|--output json] [--control-socket PATH]\n"
    "\n"
    "Shows one object of a running `lu-host up`: where it is declared, its spec,\n"
    "its status and (LiveUpdates) its containers (how lu-agent got there:\n"
    "injected, copied or none; the process's last restart), its open sync-back\n"
    "conflicts, its recent log or why it was rejected;\n"
    "-o json prints the daemon's answer as it is.\n"
    "exit: 0 ok, 1 not found or no daemon answered, 2 usage error\n";

using common::member;
using common::string_field;

struct Row {
    std::string name, state, containers, last_sync, conflicts, message;
};

Row live_update_row(const json::value &lu) {
    Row row{string_field(lu, {"metadata", "name"}), "Pending", "0", "-", "0", ""};
    const json::value *containers = member(lu, {"status", "containers"});
    std::size_t count = 0;
    if (containers != nullptr && containers->is_array()) {
        count = containers->as_array().size();
        if (count > 0) row.state = "Ok";
        for (const auto &c : containers->as_array()) {
            const std::string synced = string_field(c, {"lastFileTimeSynced"});
            if (!synced.empty() && (row.last_sync == "-" || synced > row.last_sync)) row.last_sync = synced;
            if (const std::string waiting = string_field(c, {"waiting", "reason"}); !waiting.empty()) {
                row.state = "Waiting:" + waiting;
                row.message = string_field(c, {"waiting", "message"});
            }
            if (const std::string exec = string_field(c, {"lastExecError"}); !exec.empty()) {
                row.state = "ExecError";
                row.message = exec;
            }
        }
    }
    row.containers = std::to_string(count);
    if (const json::value *conflicts = member(lu, {"status", "syncBackConflicts"});
        conflicts != nullptr && conflicts->is_array())
        row.conflicts = std::to_string(conflicts->as_array().size());
    if (const std::string reason = string_field(lu, {"status", "failed", "reason"}); !reason.empty()) {
        row.state = "Failed:" + reason;
        row.message = string_field(lu, {"status", "failed", "message"});
    }
    return row;
}

void print_table(const std::vector<std::vector<std::string>> &rows) {
    std::vector<std::size_t> widths;
    for (const auto &r : rows)
        for (std::size_t i = 0; i < r.size(); ++i) {
            if (widths.size() <= i) widths.push_back(0);
            widths[i] = std::max(widths[i], r[i].size());
        }
    for (const auto &r : rows) {
        std::string line;
        for (std::size_t i = 0; i < r.size(); ++i) {
            line += r[i];
            if (i + 1 < r.size()) line += std::string(widths[i] - r[i].size() + 3, ' ');
        }
        std::cout << line << '\n';
    }
}

// Whether any item came from a cluster: then a NAMESPACE column leads, as with kubectl -A.
bool any_namespaced(const json::value *items) {
    if (items != nullptr && items->is_array())
        for (const auto &o : items->as_array())
            if (!string_field(o, {"metadata", "namespace"}).empty()) return true;
    return false;
}

void print_list(const std::string &kind, const json::value &answer) {
    std::vector<std::vector<std::string>> rows;
    const json::value *items = member(answer, {"items"});
    const bool namespaced = any_namespaced(items);
    const auto in_namespace = [namespaced](const json::value *object, std::vector<std::string> row) {
        if (!namespaced) return row;
        const std::string ns = object != nullptr ? string_field(*object, {"metadata", "namespace"}) : "";
        row.insert(row.begin(), ns.empty() ? "-" : ns);
        return row;
    };
    if (kind == "LiveUpdate") {
        rows.push_back(in_namespace(nullptr, {"NAME", "STATE", "CONTAINERS", "LAST SYNC", "CONFLICTS", "MESSAGE"}));
        if (namespaced) rows[0][0] = "NAMESPACE";
        if (items != nullptr && items->is_array())
            for (const auto &lu : items->as_array()) {
                const Row r = live_update_row(lu);
                rows.push_back(in_namespace(&lu, {r.name, r.state, r.containers, r.last_sync, r.conflicts, r.message}));
            }
        if (const json::value *rejected = member(answer, {"rejected"}); rejected != nullptr && rejected->is_array())
            for (const auto &r : rejected->as_array())
                rows.push_back(in_namespace(
                    nullptr, {string_field(r, {"name"}), "Rejected", "0", "-", "0", string_field(r, {"message"})}));
    } else {
        rows.push_back(in_namespace(nullptr, {"NAME", "STATUS"}));
        if (namespaced) rows[0][0] = "NAMESPACE";
        if (items != nullptr && items->is_array())
            for (const auto &o : items->as_array()) {
                const json::value *status = member(o, {"status"});
                std::string summary = status != nullptr ? json::serialize(*status) : "{}";
                if (summary.size() > 100) summary = summary.substr(0, 97) + "...";
                rows.push_back(in_namespace(&o, {string_field(o, {"metadata", "name"}), summary}));
            }
    }
    print_table(rows);
}

std::string indented(const std::string &text) {
    std::string out = "  ";
    for (char c : text) {
        out += c;
        if (c == '\n') out += "  ";
    }
    return out;
}

// describe's list of a LiveUpdate's containers: how the updater reached into
// each (lu-agent injected at admission, copied in, or none) and when an
// update last restarted its process.
void print_containers(const json::value *containers) {
    if (containers == nullptr || !containers->is_array() || containers->as_array().empty()) return;
    std::cout << "Containers:\n";
    std::vector<std::vector<std::string>> rows{{"  CONTAINER", "POD", "AGENT", "LAST RESTART"}};
    const auto or_dash = [](const std::string &text) { return text.empty() ? std::string("-") : text; };
    for (const auto &c : containers->as_array()) {
        std::string name = string_field(c, {"containerName"});
        if (name.empty()) name = string_field(c, {"containerID"}).substr(0, 12);
        rows.push_back({"  " + or_dash(name), or_dash(string_field(c, {"podName"})),
                        or_dash(string_field(c, {"agent"})), or_dash(string_field(c, {"lastRestartTime"}))});
    }
    print_table(rows);
}

// describe's list of a LiveUpdate's open sync-back conflicts (docs/sync-back.md).
void print_conflicts(const json::value *conflicts) {
    if (conflicts == nullptr || !conflicts->is_array() || conflicts->as_array().empty()) return;
    std::cout << "Sync-back conflicts (nothing is overwritten until one side is edited to agree):\n";
    std::vector<std::vector<std::string>> rows{{"  CONTAINER", "PATH", "LOCAL PATH", "KIND"}};
    for (const auto &c : conflicts->as_array())
        rows.push_back({"  " + string_field(c, {"container"}), string_field(c, {"path"}),
                        string_field(c, {"localPath"}), string_field(c, {"kind"})});
    print_table(rows);
}

int client_main(const char *command, int argc, char **argv, const char *help, std::size_t names) {
    ParsedArgs args;
    try {
        args = parse_args(argc, argv, kGetOptions);
        if (args.has("--help") || args.has("-h")) {
            std::cout << help;
            return kExitOk;
        }
        if (args.positional.size() != names) throw UsageError("wrong number of arguments");
        if (!kind_from_cli(args.positional[0])) throw UsageError("unknown kind \"" + args.positional[0] + "\"");
        const std::string output = args.value("-o").value_or(args.value("--output").value_or("text"));
        if (output != "text" && output != "json") throw UsageError("-o must be json (or text)");
    } catch (const UsageError &e) {
        std::cerr << "lu-host " << command << ": " << e.what() << "\n\n" << help;
        return kExitUsage;
    }
    const std::string kind = *kind_from_cli(args.positional[0]);
    const std::string socket = args.value("--control-socket").value_or(up::default_control_socket_path());
    const bool as_json = args.value("-o").value_or(args.value("--output").value_or("text")) == "json";
    json::object request{{"op", names == 1 ? "get" : "describe"}, {"kind", kind}};
    if (names == 2) request["name"] = args.positional[1];
    json::value answer;
    try {
        answer = up::control_request(socket, request);
    } catch (const std::exception &e) {
        std::cerr << "lu-host " << command << ": " << e.what() << '\n';
        return kExitFailure;
    }
    if (const std::string error = string_field(answer, {"error"}); !error.empty()) {
        std::cerr << "lu-host " << command << ": " << error << '\n';
        return kExitFailure;
    }
    if (as_json) {
        std::cout << json::serialize(answer) << '\n';
        return kExitOk;
    }
    if (names == 1) {
        print_list(kind, answer);
        return kExitOk;
    }
    std::cout << "Name:         " << args.positional[1] << "\nKind:         " << kind << '\n';
    if (const std::string ns = string_field(answer, {"object", "metadata", "namespace"}); !ns.empty())
        std::cout << "Namespace:    " << ns << '\n';
    if (const std::string file = string_field(answer, {"file"}); !file.empty())
        std::cout << "Declared in:  " << file << '\n';
    if (const json::value *rejected = member(answer, {"rejected"})) {
        std::cout << "Rejected:     " << string_field(*rejected, {"message"}) << '\n';
        if (const json::value *errors = member(*rejected, {"errors"}); errors != nullptr && errors->is_array())
            for (const auto &e : errors->as_array())
                std::cout << "  " << string_field(e, {"field"}) << ": " << string_field(e, {"message"}) << '\n';
    }
    if (const json::value *object = member(answer, {"object"})) {
        if (const json::value *spec = member(*object, {"spec"}))
            std::cout << "Spec:\n" << indented(pretty_json(*spec)) << '\n';
        if (const json::value *status = member(*object, {"status"}))
            std::cout << "Status:\n" << indented(pretty_json(*status)) << '\n';
    }
    if (kind == "LiveUpdate") print_containers(member(answer, {"object", "status", "containers"}));
    print_conflicts(member(answer, {"object", "status", "syncBackConflicts"}));
    if (const json::value *lines = member(answer, {"log"}); lines != nullptr && lines->is_array()) {
        std::cout << "Recent log:\n";
        for (const auto &l : lines->as_array())
            if (l.is_string()) std::cout << "  " << l.as_string() << '\n';
    }
    return kExitOk;
}

}  // namespace

const OptionTable kGetOptions{{"-o", "--output", "--control-socket"}, {"--help", "-h"}};

int run_get_command(int argc, char **argv) { return client_main("get", argc, argv, kGetHelp, 1); }
int run_describe_command(int argc, char **argv) { return client_main("describe", argc, argv, kDescribeHelp, 2); }

}  // namespace liveupdate::host::cli
