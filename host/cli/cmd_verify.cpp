// `lu-host verify [liveupdate NAME...] [--fix]`: the running daemon compares
// every sync target in every running container with the local tree and, with
// --fix, sends what differs.
#include <iostream>

#include "common/json_fields.hpp"
#include "host/cli/commands.hpp"
#include "host/cli/options.hpp"
#include "host/cli/pretty_json.hpp"
#include "host/up/control_socket.hpp"

namespace liveupdate::host::cli {
namespace json = boost::json;

namespace {

constexpr const char *kVerifyHelp =
    "usage: lu-host verify [liveupdate NAME...] [--fix [--delete-extra]] [-o json]\n"
    "                      [--control-socket PATH]\n"
    "\n"
    "Asks a running `lu-host up` to compare every sync target in every running\n"
    "container of the named LiveUpdates (default: all of them) with the local\n"
    "tree, by content hash (XXH3-64, through lu-agent in Docker containers).\n"
    "Paths the sync ignores (the FileWatch ignores and the built-in ones) are\n"
    "left out. Prints per container what is missing there, what is extra there\n"
    "and what differs. \"extra\" is a path liveupdate synced there whose local\n"
    "file is gone; \"unsynced\" is one it never put there (not a difference).\n"
    "\n"
    "  --fix   send only what differs, through the normal update path (deletes\n"
    "          for extra paths, copies for missing and different ones, no\n"
    "          commands, no restart), then verify again\n"
    "  --delete-extra  with --fix, also delete what liveupdate never synced\n"
    "          there (listed as unsynced: files the app wrote, or the image\n"
    "          held); without it they are told and left alone\n"
    "  -o json print the daemon's report as JSON\n"
    "\n"
    "exit: 0 every container equals its local tree (after --fix: equals now),\n"
    "      1 differences found (and not fixed), a container that cannot be\n"
    "        verified, or no daemon answered, 2 usage error\n";

void print_lists(const json::value &lists, const std::string &indent) {
    for (const char *list : {"missing", "extra"}) {
        const json::value *paths = common::member(lists, {list});
        if (paths == nullptr || !paths->is_array()) continue;
        for (const auto &p : paths->as_array())
            std::cout << indent << list << (std::string_view(list) == "extra" ? "     " : "   ")
                      << (p.is_string() ? std::string(p.as_string()) : json::serialize(p)) << '\n';
    }
    const json::value *different = common::member(lists, {"different"});
    if (different != nullptr && different->is_array())
        for (const auto &d : different->as_array())
            std::cout << indent << "different " << common::string_field(d, {"path"}) << " ("
                      << common::string_field(d, {"why"}) << ")\n";
}

void print_unsynced(const json::value &lists, const std::string &indent) {
    const json::value *paths = common::member(lists, {"unsynced"});
    if (paths == nullptr || !paths->is_array()) return;
    for (const auto &p : paths->as_array())
        std::cout << indent << "unsynced  " << (p.is_string() ? std::string(p.as_string()) : json::serialize(p))
                  << " (not synced by liveupdate: left alone)\n";
}

std::size_t count_of(const json::value &lists) {
    std::size_t n = 0;
    for (const char *list : {"missing", "extra", "different"})
        if (const json::value *v = common::member(lists, {list}); v != nullptr && v->is_array())
            n += v->as_array().size();
    return n;
}

void print_report(const json::value &report) {
    const std::string name = common::string_field(report, {"name"});
    if (const std::string error = common::string_field(report, {"error"}); !error.empty()) {
        std::cout << name << ": cannot verify: " << error << '\n';
        return;
    }
    const json::value *containers = common::member(report, {"containers"});
    if (containers == nullptr || !containers->is_array() || containers->as_array().empty()) {
        std::cout << name << ": no running container\n";
        return;
    }
    for (const auto &c : containers->as_array()) {
        const std::string where = name + " " + common::string_field(c, {"container"});
        const std::size_t found = count_of(c);
        const std::string error = common::string_field(c, {"error"});
        if (found == 0 && error.empty()) {
            std::cout << where << ": in sync\n";
            print_unsynced(c, "  ");
            continue;
        }
        if (found > 0) {
            std::cout << where << ": " << found << " difference(s)\n";
            print_lists(c, "  ");
            print_unsynced(c, "  ");
        }
        if (const json::value *remaining = common::member(c, {"remaining"})) {
            const std::size_t left = count_of(*remaining);
            if (left == 0) {
                std::cout << where << ": fixed, in sync now\n";
            } else {
                std::cout << where << ": " << left << " difference(s) remain after the fix\n";
                print_lists(*remaining, "  ");
            }
        }
        if (const json::value *left = common::member(c, {"leftForSyncBack"}); left != nullptr && left->is_array())
            std::cout << where << ": " << left->as_array().size()
                      << " file(s) left for sync back (they come back, or are a conflict)\n";
        if (!error.empty()) std::cout << where << ": " << error << '\n';
    }
}

}  // namespace

const OptionTable kVerifyOptions{{"--control-socket", "-o"}, {"--help", "-h", "--fix", "--delete-extra"}};

int run_verify_command(int argc, char **argv) {
    ParsedArgs args;
    try {
        args = parse_args(argc, argv, kVerifyOptions);
        if (args.has("--help") || args.has("-h")) {
            std::cout << kVerifyHelp;
            return kExitOk;
        }
        if (auto format = args.value("-o"); format && *format != "json") throw UsageError("-o takes json");
        if (args.has("--delete-extra") && !args.has("--fix")) throw UsageError("--delete-extra goes with --fix");
        if (!args.positional.empty()) {
            const std::string &kind = args.positional.front();
            if (kind != "liveupdate" && kind != "liveupdates" && kind != "lu")
                throw UsageError("verify checks LiveUpdates: `lu-host verify liveupdate NAME`, got " + kind);
            if (args.positional.size() == 1) throw UsageError("no LiveUpdate named after " + kind);
        }
    } catch (const UsageError &e) {
        std::cerr << "lu-host verify: " << e.what() << "\n\n" << kVerifyHelp;
        return kExitUsage;
    }
    json::object request{{"op", "verify"}, {"fix", args.has("--fix")}, {"deleteExtra", args.has("--delete-extra")}};
    if (args.positional.size() > 1) {
        json::array names;
        for (std::size_t i = 1; i < args.positional.size(); ++i) names.emplace_back(args.positional[i]);
        request["names"] = std::move(names);
    }
    const std::string socket = args.value("--control-socket").value_or(up::default_control_socket_path());
    json::value answer;
    try {
        answer = up::control_request(socket, request);
    } catch (const std::exception &e) {
        std::cerr << "lu-host verify: " << e.what() << '\n';
        return kExitFailure;
    }
    if (const std::string error = common::string_field(answer, {"error"}); !error.empty()) {
        std::cerr << "lu-host verify: " << error << '\n';
        return kExitFailure;
    }
    const json::value *reports = common::member(answer, {"liveUpdates"});
    if (reports == nullptr || !reports->is_array()) {
        std::cerr << "lu-host verify: the daemon's answer has no liveUpdates\n";
        return kExitFailure;
    }
    bool clean = true;
    for (const auto &report : reports->as_array()) {
        const json::value *ok = common::member(report, {"clean"});
        clean = clean && ok != nullptr && ok->is_bool() && ok->as_bool();
    }
    if (args.value("-o"))
        std::cout << pretty_json(answer) << '\n';
    else if (reports->as_array().empty())
        std::cout << "no LiveUpdate to verify\n";
    else
        for (const auto &report : reports->as_array()) print_report(report);
    return clean ? kExitOk : kExitFailure;
}

}  // namespace liveupdate::host::cli
