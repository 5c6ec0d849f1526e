// first_save_bench: the first save after `lu-host up` against the tenth, one
// file into a Compose service's container (no initial sync, so nothing but
// the warm-up starts lu-agent before the first save), timed from the write
// to the content being in the container (read through /proc/<pid>/root).
// Issue 23's bar: first <= 2x the tenth.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
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

namespace {}  // namespace

int main() {
    char tmpl[] = "/tmp/lu-first-save-bench-XXXXXX";
    const fs::path dir = ::mkdtemp(tmpl);
    const std::string project = "lufirstsave" + std::to_string(::getpid());
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
           "syncs": [{"localPath": "src", "containerPath": "/app"}]}}]})");
        run("docker run -d --network none --name " + container + " --label com.docker.compose.project=" + project +
            " --label com.docker.compose.service=web --label com.docker.compose.oneoff=False"
            " --label com.docker.compose.container-number=1 lu-busybox:latest sleep 100000");
        const fs::path in_container =
            "/proc/" + run("docker inspect -f '{{.State.Pid}}' " + container) + "/root/app/index.html";
        daemon = lu_bench::start_daemon(LU_HOST_BIN, dir);
        // Up once the LiveUpdate lists the container; then a developer's pause before the first edit.
        const std::string get = std::string(LU_HOST_BIN) + " get liveupdates -o json --control-socket " +
                                (dir / "ctl/control.sock").string() + " 2>/dev/null || true";
        const auto up = Clock::now();
        while (run(get).find(container) == std::string::npos) {
            if (Clock::now() - up > std::chrono::seconds(30))
                throw std::runtime_error("the container was never selected");
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        std::vector<double> saves;
        for (int edit = 1; edit <= 10; ++edit) {
            std::this_thread::sleep_for(std::chrono::milliseconds(edit == 1 ? 1000 : 300));
            const std::string content = "edit " + std::to_string(edit) + "\n";
            const auto start = Clock::now();
            write_file(dir / "src/index.html", content);
            const double took = wait_for_all({in_container}, content, start);
            if (took < 0) throw std::runtime_error("edit " + std::to_string(edit) + " never arrived");
            saves.push_back(took);
        }
        std::printf("first_save_bench: save -> content in the container, lu-host up defaults, no initial sync\n");
        std::printf("  first save: %6.1f ms   tenth: %6.1f ms   saves 2-10 median %6.1f ms\n", saves.front(),
                    saves.back(), lu_bench::percentile(std::vector<double>(saves.begin() + 1, saves.end()), 0.5));
        std::printf("  ratio first / tenth: %.2fx  (bar: <= 2x)\n", saves.front() / saves.back());
    } catch (const std::exception &e) {
        std::fprintf(stderr, "first_save_bench: %s (see %s)\n", e.what(), (dir / "daemon.log").c_str());
        code = 1;
    }
    lu_bench::stop_daemon(daemon);
    std::system(("docker rm -f " + container + " >/dev/null 2>&1").c_str());
    if (code == 0) fs::remove_all(dir);
    return code;
}
