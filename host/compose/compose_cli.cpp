#include "host/compose/compose_cli.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

#include <yaml-cpp/yaml.h>

extern char **environ;

namespace liveupdate::compose {

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
        if (node.Tag() == "!") out << YAML::DoubleQuoted << node.Scalar();
        else out << node.Scalar();
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
        root = YAML::Load(std::string(compose_text));
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
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return 127;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
    std::vector<char *> args;
    for (const auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = 0;
    const int spawned = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    if (spawned != 0) {
        ::close(fds[0]);
        return 127;
    }
    std::string pending;
    char buffer[4096];
    for (;;) {
        const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        pending.append(buffer, static_cast<std::size_t>(n));
        for (std::size_t nl; (nl = pending.find_first_of("\r\n")) != std::string::npos;) {
            if (nl > 0) on_line(std::string_view(pending).substr(0, nl));
            pending.erase(0, nl + 1);
        }
    }
    if (!pending.empty()) on_line(pending);
    ::close(fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

}  // namespace liveupdate::compose
