// One change to every replica of a LiveUpdate: the stepVersion 2 protocol run
// concurrently gives the statuses, events and log lines of the stepVersion 1
// protocol run one update at a time, on the same inputs.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "common/json_fields.hpp"
#include "host/core/executor.hpp"
#include "host/core/host_error.hpp"
#include "host/core/plugin_slot.hpp"
#include "host/core/reconcile_driver.hpp"
#include "tests/support/temp_dir.hpp"

using namespace liveupdate::host;
using liveupdate::common::MicroTime;
using liveupdate::test::TempDir;
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

const MicroTime kStart = *MicroTime::parse("2026-01-01T00:00:00.000000Z");
const char *const kImage = "local-registry:12345/web:tag";

std::string pod(int i) {
    const std::string n = std::to_string(i);
    return R"({"name": "pod-)" + n + R"(", "namespace": "default", "containers": [{"name": "main", "image": ")" +
           kImage + R"(", "id": "id-)" + n +
           R"(", "ready": true, "state": {"running": {"startedAt": "2026-01-01T00:00:00.000000Z"}}}]})";
}

std::vector<std::string> objects(const fs::path &root, int pods, const std::string &seen) {
    std::string pod_list;
    for (int i = 1; i <= pods; ++i) pod_list += (i > 1 ? "," : "") + pod(i);
    const std::string r = root.string();
    return {
        R"({"apiVersion": "tilt.dev/v1alpha1", "kind": "FileWatch", "metadata": {"name": "fw"},
            "spec": {"watchedPaths": [")" +
            r + R"("]}, "status": {"fileEvents": [)" + seen + R"(]}})",
        R"({"apiVersion": "tilt.dev/v1alpha1", "kind": "KubernetesApply", "metadata": {"name": "apply"}, "spec": {}, "status": {}})",
        R"({"apiVersion": "tilt.dev/v1alpha1", "kind": "ImageMap", "metadata": {"name": "im"}, "spec": {},
            "status": {"image": "web:tag", "imageFromCluster": ")" +
            std::string(kImage) + R"(", "buildStartTime": "2026-01-01T00:00:00.000000Z"}})",
        R"({"apiVersion": "tilt.dev/v1alpha1", "kind": "KubernetesDiscovery", "metadata": {"name": "disc"}, "spec": {},
            "status": {"monitorStartTime": "2026-01-01T00:00:00.000000Z", "pods": [)" +
            pod_list + R"(]}})",
        R"({"apiVersion": "tilt.dev/v1alpha1", "kind": "LiveUpdate",
            "metadata": {"name": "lu", "annotations": {"tilt.dev/resource": "web"}},
            "spec": {"basePath": ")" +
            r + R"(", "sources": [{"fileWatch": "fw", "imageMap": "im"}],
                     "selector": {"kubernetes": {"discoveryName": "disc", "applyName": "apply", "imageMapName": "im"}},
                     "syncs": [{"localPath": ".", "containerPath": "/app"}], "execs": [{"args": ["make"]}]}})"};
}

std::string seen(const fs::path &root, int events) {
    std::string out;
    for (int i = 1; i <= events; ++i)
        out += std::string(i > 1 ? "," : "") + R"({"time": "2026-01-01T00:00:0)" + std::to_string(i) +
               R"(.000000Z", "seenFiles": [")" + (root / "a.txt").string() + R"("]})";
    return out;
}

// One host: a plugin asked for steps up to max_step_version, updates run
// parallel at a time through the by-container updater.
struct World {
    PluginSlot slot;
    JsonObjectStore store;
    UpdaterRegistry updaters;
    Executor executor{updaters};
    ReconcileDriver driver;

    World(int max_step_version, std::size_t parallel, const std::string &updater_config,
          ReconcileDriver::LiveLogFn live_log = {})
        : slot(LU_TEST_LIVEUPDATE_PLUGIN, kStart, {}, max_step_version),
          driver(
              slot, executor, store, [] { return kStart; }, std::move(live_log), parallel) {
        updaters.set("kubernetes", std::make_shared<Updater>(UpdaterPlugin::load(LU_TEST_BY_CONTAINER_UPDATER),
                                                             std::make_shared<UpdaterHostServices>(), updater_config));
    }

    ReconcileResult reconcile(const std::vector<std::string> &docs) {
        for (const std::string &doc : docs) {
            slot.with_instance([&](const PluginInstance &instance) { return instance.upsert(doc); });
            store.put(json::parse(doc).as_object(), true);
        }
        return driver.reconcile("lu");
    }
};

