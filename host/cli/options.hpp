// A small command-line parser shared by the subcommands: long options with a
// value (--plugin PATH or --plugin=PATH), flags, and positional arguments.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace liveupdate::host::cli {

class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The options a subcommand takes: the table it parses with, which
// `lu-host completion` offers too.
struct OptionTable {
    std::set<std::string> values;  // --name VALUE
    std::set<std::string> flags;   // --name
};

struct ParsedArgs {
    std::map<std::string, std::string> values;  // --name VALUE
    std::set<std::string> flags;                // --name
    std::vector<std::string> positional;

    bool has(const std::string &flag) const { return flags.count(flag) != 0; }
    std::optional<std::string> value(const std::string &name) const;
};

// argv[0] is the subcommand's name and is skipped. Throws UsageError for an
// unknown option or a missing value. "--" ends the options.
ParsedArgs parse_args(int argc, char **argv, const OptionTable &options);

}  // namespace liveupdate::host::cli
