#include "host/core/plugin_probe.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <iostream>
#include <string>

#include "host/core/host_error.hpp"
#include "host/core/plugin_loader.hpp"

extern char **environ;

namespace liveupdate::host {
namespace fs = std::filesystem;

namespace {

constexpr const char *kRefused = "cannot load plugin";
constexpr auto kProbeDeadline = std::chrono::seconds(10);
constexpr std::size_t kMaxReasonBytes = std::size_t{16} * 1024;

std::string replaced(std::string text, const std::string &from, const std::string &to) {
    for (auto at = text.find(from); !from.empty() && at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
}

std::string trimmed(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
}

}  // namespace

void probe_plugin_in_child(const fs::path &prober, std::string_view kind, const fs::path &file,
                           const fs::path &shown_as) {
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0)
        throw PluginLoadError(kRefused, shown_as.string(),
                              std::string("cannot start a probe: ") + std::strerror(errno));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_adddup2(&actions, out[1], 2);
    std::string command(kProbeCommand), kind_arg(kind), file_arg = file.string(), program = prober.string();
    char *argv[] = {program.data(), command.data(), kind_arg.data(), file_arg.data(), nullptr};
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, program.c_str(), &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    if (rc != 0) {
        ::close(out[0]);
        throw PluginLoadError(kRefused, shown_as.string(),
                              "cannot start a probe process (" + program + "): " + std::strerror(rc));
    }
    std::string said;
    bool timed_out = false;
    const auto deadline = std::chrono::steady_clock::now() + kProbeDeadline;
    for (;;) {
        const auto left =
            std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0) {
            timed_out = true;
            break;
        }
        pollfd fd{out[0], POLLIN, 0};
        const int n = ::poll(&fd, 1, static_cast<int>(left));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) continue;
        char buf[4096];
        const ssize_t got = ::read(out[0], buf, sizeof buf);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;  // the probe ended (its end of the pipe closed)
        if (said.size() < kMaxReasonBytes) said.append(buf, static_cast<std::size_t>(got));
    }
    ::close(out[0]);
    if (timed_out) ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (timed_out)
        throw PluginLoadError(kRefused, shown_as.string(),
                              "loading it did not finish within " + std::to_string(kProbeDeadline.count()) +
                                  " s in a probe process (a constructor that hangs?)");
    if (WIFSIGNALED(status))
        throw PluginLoadError(kRefused, shown_as.string(),
                              "loading it crashed a probe process (signal " + std::to_string(WTERMSIG(status)) + ", " +
                                  strsignal(WTERMSIG(status)) + "): its code fails when loaded");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::string reason = trimmed(replaced(said, file.string(), shown_as.string()));
        if (reason.empty()) reason = "a probe process exited with status " + std::to_string(WEXITSTATUS(status));
        // The probe's message is a whole PluginLoadError text: keep only its reason.
        const std::string prefix = std::string(kRefused) + ": " + shown_as.string() + ": ";
        if (reason.starts_with(prefix)) reason = reason.substr(prefix.size());
        throw PluginLoadError(kRefused, shown_as.string(), reason);
    }
}

int run_plugin_probe(int argc, char **argv) {
    if (argc != 3) {
        std::cerr << "usage: lu-host " << kProbeCommand << " liveupdate|updater FILE\n";
        return 2;
    }
    const std::string_view kind = argv[1];
    try {
        if (kind == "liveupdate") {
            LiveUpdatePlugin::load(argv[2]);
        } else if (kind == "updater") {
            UpdaterPlugin::load(argv[2]);
        } else {
            std::cerr << "unknown plugin kind \"" << kind << "\"\n";
            return 2;
        }
    } catch (const std::exception &e) {
        std::cerr << e.what() << '\n';
        return 3;
    }
    return 0;
}

}  // namespace liveupdate::host
