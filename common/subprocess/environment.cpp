#include "common/subprocess/environment.hpp"

#include <algorithm>
#include <iterator>
#include <string_view>

extern char **environ;

namespace liveupdate::subprocess {

std::vector<std::string> environment_with(const EnvVars &extra) {
    const auto named_in = [](auto first, auto last, std::string_view name) {
        return std::any_of(first, last, [name](const auto &var) { return var.first == name; });
    };
    std::vector<std::string> env;
    for (char **entry = environ; *entry != nullptr; ++entry) {
        const std::string_view text(*entry);
        if (!named_in(extra.begin(), extra.end(), text.substr(0, text.find('=')))) env.emplace_back(text);
    }
    for (auto var = extra.begin(); var != extra.end(); ++var)
        if (!named_in(std::next(var), extra.end(), var->first)) env.push_back(var->first + "=" + var->second);
    return env;
}

}  // namespace liveupdate::subprocess
