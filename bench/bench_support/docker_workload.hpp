// What the docker benchmarks share: the reference (a raw `docker exec -i C tar
// -C / -x -f -` of an archive file, timed) and the workload of N 1 KiB files.
// Header-only: each bench is one translation unit.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/bench_support/stats.hpp"
#include "tests/docker/docker_test_support.hpp"

extern char **environ;

namespace lu_bench {

// `docker exec -i NAME tar -C / -x -f -` with stdin from the archive file, in ms.
inline double raw_docker_exec(const std::string &container, const std::string &archive_file) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, archive_file.c_str(), O_RDONLY, 0);
    std::vector<std::string> args{"docker", "exec", "-i", container, "tar", "-C", "/", "-x", "-f", "-"};
    std::vector<char *> argv;
    argv.reserve(args.size() + 1);
    for (auto &a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const auto start = Clock::now();
    pid_t pid = 0;
    if (posix_spawnp(&pid, "docker", &actions, nullptr, argv.data(), environ) != 0) {
        posix_spawn_file_actions_destroy(&actions);
        throw std::runtime_error("spawn docker failed");
    }
    int status = 0;
    waitpid(pid, &status, 0);
    const double elapsed = ms_since(start);
    posix_spawn_file_actions_destroy(&actions);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("docker exec tar failed");
    return elapsed;
}

struct Workload {
    std::string label;
    std::string archive;
    lu_test::Update update;
    int rounds;
};

// files 1 KiB files under /app/bench, 100 a folder.
inline Workload make_workload(const std::string &label, int files, int rounds) {
    Workload w{label, {}, {}, rounds};
    lu_test::TarBuilder tar;
    const std::string content(1024, 'x');
    for (int i = 0; i < files; ++i) {
        const std::string path = "app/bench/d" + std::to_string(i / 100) + "/f" + std::to_string(i) + ".txt";
        tar.file(path, content);
        w.update.copies.push_back({"/unused/" + path, "/" + path});
    }
    w.archive = tar.finish();
    w.update.archive = w.archive;
    return w;
}

}  // namespace lu_bench
