// burst_bench: FILES small files (1 KiB, 100 a folder) arrive in a burst in
// the synced folder of a Compose service's container served by `lu-host up`
// with default settings; timed from the burst's last write having returned
// until every file is in the container with its content (read through
// /proc/<container pid>/root). Two kinds of burst, ROUNDS each:
// - written: each file created and written in place, one after another (a
//   checkout, a generator);
// - moved in: the same tree made beside the project, then renamed into it.
// The reference in the same run: `tar -c -C SRC DIR | docker exec -i C tar
// -x` of the same files, timed from its start until the same check sees every
// file in the container, as ours are (issue 23's bar: lu-host <= 1.0x it);
// the time until its exec returned is printed beside it. Also the CPU split of a burst: lu-host, the container
// (lu-agent; tar -x for the reference) and dockerd, which carries both
// streams. Usage: burst_bench [FILES [ROUNDS]] (5000 and 3).
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_support/local_files.hpp"
#include "bench/bench_support/process_cpu.hpp"
#include "bench/bench_support/stats.hpp"

namespace fs = std::filesystem;
using lu_bench::Clock;
using lu_bench::run;
using lu_bench::wait_for_all;

namespace {

// FILES paths below `folder`, 100 a subfolder ("d3/f317.txt").
std::vector<std::string> relative_paths(int files) {
    std::vector<std::string> out;
    out.reserve(static_cast<std::size_t>(files));
    for (int i = 0; i < files; ++i) out.push_back("d" + std::to_string(i / 100) + "/f" + std::to_string(i) + ".txt");
    return out;
}

// Creates and writes each file in turn, as a checkout does.
void write_tree(const fs::path &root, const std::vector<std::string> &paths, const std::string &content) {
    for (const auto &p : paths) {
        const fs::path file = root / p;
        if (!fs::exists(file.parent_path())) fs::create_directories(file.parent_path());
        const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0) throw std::runtime_error("cannot create " + file.string());
        const bool whole = ::write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size());
        ::close(fd);
        if (!whole) throw std::runtime_error("cannot write " + file.string());
    }
}

// The CPU of lu-host, the container and dockerd so far (ms).
struct CpuSplit {
    double host = 0, container = 0, dockerd = 0;
};

struct CpuProbe {
    long daemon, container, dockerd;
    CpuSplit now() const {
        return {lu_bench::process_cpu_ms(daemon), lu_bench::cgroup_cpu_ms(container),
                dockerd > 0 ? lu_bench::process_cpu_ms(dockerd) : -1};
    }
};

CpuSplit operator-(const CpuSplit &a, const CpuSplit &b) {
    return {a.host - b.host, a.container - b.container, a.dockerd - b.dockerd};
}

double median_of(const std::vector<CpuSplit> &splits, double CpuSplit::*part) {
    std::vector<double> values;
    values.reserve(splits.size());
    for (const auto &s : splits) values.push_back(s.*part);
    return lu_bench::median(values);
}

std::vector<fs::path> under(const fs::path &root, const std::vector<std::string> &paths) {
    std::vector<fs::path> out;
    out.reserve(paths.size());
    for (const auto &p : paths) out.push_back(root / p);
    return out;
}

}  // namespace

