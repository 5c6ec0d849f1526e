#include "host/cli/options.hpp"

namespace liveupdate::host::cli {

std::optional<std::string> ParsedArgs::value(const std::string &name) const {
    auto found = values.find(name);
    if (found == values.end()) return std::nullopt;
    return found->second;
}

ParsedArgs parse_args(int argc, char **argv, const OptionTable &options) {
    const std::set<std::string> &value_options = options.values;
    const std::set<std::string> &flag_options = options.flags;
    ParsedArgs parsed;
    bool options_done = false;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (options_done || arg.size() < 2 || arg[0] != '-') {
            parsed.positional.push_back(std::move(arg));
            continue;
        }
        if (arg == "--") {
            options_done = true;
            continue;
        }
        std::string name = arg;
        std::optional<std::string> inline_value;
        if (auto eq = arg.find('='); eq != std::string::npos) {
            name = arg.substr(0, eq);
            inline_value = arg.substr(eq + 1);
        }
        if (flag_options.count(name) != 0 && !inline_value) {
            parsed.flags.insert(name);
        } else if (value_options.count(name) != 0) {
            if (inline_value) {
                parsed.values[name] = *inline_value;
            } else if (i + 1 < argc) {
                parsed.values[name] = argv[++i];
            } else {
                throw UsageError(name + " needs a value");
            }
        } else {
            throw UsageError("unknown option " + arg);
        }
    }
    return parsed;
}

}  // namespace liveupdate::host::cli
