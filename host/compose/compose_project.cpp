#include "host/compose/compose_project.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "host/compose/compose_reader.hpp"
#include "host/compose/dotenv.hpp"
#include "host/compose/project_name.hpp"
#include "host/compose/watch_objects.hpp"

namespace liveupdate::host::compose {
namespace fs = std::filesystem;

namespace {

constexpr std::uintmax_t kMaxFileBytes = std::uintmax_t{16} * 1024 * 1024;

// The file's text, or nullopt with the reason in why.
std::optional<std::string> read_text(const std::string &file, std::string &why) {
    std::error_code ec;
    const auto size = fs::file_size(file, ec);
    if (!ec && size > kMaxFileBytes) {
        why = "too large (over 16 MiB)";
        return std::nullopt;
    }
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        why = std::string("cannot read: ") + std::strerror(errno);
        return std::nullopt;
    }
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// .dockerignore lines: comments and blanks dropped, as Docker reads them.
std::optional<std::vector<std::string>> read_dockerignore(const std::string &context) {
    const std::string file = (fs::path(context) / ".dockerignore").string();
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) return std::nullopt;
    std::string why;
    const auto text = read_text(file, why);
    if (!text) return std::nullopt;
    std::vector<std::string> patterns;
    std::istringstream lines(*text);
    for (std::string line; std::getline(lines, line);) {
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
        const auto first = line.find_first_not_of(" \t");
        if (first == std::string::npos || line[first] == '#') continue;
        patterns.push_back(line.substr(first));
    }
    return patterns;
}

}  // namespace

VariableLookup process_environment() {
    return [](std::string_view name) -> std::optional<std::string> {
        const char *v = std::getenv(std::string(name).c_str());
        if (v == nullptr) return std::nullopt;
        return std::string(v);
    };
}

ProjectLoad load_compose_project(const ProjectOptions &options, const VariableLookup &environment) {
    ProjectLoad load;
    for (const auto &f : options.files) load.files.push_back(fs::absolute(f).lexically_normal().string());
    if (load.files.empty()) {
        load.errors.push_back("no compose file given");
        return load;
    }
    load.directory = fs::path(load.files.front()).parent_path().string();
    load.watched_files = load.files;
    const std::string env_file = (fs::path(load.directory) / ".env").string();
    load.watched_files.push_back(env_file);

    std::map<std::string, std::string> dotenv;
    std::error_code ec;
    if (fs::is_regular_file(env_file, ec)) {
        std::string why;
        if (auto text = read_text(env_file, why)) {
            try {
                dotenv = parse_dotenv(*text, environment);
            } catch (const DotenvError &e) {
                load.errors.push_back(env_file + ":" + std::to_string(e.line()) + ": " +
                                      std::string(e.what()).substr(std::string(e.what()).find(": ") + 2));
                return load;
            }
        } else {
            load.errors.push_back(env_file + ": " + why);
            return load;
        }
    }
    // The environment wins over .env, as in Compose.
    const VariableLookup variables = [&](std::string_view name) -> std::optional<std::string> {
        if (auto v = environment(name)) return v;
        if (auto found = dotenv.find(std::string(name)); found != dotenv.end()) return found->second;
        return std::nullopt;
    };

    std::vector<ComposeFile> files;
    for (const auto &file : load.files) {
        std::string why;
        const auto text = read_text(file, why);
        if (!text) {
            why.insert(0, file + ": ");
            load.errors.push_back(std::move(why));
            continue;
        }
        FileRead read = read_compose_file(file, *text, variables);
        for (const auto &w : read.warnings) load.warnings.push_back(w.text());
        for (const auto &e : read.errors) load.errors.push_back(e.text());
        if (read.compose) files.push_back(std::move(*read.compose));
    }
    if (!load.errors.empty()) return load;
    ComposeFile merged = merge_compose_files(files);

    Project project;
    project.directory = load.directory;
    project.files = load.files;
    try {
        project.name =
            choose_project_name(options.name, variables("COMPOSE_PROJECT_NAME"), merged.name, load.directory);
    } catch (const std::invalid_argument &e) {
        load.errors.push_back(load.files.front() + ": " + e.what());
        return load;
    }
    load.name = project.name;
    project.services = std::move(merged.services);
    WatchObjects mapped = watch_objects(project, read_dockerignore);
    for (const auto &w : mapped.warnings) load.warnings.push_back(w.text());
    for (const auto &e : mapped.errors) load.errors.push_back(e.text());
    load.objects = std::move(mapped.objects);
    load.rebuild_watches = std::move(mapped.rebuild_watches);
    return load;
}

}  // namespace liveupdate::host::compose
