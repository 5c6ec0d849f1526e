#include "host/compose/compose_cli.hpp"

#include <stdexcept>

#include <yaml-cpp/yaml.h>

#include "common/line_splitter.hpp"
#include "common/subprocess/run_process.hpp"
#include "common/yaml_load.hpp"

namespace liveupdate::host::compose {

std::optional<ComposeCli> find_compose_cli() {
    const auto quiet = [](std::string_view) {};
    if (run_streaming({"docker", "compose", "version"}, quiet) == 0) return ComposeCli{{"docker", "compose"}, false};
    if (run_streaming({"docker-compose", "version"}, quiet) == 0) return ComposeCli{{"docker-compose"}, true};
    return std::nullopt;
}

std::vector<std::string> rebuild_argv(const ComposeCli &cli, const std::string &project,
                                      const std::vector<std::string> &files, const std::string &directory,
                                      const std::string &service) {
    std::vector<std::string> argv = cli.command;
    argv.insert(argv.end(), {"-p", project, "--project-directory", directory});
    for (const auto &f : files) argv.insert(argv.end(), {"-f", f});
    argv.insert(argv.end(), {"up", "-d", "--build", "--no-deps", service});
    return argv;
}

namespace {

// Emits node keeping the quoting of scalars: "1000000" written quoted must
// stay a string for docker-compose's schema.
void emit(YAML::Emitter &out, const YAML::Node &node) {
    switch (node.Type()) {
    case YAML::NodeType::Scalar:
        if (node.Tag() == "!")
            out << YAML::DoubleQuoted << node.Scalar();
        else
            out << node.Scalar();
        break;
    case YAML::NodeType::Sequence:
        out << YAML::BeginSeq;
        for (const auto &item : node) emit(out, item);
        out << YAML::EndSeq;
        break;
    case YAML::NodeType::Map:
        out << YAML::BeginMap;
        for (const auto &entry : node) {
            out << YAML::Key;
            emit(out, entry.first);
            out << YAML::Value;
            emit(out, entry.second);
        }
        out << YAML::EndMap;
        break;
    default: out << YAML::Null; break;
    }
}

}  // namespace

std::string without_develop(std::string_view compose_text) {
    YAML::Node root;
    try {
        root = common::load_yaml(compose_text);
    } catch (const common::YamlParserLimitError &e) {
        throw std::runtime_error(e.msg);
    } catch (const YAML::Exception &e) {
        throw std::runtime_error("line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
    }
    if (root.IsMap()) {
        root.remove("name");
        if (YAML::Node services = root["services"]; services.IsMap())
            for (auto entry : services)
                if (entry.second.IsMap()) entry.second.remove("develop");
    }
    YAML::Emitter out;
    emit(out, root);
    return std::string(out.c_str()) + "\n";
}

int run_streaming(const std::vector<std::string> &argv, const std::function<void(std::string_view)> &on_line) {
    // Build output carries the build steps' own lines; empty lines are skipped.
    common::LineSplitter lines([&on_line](std::string_view line) {
        if (!line.empty()) on_line(line);
    });
    const auto to_lines = [&lines](bool, std::string_view data) { lines.feed(data); };
    int exit_code = 0;
    try {
        exit_code = subprocess::run_process({.argv = argv, .on_output = to_lines, .merge_output = true}).exit_code;
    } catch (const subprocess::StartError &) {
        return 127;  // as a shell says "command not found"; callers take it as "not there"
    }
    lines.flush();
    return exit_code;
}

}  // namespace liveupdate::host::compose
