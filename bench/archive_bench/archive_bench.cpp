// archive_bench: time and peak memory of the host's archive step against
// `tar -cf - -C DIR .` on the same trees, in the same run. Each side runs as
// its own process writing the archive to a pipe that this process drains,
// so both pay the same consumer; peak RSS is sampled from /proc while it runs.
//
//   archive_bench [--files N] [--big-files N] [--big-mib N] [--rounds N] [--dir DIR]
//   archive_bench stream DIR      (internal: the host's archive of DIR on stdout)
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <boost/dll/runtime_symbol_info.hpp>

#include "host/core/archive_builder.hpp"

extern char **environ;

namespace {
namespace fs = std::filesystem;
using liveupdate::common::LogLevel;
using liveupdate::host::ArchiveStream;

int stream_to_stdout(const std::string &dir) {
    ArchiveStream stream({{dir, "/app"}}, liveupdate::common::IgnoreSet{}, [](LogLevel level, std::string_view line) {
        if (level >= LogLevel::warn) std::cerr << line << '\n';
    });
    std::vector<char> buffer(std::size_t{256} * 1024);
    for (;;) {
        const std::int64_t n = stream.read(buffer.data(), buffer.size());
        if (n == 0) return 0;
        if (n < 0) {
            std::cerr << "archive failed: " << stream.error().value_or("?") << '\n';
            return 1;
        }
        for (std::int64_t done = 0; done < n;) {
            const ssize_t w = ::write(1, buffer.data() + done, static_cast<size_t>(n - done));
            if (w < 0) return 1;
            done += w;
        }
    }
}

struct Run {
    double seconds;      // wall time
    double cpu_seconds;  // user + system time of the process, all threads
    long max_rss_kib;
    std::uint64_t bytes;
};

// The process's peak RSS (VmHWM) in KiB, 0 once it is gone. wait4's
// ru_maxrss would include the spawning parent's pages (shared until exec).
long peak_rss_kib(pid_t pid) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
    }
    return 0;
}

// Runs argv with stdout into a pipe drained here; samples its peak RSS while it runs.
Run measure(const std::vector<std::string> &args) {
    int fds[2];
    if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    std::vector<char *> argv;
    argv.reserve(args.size() + 1);
    for (const std::string &a : args) argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    const auto start = std::chrono::steady_clock::now();
    pid_t pid;
    if (posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ) != 0) {
        throw std::runtime_error("cannot run " + args[0]);
    }
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    std::vector<char> buffer(std::size_t{256} * 1024);
    std::uint64_t bytes = 0;
    long peak = 0;
    ssize_t n;
    for (unsigned reads = 0; (n = ::read(fds[0], buffer.data(), buffer.size())) > 0; ++reads) {
        bytes += static_cast<std::uint64_t>(n);
        if (reads % 16 == 0) peak = std::max(peak, peak_rss_kib(pid));
    }
    peak = std::max(peak, peak_rss_kib(pid));  // still there until reaped
    ::close(fds[0]);
    int status = 0;
    struct rusage usage {};
    ::wait4(pid, &status, 0, &usage);
    const double cpu =
        usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error(args[0] + " failed");
    return Run{seconds, cpu, peak, bytes};
}

void make_small_tree(const fs::path &root, int files) {
    std::string content;
    for (int i = 0; i < files; ++i) {
        const fs::path dir = root / ("d" + std::to_string(i % 100)) / ("e" + std::to_string(i % 7));
        fs::create_directories(dir);
        content.assign(static_cast<size_t>(100 + (i * 37) % 4000), static_cast<char>('a' + i % 26));
        std::ofstream(dir / ("f" + std::to_string(i) + ".txt"), std::ios::binary) << content;
    }
}

void make_big_tree(const fs::path &root, int files, int mib) {
    fs::create_directories(root);
    std::string block(std::size_t{1024} * 1024, '\0');
    for (size_t i = 0; i < block.size(); ++i) block[i] = static_cast<char>((i * 131) % 251);
    for (int i = 0; i < files; ++i) {
        std::ofstream out(root / ("big" + std::to_string(i) + ".bin"), std::ios::binary);
        for (int m = 0; m < mib; ++m) out << block;
    }
}

struct Comparison {
    Run ours;
    Run tar;
};

