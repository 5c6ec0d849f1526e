// compose_save_bench: 30 saves of one file, each timed from the save having
// returned to its content being in a Compose service's container, through
// `lu-host up` with default settings. The container's file is read from the
// host through /proc/<container pid>/root, so polling costs microseconds, not
// an exec. The reference in the same run: `docker exec -i <c> tar -x` of the
// same file, timed likewise from its archive being written.
// Prints median, p95 and p99 (issue 23's bars: p50 <= 2 ms, p99 <= 10 ms).
//
// The clock starts when the write has returned, as an editor's save has: the
// write itself is the disk's (on ext4 a truncate-and-write flushes at close,
// 2-4 ms on a virtual disk, with or without lu-host running), printed apart.
// The daemon's log goes beside the project folder, not into it: there its
// every line would wake the objects file's watcher, which no editor does.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_support/local_files.hpp"
#include "bench/bench_support/stats.hpp"

namespace fs = std::filesystem;
using lu_bench::Clock;
using lu_bench::read_file;
using lu_bench::run;
using lu_bench::wait_for_all;
using lu_bench::write_file;

namespace {

constexpr int kEdits = 30;

}  // namespace

int main() {
    char tmpl[] = "/tmp/lut18-save-bench-XXXXXX";
    const fs::path dir = ::mkdtemp(tmpl);
    const fs::path daemon_log = dir.string() + ".log";
    const std::string project = "lut18save" + std::to_string(::getpid());
    const std::string container = project + "-web-1";
    pid_t daemon = -1;
    int code = 0;
    try {
        write_file(dir / "src/index.html", "initial\n");
        write_file(dir / "objects.json", R"({"kind": "List", "items": [
 {"apiVersion": "tilt.dev/v1alpha1", "kind": "FileWatch", "metadata": {"name": "src"}, "spec": {"watchedPaths": ["src"]}},
 {"apiVersion": "tilt.dev/v1alpha1", "kind": "DockerComposeService", "metadata": {"name": "web"},
  "spec": {"service": "web", "project": {"name": ")" +
                                             project + R"(", "projectPath": "."}}},
 {"apiVersion": "tilt.dev/v1alpha1", "kind": "LiveUpdate", "metadata": {"name": "web", "annotations": {"tilt.dev/resource": "web"}},
  "spec": {"basePath": ".", "sources": [{"fileWatch": "src"}], "selector": {"dockerCompose": {"service": "web"}},
           "syncs": [{"localPath": "src", "containerPath": "/app"}], "initialSync": {}}}]})");
        run("docker run -d --network none --name " + container + " --label com.docker.compose.project=" + project +
            " --label com.docker.compose.service=web --label com.docker.compose.oneoff=False"
            " --label com.docker.compose.container-number=1 lu-busybox:latest sleep 100000");
        const fs::path in_container =
            "/proc/" + run("docker inspect -f '{{.State.Pid}}' " + container) + "/root/app/index.html";

        daemon = lu_bench::start_daemon(LU_HOST_BIN, dir, daemon_log);
        // The initial sync brings the first content (and starts the agent).
        if (wait_for_all({in_container}, "initial\n", Clock::now()) < 0)
            throw std::runtime_error("the initial sync never arrived (see " + daemon_log.string() + ")");
        // One save to warm the path up, not measured.
        write_file(dir / "src/index.html", "warm-up\n");
        if (wait_for_all({in_container}, "warm-up\n", Clock::now()) < 0) throw std::runtime_error("warm-up save lost");

        std::vector<double> saves, writes, reference;
        const std::string archive = (dir / "one.tar").string();
        for (int edit = 1; edit <= kEdits; ++edit) {
            // A pause between saves, as between a developer's edits: the tree is quiet again.
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            const std::string content = "edit " + std::to_string(edit) + "\n";
            const auto write_start = Clock::now();
            write_file(dir / "src/index.html", content);
            const auto start = Clock::now();
            writes.push_back(lu_bench::ms_since(write_start));
            const double took = wait_for_all({in_container}, content, start);
            if (took < 0) throw std::runtime_error("edit " + std::to_string(edit) + " never arrived");
            saves.push_back(took);

            write_file(dir / "ref/app/ref.txt", content);
            run("tar -c -f " + archive + " -C " + (dir / "ref").string() + " app/ref.txt");
            std::string extract = "docker exec -i " + container;
            extract += " tar -C / -x -f - < ";
            extract += archive;
            const auto ref_start = Clock::now();
            run(extract);
            reference.push_back(lu_bench::ms_since(ref_start));
        }
        std::printf(
            "compose_save_bench: save -> content in the Compose service's container, lu-host up defaults, %d edits\n",
            kEdits);
        std::printf("  lu-host up:            median %6.2f ms  p95 %6.2f ms  p99 %6.2f ms\n",
                    lu_bench::percentile(saves, 0.5), lu_bench::percentile(saves, 0.95),
                    lu_bench::percentile(saves, 0.99));
        std::printf("  docker exec -i tar -x: median %6.2f ms  p95 %6.2f ms  p99 %6.2f ms  (reference, same file)\n",
                    lu_bench::percentile(reference, 0.5), lu_bench::percentile(reference, 0.95),
                    lu_bench::percentile(reference, 0.99));
        std::printf(
            "  the save's own write:  median %6.2f ms  p95 %6.2f ms  p99 %6.2f ms  (not in the figures above)\n",
            lu_bench::percentile(writes, 0.5), lu_bench::percentile(writes, 0.95), lu_bench::percentile(writes, 0.99));
        std::printf("  ratio reference / lu-host: %.1fx\n",
                    lu_bench::percentile(reference, 0.5) / lu_bench::percentile(saves, 0.5));
        // Whether the updates went through lu-agent or fell back, as the daemon logged it.
        std::istringstream log(read_file(daemon_log));
        for (std::string line; std::getline(log, line);)
            if (line.find("lu-agent") != std::string::npos) std::printf("  daemon: %s\n", line.c_str());
    } catch (const std::exception &e) {
        std::fprintf(stderr, "compose_save_bench: %s\n", e.what());
        code = 1;
    }
    lu_bench::stop_daemon(daemon);
    std::system(("docker rm -f " + container + " >/dev/null 2>&1").c_str());
    if (code == 0) {
        fs::remove_all(dir);
        fs::remove(daemon_log);
    }
    return code;
}
