// plugin_bench: the cost of one reconcile with one new file event, when the
// LiveUpdate has already seen 100 / 10,000 / 100,000 distinct paths, for 1
// and 50 containers. Tilt rescans every seen path per container per
// reconcile; ours should cost in proportion to what is new, so the figure
// that matters is the ratio time(100k) / time(100) (target <= 2).
// Also reports the memory held per tracked path.
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/bench_support/stats.hpp"
#include "plugin/core/engine.hpp"
#include "plugin/core/path_time_index.hpp"

namespace {

using namespace liveupdate;
using lu_bench::Clock;

const common::MicroTime kStart = *common::MicroTime::parse("2026-01-01T00:00:00Z");
common::MicroTime at_micros(std::int64_t us) { return common::MicroTime(kStart.micros() + us); }

std::string json_string(const std::string &s) { return "\"" + s + "\""; }

class Scenario {
public:
    Scenario(const std::string &root, int containers) : root_(root), engine_(kStart) {
        std::string pods;
        for (int i = 0; i < containers; ++i) {
            if (i > 0) pods += ",";
            pods += R"({"name":"pod-)" + std::to_string(i) +
                    R"(","namespace":"default","phase":"Running","containers":[{"name":"main","id":"cid-)" +
                    std::to_string(i) + R"(","image":"app:1","state":{"running":{}}}]})";
        }
        must(R"({"kind":"KubernetesDiscovery","metadata":{"name":"kd"},"status":{"pods":[)" + pods + "]}}");
        must(
            R"({"kind":"LiveUpdate","metadata":{"name":"lu","annotations":{"tilt.dev/resource":"app"}},"spec":{"basePath":)" +
            json_string(root_) +
            R"(,"sources":[{"fileWatch":"fw"}],"selector":{"kubernetes":{"discoveryName":"kd","image":"app"}},"syncs":[{"localPath":".","containerPath":"/app"}]}})");
    }

    // Records `count` distinct paths (in events of up to 1000 files) and syncs them.
    void seed(int count) {
        for (int start = 0; start < count; start += 1000) {
            std::vector<std::string> files;
            for (int i = start; i < std::min(count, start + 1000); ++i) files.push_back(path_of(i));
            push_event(files);
        }
        reconcile();
    }

    // One new file event, then one reconcile; returns the reconcile's duration.
    double one_new_file(int id) {
        push_event({path_of(id)});
        const auto t0 = Clock::now();
        const std::size_t updates = reconcile();
        const auto t1 = Clock::now();
        if (updates == 0) throw std::runtime_error("the new file was not synced");
        return std::chrono::duration<double, std::micro>(t1 - t0).count();
    }

private:
    std::string path_of(int i) const {
        return root_ + "/src/pkg" + std::to_string(i % 97) + "/file" + std::to_string(i) + ".go";
    }

    void must(const std::string &json) {
        const auto r = engine_.upsert(json);
        if (!r.admission.accepted) throw std::runtime_error(r.admission.message);
    }

    void push_event(const std::vector<std::string> &files) {
        ++clock_;
        std::string seen;
        for (const auto &f : files) seen += (seen.empty() ? "" : ",") + json_string(f);
        events_.push_back(R"({"time":")" + at_micros(clock_).format() + R"(","seenFiles":[)" + seen + "]}");
        // Tilt's FileWatch keeps its 20 newest events.
        if (events_.size() > 20) events_.erase(events_.begin());
        std::string all;
        for (const auto &e : events_) all += (all.empty() ? "" : ",") + e;
        must(R"({"kind":"FileWatch","metadata":{"name":"fw"},"status":{"fileEvents":[)" + all + "]}}");
    }

    std::size_t reconcile() {
        ++clock_;
        auto begun = engine_.begin("lu", at_micros(clock_));
        std::size_t updates = 0;
        Step step = std::move(begun.step);
        while (step.update) {
            ++updates;
            step = begun.session->resume_batch({updater::Outcome{}}, at_micros(clock_));
        }
        return updates;
    }

    std::string root_;
    Engine engine_;
    std::int64_t clock_ = 1'000'000;
    std::vector<std::string> events_;
};

double measure(const std::string &root, int containers, int seen) {
    Scenario s(root, containers);
    s.seed(seen);
    std::vector<double> samples;
    const int rounds = containers == 1 ? 400 : 60;
    samples.reserve(rounds);
    for (int i = 0; i < rounds; ++i) samples.push_back(s.one_new_file(10'000'000 + i));
    return lu_bench::median(samples);
}

double bytes_per_tracked_path(int count) {
    std::vector<std::string> paths;
    paths.reserve(count);
    for (int i = 0; i < count; ++i)
        paths.push_back("/home/dev/project/src/pkg" + std::to_string(i % 97) + "/file" + std::to_string(i) + ".go");
    const auto before = mallinfo2().uordblks;
    {
        PathTimeIndex idx;
        for (int i = 0; i < count; ++i) idx.record(paths[i], common::MicroTime(i));
        const auto after = mallinfo2().uordblks;
        return static_cast<double>(after - before) / count;
    }
}

}  // namespace

int main() {
    try {
        const auto root = std::filesystem::temp_directory_path() / "lu-plugin-bench";
        std::filesystem::create_directories(root / "src");
        std::printf("plugin_bench: one reconcile with one new file event (median microseconds)\n");
        std::printf("%-12s %12s %12s %12s %16s\n", "containers", "seen=100", "seen=10k", "seen=100k", "100k/100 ratio");
        int status = 0;
        for (const int containers : {1, 50}) {
            const double t100 = measure(root.string(), containers, 100);
            const double t10k = measure(root.string(), containers, 10'000);
            const double t100k = measure(root.string(), containers, 100'000);
            const double ratio = t100k / t100;
            std::printf("%-12d %12.1f %12.1f %12.1f %16.2f%s\n", containers, t100, t10k, t100k, ratio,
                        ratio <= 2.0 ? "" : "  (above target 2)");
            if (ratio > 2.0) status = 1;
        }
        const double per_path = bytes_per_tracked_path(100'000);
        std::printf("memory per tracked path: %.0f bytes (paths of ~45 characters, both indexes)\n", per_path);
        std::filesystem::remove_all(root);
        return status;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "plugin_bench: %s\n", e.what());
        return 1;
    }
}