int main(int argc, char **argv) {
    const int files = argc > 1 ? std::stoi(argv[1]) : 5000;
    const int rounds = argc > 2 ? std::stoi(argv[2]) : 3;
    char tmpl[] = "/tmp/lu-burst-bench-XXXXXX";
    const fs::path dir = ::mkdtemp(tmpl);
    const std::string project = "luburst" + std::to_string(::getpid());
    const std::string container = project + "-web-1";
    pid_t daemon = -1;
    int code = 0;
    try {
        lu_bench::write_file(dir / "src/index.html", "initial\n");
        lu_bench::write_file(dir / "objects.json", R"({"kind": "List", "items": [
 {"apiVersion": "tilt.dev/v1alpha1", "kind": "FileWatch", "metadata": {"name": "src"}, "spec": {"watchedPaths": ["src"]}},
 {"apiVersion": "tilt.dev/v1alpha1", "kind": "DockerComposeService", "metadata": {"name": "web"},
  "spec": {"service": "web", "project": {"name": ")" + project +
                                                       R"(", "projectPath": "."}}},
 {"apiVersion": "tilt.dev/v1alpha1", "kind": "LiveUpdate", "metadata": {"name": "web", "annotations": {"tilt.dev/resource": "web"}},
  "spec": {"basePath": ".", "sources": [{"fileWatch": "src"}], "selector": {"dockerCompose": {"service": "web"}},
           "syncs": [{"localPath": "src", "containerPath": "/app"}], "initialSync": {}}}]})");
        run("docker run -d --network none --name " + container + " --label com.docker.compose.project=" + project +
            " --label com.docker.compose.service=web --label com.docker.compose.oneoff=False"
            " --label com.docker.compose.container-number=1 lu-busybox:latest sh -c 'mkdir -p /ref && exec sleep "
            "100000'");
        const std::string container_pid = run("docker inspect -f '{{.State.Pid}}' " + container);
        const fs::path root = "/proc/" + container_pid + "/root";
        daemon = lu_bench::start_daemon(LU_HOST_BIN, dir);
        const std::string dockerd = run("pidof -s dockerd || true");
        const CpuProbe cpu{daemon, std::stol(container_pid), dockerd.empty() ? -1 : std::stol(dockerd)};
        if (wait_for_all({root / "app/index.html"}, "initial\n", Clock::now()) < 0)
            throw std::runtime_error("the initial sync never arrived (see " + (dir / "daemon.log").string() + ")");

        // The daemon checks a container it synced into once, within about two
        // seconds of seeing it (a verify with repairs): not during a burst.
        std::this_thread::sleep_for(std::chrono::seconds(3));
        const std::vector<std::string> paths = relative_paths(files);
        std::vector<double> written, moved, reference, reference_exits, bursts;
        std::vector<CpuSplit> ours, theirs;  // per burst
        for (int round = 1; round <= rounds; ++round) {
            const std::string content = "round " + std::to_string(round) + "\n" + std::string(1017, 'x');
            // A quiet tree before each burst, as between a developer's commands.
            std::this_thread::sleep_for(std::chrono::milliseconds(500));
            const std::string w = "w" + std::to_string(round);
            const CpuSplit before = cpu.now();
            const auto burst_start = Clock::now();
            write_tree(dir / "src" / w, paths, content);
            bursts.push_back(lu_bench::ms_since(burst_start));
            const auto w_start = Clock::now();
            const double w_took = wait_for_all(under(root / "app" / w, paths), content, w_start);
            if (w_took < 0) throw std::runtime_error("written burst " + std::to_string(round) + " never arrived");
            written.push_back(w_took);

            std::this_thread::sleep_for(std::chrono::milliseconds(500));
            const std::string m = "m" + std::to_string(round);
            write_tree(dir / "staging" / m, paths, content);
            fs::rename(dir / "staging" / m, dir / "src" / m);
            const auto m_start = Clock::now();
            const double m_took = wait_for_all(under(root / "app" / m, paths), content, m_start);
            if (m_took < 0) throw std::runtime_error("moved-in burst " + std::to_string(round) + " never arrived");
            moved.push_back(m_took);
            const CpuSplit both = cpu.now() - before;
            ours.push_back({both.host / 2, both.container / 2, both.dockerd / 2});

            const CpuSplit reference_before = cpu.now();
            const auto r_start = Clock::now();
            std::string copy = "tar -c -C " + (dir / "src").string();
            copy += " " + w + " | docker exec -i ";
            copy += container + " tar -C /ref -x";
            FILE *copying = ::popen(copy.c_str(), "r");
            if (copying == nullptr) throw std::runtime_error("cannot run " + copy);
            const double seen = wait_for_all(under(root / "ref" / w, paths), content, r_start);
            const int status = ::pclose(copying);
            reference_exits.push_back(lu_bench::ms_since(r_start));
            theirs.push_back(cpu.now() - reference_before);
            if (status != 0 || seen < 0) throw std::runtime_error("the reference copy failed or is incomplete");
            reference.push_back(seen);
        }
        const double ref = lu_bench::median(reference);
        std::printf("burst_bench: %d files of 1 KiB in a burst, last write -> container equal, %d rounds (median)\n",
                    files, rounds);
        std::printf("  lu-host up, written:    %8.1f ms  (%.2fx the reference)\n", lu_bench::median(written),
                    lu_bench::median(written) / ref);
        std::printf("  lu-host up, moved in:   %8.1f ms  (%.2fx the reference)\n", lu_bench::median(moved),
                    lu_bench::median(moved) / ref);
        std::printf(
            "  tar -c | docker exec -i tar -x: %8.1f ms  (reference, same files; its exec returned after %.1f ms)\n",
            ref, lu_bench::median(reference_exits));
        std::printf("  the written burst itself: %8.1f ms (not in the figures above)\n", lu_bench::median(bursts));
        std::printf("  CPU per burst (median): lu-host %.0f ms, container (lu-agent) %.0f ms, dockerd %.0f ms\n",
                    median_of(ours, &CpuSplit::host), median_of(ours, &CpuSplit::container),
                    median_of(ours, &CpuSplit::dockerd));
        std::printf("  CPU of the reference:   container (tar -x) %.0f ms, dockerd %.0f ms\n",
                    median_of(theirs, &CpuSplit::container), median_of(theirs, &CpuSplit::dockerd));
    } catch (const std::exception &e) {
        std::fprintf(stderr, "burst_bench: %s\n", e.what());
        code = 1;
    }
    lu_bench::stop_daemon(daemon);
    std::system(("docker rm -f " + container + " >/dev/null 2>&1").c_str());
    if (code == 0) fs::remove_all(dir);
    return code;
}
