// Sync back for a local container, end to end through `lu-host up` (ratios
// in one run; docs/sync-back.md):
// - a burst of small files generated in the container (an `npm install`) →
//   equal locally, against the nearest reference for a local container:
//   `cp -r` and `tar -c | tar -x` of the same files from its folder (sync
//   back also checks each name and digest, writes a temporary file beside
//   each and renames it, and keeps to its limit of 2000 files a second);
// - forward saves of a file a rule brings back, p50/p99 with sync back on
//   against a daemon with it off, saves interleaved;
// - echoes over the whole run: forward updates of files that came back, and
//   forward saves that came back (0).
// Run: build/bin/local_sync_back_bench [files [saves]]
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/bench_support/stats.hpp"
#include "tests/integration/up_daemon.hpp"

namespace {

using lu_bench::Clock;
using lu_bench::ms_since;
using lu_bench::percentile;
using namespace up_it;

// src → /app, bringing back gen/ when sync_back.
Objects objects(bool sync_back) {
    Objects o;
    o.lu_spec()["initialSync"] = json::object{};
    if (sync_back) o.lu_spec()["syncs"].as_array()[0].as_object()["syncBack"] = json::array{"gen"};
    return o;
}

void start(UpDaemon &d, const Objects &o) {
    write_file(d.src / "main.js", "main");
    write_file(d.src / "gen/save.txt", "save");
    if (!d.start(o, {"--debounce", "0"}) || !wait_until([&] { return read_file(d.in_app("main.js")) == "main"; }))
        throw std::runtime_error("the daemon did not start:\n" + d.log_text());
}

std::string name_of(int i) { return "gen/burst/d" + std::to_string(i / 100) + "/f" + std::to_string(i) + ".js"; }
std::string content_of(int i) { return "module.exports = " + std::to_string(i) + ";\n"; }

bool all_equal(const fs::path &dir, int files) {
    for (int i = files - 1; i >= 0; --i)
        if (read_file(dir / name_of(i)) != content_of(i)) return false;
    return true;
}

// The daemon's lines about LiveUpdate lu holding both texts.
std::size_t lines_with(const std::string &log, const std::string &a, const std::string &b) {
    std::size_t count = 0;
    std::istringstream lines(log);
    for (std::string line; std::getline(lines, line);)
        if (line.find("[lu]") != std::string::npos && line.find(a) != std::string::npos &&
            line.find(b) != std::string::npos)
            ++count;
    return count;
}

double timed_shell(const std::string &command) {
    const auto start = Clock::now();
    if (std::system(command.c_str()) != 0) throw std::runtime_error("failed: " + command);
    return ms_since(start);
}

// One forward save of gen/save.txt until the container has it: ms.
double forward_save(UpDaemon &d, int round) {
    const std::string content = "save " + std::to_string(round) + "\n";
    const auto start = Clock::now();
    write_file(d.src / "gen/save.txt", content);
    if (!wait_until([&] { return read_file(d.in_app("gen/save.txt")) == content; }))
        throw std::runtime_error("a forward save did not arrive:\n" + d.log_text());
    return ms_since(start);
}

int run(int files, int saves) {
    UpDaemon on;
    UpDaemon off;
    start(on, objects(true));
    start(off, objects(false));
    if (!wait_until([&] { return on.log_text().find(": started") != std::string::npos; }))
        throw std::runtime_error("sync back did not start:\n" + on.log_text());

    // Forward saves, interleaved so that both see the same machine.
    std::vector<double> with_ms, without_ms;
    for (int i = 0; i < saves + 5; ++i) {  // 5 to warm up
        const double with = forward_save(on, i);
        const double without = forward_save(off, i);
        if (i >= 5) {
            with_ms.push_back(with);
            without_ms.push_back(without);
        }
    }

    // The burst, generated in the container's folder.
    const auto start_burst = Clock::now();
    for (int i = 0; i < files; ++i) write_file(on.in_app(name_of(i)), content_of(i));
    const double generated = ms_since(start_burst);
    const auto after_last = Clock::now();
    if (!wait_until([&] { return all_equal(on.src, files); }, std::chrono::seconds(300)))
        throw std::runtime_error("the burst did not all come back:\n" + on.log_text());
    const double back_total = ms_since(start_burst), back_after = ms_since(after_last);

    const std::string from = (on.root / "app/gen/burst").string(), to = (on.dir / "reference").string();
    const double cp = timed_shell("cp -r '" + from + "' '" + to + "-cp'");
    std::system(("mkdir -p '" + to + "-tar'").c_str());
    const double tar = timed_shell("tar -C '" + from + "' -cf - . | tar -C '" + to + "-tar' -xf -");

    // Let the watchers see the last of it before counting.
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const std::string log = on.log_text();
    const std::size_t echoes = lines_with(log, " Changed: ", "gen/burst") + lines_with(log, "came back", "save.txt");
    const std::size_t came_back = lines_with(log, "came back", "gen/burst");
    const std::size_t conflicts = lines_with(log, ": conflict: ", "");
    on.stop();
    off.stop();

    const double w50 = percentile(with_ms, 0.5), o50 = percentile(without_ms, 0.5);
    std::printf("local container sync back (lu-host up, --debounce 0)\n");
    std::printf("  %d small files generated in the container in %.0f ms\n", files, generated);
    std::printf("    -> equal locally        %8.0f ms from the first write, %8.0f ms after the last\n", back_total,
                back_after);
    std::printf("    cp -r of the same files %8.0f ms   ratio (after the last) %.1fx\n", cp,
                cp > 0 ? back_after / cp : 0.0);
    std::printf("    tar | tar -x            %8.0f ms   ratio (after the last) %.1fx\n", tar,
                tar > 0 ? back_after / tar : 0.0);
    std::printf("    limit-bound floor       %8.0f ms   (2000 files a second)\n", files / 2000.0 * 1000.0);
    std::printf("  forward saves of a file a rule brings back (%d each)\n", saves);
    std::printf("    sync back on    p50 %7.2f ms  p99 %7.2f ms\n", w50, percentile(with_ms, 0.99));
    std::printf("    sync back off   p50 %7.2f ms  p99 %7.2f ms\n", o50, percentile(without_ms, 0.99));
    std::printf("    ratio p50 on/off %.2fx (bar 1.1x)\n", o50 > 0 ? w50 / o50 : 0.0);
    std::printf("  echoes over the run: %zu (bar 0); came back lines %zu of %d; conflicts %zu\n", echoes, came_back,
                files, conflicts);
    return echoes == 0 && conflicts == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc > 1 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
        std::printf("usage: local_sync_back_bench [files [saves]]  (default 10000 200)\n");
        return 0;
    }
    const int files = argc > 1 ? std::atoi(argv[1]) : 10000;
    const int saves = argc > 2 ? std::atoi(argv[2]) : 200;
    try {
        return run(files, saves);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "local_sync_back_bench: %s\n", e.what());
        return 2;
    }
}
