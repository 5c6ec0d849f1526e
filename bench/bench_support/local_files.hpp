// What the benches that drive `lu-host up` against a container share: files
// read and written whole, a shell command's output, waiting for files to hold
// a content, and the daemon started with its log in the bench's folder.
// Header-only: each bench is one translation unit.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_support/stats.hpp"

extern char **environ;

namespace lu_bench {

inline std::string read_file(const std::filesystem::path &p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

inline void write_file(const std::filesystem::path &p, const std::string &text) {
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
}

// The command's standard output without its last newlines; throws when it fails.
inline std::string run(const std::string &command) {
    FILE *pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) throw std::runtime_error("cannot run " + command);
    std::string out;
    char buffer[4096];
    while (const auto n = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
    if (::pclose(pipe) != 0) throw std::runtime_error("failed: " + command);
    while (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
}

// Waits until every file holds `want`; the time since `start`, or -1 after 30 s.
inline double wait_for_all(const std::vector<std::filesystem::path> &files, const std::string &want,
                           Clock::time_point start) {
    for (const std::filesystem::path &file : files) {
        while (read_file(file) != want) {
            if (Clock::now() - start > std::chrono::seconds(30)) return -1;
            std::this_thread::sleep_for(std::chrono::microseconds(100));
        }
    }
    return ms_since(start);
}

// `lu_host up` on dir/objects.json, its control socket and its state folder
// in dir (the default state folder is locked by any other `lu-host up` on this
// machine); its log in dir unless given (a log inside a watched folder wakes
// its watcher); `flags` go before the objects file.
inline pid_t start_daemon(const std::string &lu_host, const std::filesystem::path &dir,
                          const std::filesystem::path &log = {}, const std::vector<std::string> &flags = {}) {
    const std::filesystem::path log_file = log.empty() ? dir / "daemon.log" : log;
    std::vector<std::string> args{lu_host,
                                  "up",
                                  "--control-socket",
                                  (dir / "ctl/control.sock").string(),
                                  "--state-dir",
                                  (dir / "state").string()};
    args.insert(args.end(), flags.begin(), flags.end());
    args.push_back((dir / "objects.json").string());
    std::vector<char *> argv;
    argv.reserve(args.size() + 1);
    for (auto &a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log_file.c_str(), O_WRONLY | O_CREAT, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    pid_t daemon = -1;
    const int failed = ::posix_spawn(&daemon, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (failed != 0) throw std::runtime_error("cannot start " + lu_host);
    return daemon;
}

// One LiveUpdate syncing dir/src to /app of a LocalContainer whose root is
// dir/root: the objects of the benches timing `lu-host up` alone.
inline constexpr const char *kLocalContainerObjects = R"({"kind": "List", "items": [
 {"apiVersion": "tilt.dev/v1alpha1", "kind": "FileWatch", "metadata": {"name": "fw"}, "spec": {"watchedPaths": ["src"]}},
 {"apiVersion": "liveupdate.dev/v1alpha1", "kind": "LocalContainer", "metadata": {"name": "box"}, "spec": {"root": "root"}},
 {"apiVersion": "tilt.dev/v1alpha1", "kind": "LiveUpdate", "metadata": {"name": "lu"},
  "spec": {"basePath": ".", "sources": [{"fileWatch": "fw"}], "selector": {"local": {"container": "box"}},
           "syncs": [{"localPath": "src", "containerPath": "/app"}]}}]})";

// Waits (30 s at most) until the daemon's log says it watches; false if it never does.
inline bool wait_until_watching(const std::filesystem::path &log) {
    const auto started = Clock::now();
    while (read_file(log).find("up: watching") == std::string::npos) {
        if (Clock::now() - started > std::chrono::seconds(30)) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
}

// Stops a daemon start_daemon started (none: pid <= 0) and waits for it.
inline void stop_daemon(pid_t daemon) {
    if (daemon <= 0) return;
    ::kill(daemon, SIGTERM);
    int status = 0;
    ::waitpid(daemon, &status, 0);
}

}  // namespace lu_bench