// Best of rounds for each side, alternating, after one warm-up of each.
Comparison compare(const std::string &self, const fs::path &dir, int rounds) {
    const std::vector<std::string> ours{self, "stream", dir.string()};
    const std::vector<std::string> tar{"tar", "-cf", "-", "-C", dir.string(), "."};
    measure(ours);
    measure(tar);
    Comparison best{measure(ours), measure(tar)};
    for (int r = 1; r < rounds; ++r) {
        const Run o = measure(ours);
        const Run t = measure(tar);
        if (o.seconds < best.ours.seconds) best.ours.seconds = o.seconds;
        if (t.seconds < best.tar.seconds) best.tar.seconds = t.seconds;
        best.ours.cpu_seconds = std::min(best.ours.cpu_seconds, o.cpu_seconds);
        best.tar.cpu_seconds = std::min(best.tar.cpu_seconds, t.cpu_seconds);
        best.ours.max_rss_kib = std::max(best.ours.max_rss_kib, o.max_rss_kib);
        best.tar.max_rss_kib = std::max(best.tar.max_rss_kib, t.max_rss_kib);
    }
    return best;
}

void report(const std::string &name, const Comparison &c) {
    std::printf(
        "%-20s ours %6.3f s (cpu %6.3f s) rss %5.1f MiB | tar %6.3f s (cpu %6.3f s) rss %5.1f MiB"
        " | time ratio %.2f, cpu ratio %.2f%s\n",
        name.c_str(), c.ours.seconds, c.ours.cpu_seconds, c.ours.max_rss_kib / 1024.0, c.tar.seconds, c.tar.cpu_seconds,
        c.tar.max_rss_kib / 1024.0, c.ours.seconds / c.tar.seconds, c.ours.cpu_seconds / c.tar.cpu_seconds,
        c.ours.seconds <= c.tar.seconds ? "" : "  (target <= 1.0)");
}

int value_after(int argc, char **argv, int &i) {
    if (i + 1 >= argc) throw std::runtime_error(std::string(argv[i]) + " needs a value");
    return std::stoi(argv[++i]);
}

}  // namespace

int main(int argc, char **argv) {
    try {
        if (argc == 3 && std::string(argv[1]) == "stream") return stream_to_stdout(argv[2]);
        int files = 10000, big_files = 20, big_mib = 10, rounds = 3;
        fs::path base = fs::temp_directory_path();
        for (int i = 1; i < argc; ++i) {
            const std::string arg = argv[i];
            if (arg == "--files")
                files = value_after(argc, argv, i);
            else if (arg == "--big-files")
                big_files = value_after(argc, argv, i);
            else if (arg == "--big-mib")
                big_mib = value_after(argc, argv, i);
            else if (arg == "--rounds")
                rounds = value_after(argc, argv, i);
            else if (arg == "--dir" && i + 1 < argc)
                base = argv[++i];
            else
                throw std::runtime_error("unknown argument " + arg);
        }
        std::string pattern = (base / "lu-archive-bench-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
        const fs::path root = pattern;
        const std::string self = boost::dll::program_location().string();
        make_small_tree(root / "small", files);
        make_small_tree(root / "tenth", files / 10);
        make_big_tree(root / "big", big_files, big_mib);

        std::printf("archive_bench: host archive step vs GNU tar -cf -, best of %d, same run\n", rounds);
        const Comparison small = compare(self, root / "small", rounds);
        const Comparison tenth = compare(self, root / "tenth", rounds);
        const Comparison big = compare(self, root / "big", rounds);
        report(std::to_string(files) + " small files", small);
        report(std::to_string(big_files) + " x " + std::to_string(big_mib) + " MiB files", big);
        std::printf(
            "peak RSS of the archive step: %d files %.1f MiB, %d files %.1f MiB, %d x %d MiB %.1f MiB"
            " (must not grow with the tree)\n",
            files / 10, tenth.ours.max_rss_kib / 1024.0, files, small.ours.max_rss_kib / 1024.0, big_files, big_mib,
            big.ours.max_rss_kib / 1024.0);
        fs::remove_all(root);
        return 0;
    } catch (const std::exception &e) {
        std::cerr << "archive_bench: " << e.what() << '\n';
        return 1;
    }
}