std::string text_of(const ReconcileResult &r) {
    std::string out = json::serialize(r.status) + "\n";
    for (const auto &e : r.events) out += json::serialize(e) + "\n";
    for (const auto &l : r.log) out += std::string(liveupdate::common::to_string(l.level)) + " " + l.text + "\n";
    return out;
}

struct Fixture {
    TempDir dir{"lu-fanout-test"};
    fs::path root = dir.path();
    Fixture() { std::ofstream(root / "a.txt") << "hi"; }

    // Two changes, each reconciled by both hosts: the results must be the same text.
    void expect_same(int pods, const std::string &updater_config) {
        World sequential(1, 1, updater_config);
        World parallel(LU_STEP_VERSION, kDefaultParallelUpdates, updater_config);
        for (int change = 1; change <= 2; ++change) {
            const auto docs = objects(root, pods, seen(root, change));
            const ReconcileResult one = sequential.reconcile(docs);
            const ReconcileResult all = parallel.reconcile(docs);
            BOOST_TEST(one.updates == static_cast<std::size_t>(pods));
            BOOST_TEST(all.updates == one.updates);
            BOOST_TEST(text_of(all) == text_of(one));
        }
    }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(fanout, Fixture)

BOOST_AUTO_TEST_CASE(every_replica_updated_gives_the_sequential_result) { expect_same(3, "{}"); }

BOOST_AUTO_TEST_CASE(one_replica_failing_its_run_step_gives_the_sequential_result) {
    expect_same(3, R"({"id-2": "run"})");
}

BOOST_AUTO_TEST_CASE(one_paused_replica_gives_the_sequential_result) { expect_same(4, R"({"id-3": "paused"})"); }

BOOST_AUTO_TEST_CASE(a_run_failure_is_per_replica_and_the_others_are_updated) {
    World parallel(LU_STEP_VERSION, kDefaultParallelUpdates, R"({"id-2": "run"})");
    const ReconcileResult r = parallel.reconcile(objects(root, 3, seen(root, 1)));
    const json::array &containers = r.status.at("containers").as_array();
    BOOST_TEST_REQUIRE(containers.size() == 3u);
    BOOST_TEST(liveupdate::common::string_field(containers[0], {"lastExecError"}).empty());
    BOOST_TEST(liveupdate::common::string_field(containers[1], {"lastExecError"}) ==
               "command \"make\" failed with exit code 2");
    BOOST_TEST(liveupdate::common::string_field(containers[2], {"lastExecError"}).empty());
    BOOST_TEST(!r.status.as_object().contains("failed"));
}

BOOST_AUTO_TEST_CASE(an_infra_failure_fails_the_live_update_as_sequentially) {
    World sequential(1, 1, R"({"id-2": "infra"})");
    World parallel(LU_STEP_VERSION, kDefaultParallelUpdates, R"({"id-2": "infra"})");
    const auto docs = objects(root, 3, seen(root, 1));
    const ReconcileResult one = sequential.reconcile(docs);
    const ReconcileResult all = parallel.reconcile(docs);
    BOOST_TEST(one.updates == 2u);  // the sequential host stops there
    BOOST_TEST(all.updates == 3u);  // the third ran alongside
    BOOST_TEST(json::serialize(all.status) == json::serialize(one.status));
    BOOST_TEST(liveupdate::common::string_field(all.status.at("failed"), {"reason"}) == "UpdateFailed");
    BOOST_TEST(all.events.size() == one.events.size());
    for (std::size_t i = 0; i < all.events.size() && i < one.events.size(); ++i)
        BOOST_TEST(json::serialize(all.events[i]) == json::serialize(one.events[i]));
    // What the third container's update wrote is shown, in container order.
    std::string lines;
    for (const auto &l : all.log) lines += l.text + "\n";
    BOOST_TEST(lines.find("[id-2] ran 1 command(s)\n") < lines.find("[id-3] copying"), lines);
}

// The operator's Restarted Events: each container whose update asked for a
// restart and succeeded, not one whose update failed.
BOOST_AUTO_TEST_CASE(a_restart_is_reported_for_each_container_updated) {
    for (const int step_version : {1, LU_STEP_VERSION}) {
        World world(step_version, step_version == 1 ? 1 : kDefaultParallelUpdates, R"({"id-2": "infra"})");
        std::vector<std::string> docs = objects(root, 3, seen(root, 1));
        const std::string execs = R"("execs": [{"args": ["make"]}])";
        docs.back().replace(docs.back().find(execs), execs.size(), R"("restart": "always")");
        const ReconcileResult r = world.reconcile(docs);
        const std::vector<std::string> restarted =
            step_version == 1 ? std::vector<std::string>{"container main of pod pod-1"}  // stops at the failure
                              : std::vector<std::string>{"container main of pod pod-1", "container main of pod pod-3"};
        BOOST_TEST(r.restarted == restarted, "stepVersion " << step_version);
    }
    World no_restart(LU_STEP_VERSION, kDefaultParallelUpdates, "{}");
    BOOST_TEST(no_restart.reconcile(objects(root, 2, seen(root, 1))).restarted.empty());
}

BOOST_AUTO_TEST_CASE(the_updates_of_one_change_run_at_once) {
    // Each update waits until all three are in flight: one after another they never are.
    World parallel(LU_STEP_VERSION, kDefaultParallelUpdates, R"({"barrier": 3})");
    const ReconcileResult r = parallel.reconcile(objects(root, 3, seen(root, 1)));
    BOOST_TEST(!r.status.as_object().contains("failed"), json::serialize(r.status));
    BOOST_TEST(r.updates == 3u);
}

BOOST_AUTO_TEST_CASE(the_threads_of_one_change_serve_the_next) {
    // Each change's three updates are in flight at once, so on three threads;
    // the next change's are on the same three, none started for it.
    World parallel(LU_STEP_VERSION, kDefaultParallelUpdates, R"({"barrier": 3, "threads": true})");
    const auto threads_of = [](const ReconcileResult &r) {
        std::set<std::string> threads;
        for (const auto &l : r.log)
            if (const auto at = l.text.find("] on thread "); at != std::string::npos) threads.insert(l.text.substr(at));
        return threads;
    };
    const ReconcileResult first = parallel.reconcile(objects(root, 3, seen(root, 1)));
    const ReconcileResult second = parallel.reconcile(objects(root, 3, seen(root, 2)));
    BOOST_TEST(!second.status.as_object().contains("failed"), json::serialize(second.status));
    BOOST_TEST(threads_of(first).size() == 3u);
    BOOST_TEST(threads_of(second) == threads_of(first));
}

// What a sink that honours log::HeldLines wrote, one entry per write.
std::vector<std::string> g_writes;
void record_write(std::string_view bytes) { g_writes.emplace_back(bytes); }

BOOST_AUTO_TEST_CASE(the_lines_of_one_changes_updates_go_out_in_one_write) {
    g_writes.clear();
    World parallel(LU_STEP_VERSION, kDefaultParallelUpdates, "{}",
                   [](const std::string &, liveupdate::common::LogLevel, std::string_view text) {
                       const std::string line = std::string(text) + "\n";
                       if (!log::held(line, &record_write)) record_write(line);
                   });
    const ReconcileResult r = parallel.reconcile(objects(root, 3, seen(root, 1)));
    BOOST_TEST(!r.status.as_object().contains("failed"), json::serialize(r.status));
    const bool one_write = std::any_of(g_writes.begin(), g_writes.end(), [](const std::string &w) {
        return w.find("[id-1] copying") != std::string::npos && w.find("[id-3] ran") != std::string::npos;
    });
    BOOST_TEST(one_write, g_writes.size() << " writes");
}

BOOST_AUTO_TEST_CASE(too_few_outcomes_are_refused_and_the_session_still_answers) {
    World parallel(LU_STEP_VERSION, kDefaultParallelUpdates, "{}");
    for (const std::string &doc : objects(root, 3, seen(root, 1)))
        parallel.slot.with_instance([&](const PluginInstance &instance) { return instance.upsert(doc); });
    parallel.slot.with_instance([&](const PluginInstance &instance) {
        PluginInstance::FirstStep opened = instance.reconcile_begin("lu", kStart);
        BOOST_TEST_REQUIRE(liveupdate::common::string_field(opened.step, {"type"}) == "updates");
        BOOST_TEST(opened.step.at("updates").as_array().size() == 3u);
        const json::value two = json::parse(R"({"outcomes": [{"ok": true}, {"ok": true}]})");
        try {
            opened.session->continue_with(two, kStart);
            BOOST_FAIL("two outcomes for three updates were taken");
        } catch (const PluginCallError &error) {
            BOOST_TEST(std::string(error.what()).find("expected 3 outcomes, got 2") != std::string::npos, error.what());
        }
        // Up to the first infrastructure failure is enough: the fold stops there.
        const json::value stopped = json::parse(R"({"outcomes": [{"ok": true}, {"infraFailure": "gone"}]})");
        const json::object done = opened.session->continue_with(stopped, kStart);
        BOOST_TEST(liveupdate::common::string_field(done, {"type"}) == "done");
        BOOST_TEST(liveupdate::common::string_field(done.at("status").at("failed"), {"reason"}) == "UpdateFailed");
        return 0;
    });
}

BOOST_AUTO_TEST_SUITE_END()
