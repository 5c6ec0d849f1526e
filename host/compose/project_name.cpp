#include "host/compose/project_name.hpp"

#include <filesystem>
#include <stdexcept>

namespace liveupdate::host::compose {

std::string normalize_project_name(std::string_view name) {
    std::string out;
    for (char c : name) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-') out += c;
    }
    const std::size_t first = out.find_first_not_of("_-");
    return first == std::string::npos ? std::string() : out.substr(first);
}

std::string choose_project_name(const std::optional<std::string> &option, const std::optional<std::string> &environment,
                                const std::optional<std::string> &top_level, const std::string &directory) {
    std::string raw;
    std::string source;
    if (option && !option->empty()) {
        raw = *option;
        source = "-p";
    } else if (environment && !environment->empty()) {
        raw = *environment;
        source = "COMPOSE_PROJECT_NAME";
    } else if (top_level && !top_level->empty()) {
        raw = *top_level;
        source = "the top-level name:";
    } else {
        raw = std::filesystem::path(directory).filename().string();
        source = "the folder name";
    }
    std::string name = normalize_project_name(raw);
    if (name.empty())
        throw std::invalid_argument("project name \"" + raw + "\" (from " + source +
                                    ") has no letter or digit; give one with -p NAME");
    return name;
}

}  // namespace liveupdate::host::compose
