// The host machinery with the real liveupdate plugin and the record updater.
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

#include <boost/test/unit_test.hpp>

#include "common/json_fields.hpp"
#include "host/core/executor.hpp"
#include "host/core/host_error.hpp"
#include "host/core/plugin_message.hpp"
#include "host/core/plugin_slot.hpp"
#include "host/core/reconcile_driver.hpp"
#include "liveupdate/ext/record.h"
#include "liveupdate/liveupdate.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/tilt_objects.hpp"

using namespace liveupdate::host;
using liveupdate::common::MicroTime;
using namespace liveupdate::test;
using liveupdate::updater::Outcome;
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

struct Fixture {
    TempDir dir{"lu-plugin-instance-test"};
    fs::path root = dir.path();
    std::shared_ptr<UpdaterHostServices> services = std::make_shared<UpdaterHostServices>();
    std::shared_ptr<Updater> record = std::make_shared<Updater>(UpdaterPlugin::load(LU_TEST_RECORD_UPDATER), services);
    UpdaterRegistry updaters;

    Fixture() {
        std::ofstream(root / "a.txt") << "hi";
        updaters.set("docker", record);
    }

    json::array take_calls() const {
        auto *ext = static_cast<const lu_record_extension *>(record->extension(LU_RECORD_EXTENSION_ID));
        BOOST_TEST_REQUIRE(ext != nullptr);
        PluginMessage calls(record->plugin().api().free_message);
        BOOST_TEST_REQUIRE(ext->take_calls(record->handle(), calls.out()) == LU_OK);
        return json::parse(calls.view()).as_array();
    }
};

bool accepted(const json::object &result) { return result.at("accepted").as_bool(); }

}  // namespace

BOOST_FIXTURE_TEST_SUITE(plugin_instance, Fixture)

BOOST_AUTO_TEST_CASE(admission_accepts_and_rejects_with_the_field) {
    PluginInstance instance(LiveUpdatePlugin::load(LU_TEST_LIVEUPDATE_PLUGIN), kStart);
    BOOST_TEST(accepted(instance.upsert(live_update("lu", "svc", root.string(), "/app", {"make"}))));
    const json::object rejected = instance.validate(live_update("bad", "svc", root.string(), "relative", {"make"}));
    BOOST_TEST(!accepted(rejected));
    BOOST_TEST(liveupdate::common::string_field(rejected, {"message"}).find("spec.syncs[0]") != std::string::npos);
    BOOST_TEST(!accepted(instance.upsert("{not json")));
}

BOOST_AUTO_TEST_CASE(the_executor_hands_the_archive_and_runs_to_the_updater) {
    Executor executor(updaters);
    std::vector<std::string> lines;
    std::mutex mutex;
    const LogSinkFn log = [&](liveupdate::common::LogLevel, std::string_view line) {
        std::lock_guard lock(mutex);
        lines.emplace_back(line);
    };
    const json::object update = json::parse(R"({"liveUpdate": "lu", "via": "docker",
        "container": {"containerID": "c1", "containerName": "web", "podName": "", "namespace": ""},
        "copy": [{"local": ")" + (root / "a.txt").string() +
                                            R"(", "container": "/app/a.txt"}],
        "delete": ["/app/old.txt"], "runs": [{"args": ["make", "all"], "echoOff": false}],
        "restart": false, "initialSync": false, "filter": []})")
                                    .as_object();
    const Outcome outcome = executor.execute(update, log);
    BOOST_TEST((outcome.kind == Outcome::Kind::ok));
    BOOST_TEST((lines == std::vector<std::string>{"[CMD 1/1] make all"}), boost::test_tools::per_element());
    const json::array calls = take_calls();
    BOOST_TEST_REQUIRE(calls.size() == 1u);
    BOOST_TEST(json::serialize(calls[0].at("archive")) == R"(["app/a.txt"])");
    BOOST_TEST(json::serialize(calls[0].at("delete")) == R"(["/app/old.txt"])");

    json::object unserved = update;
    unserved["via"] = "kubernetes";
    const Outcome none = executor.execute(unserved, log);
    BOOST_TEST((none.kind == Outcome::Kind::infra_failure));
    BOOST_TEST(none.message == "no updater serves \"kubernetes\"");

    json::object malformed = update;
    malformed["copy"] = "nope";
    BOOST_TEST((executor.execute(malformed, log).kind == Outcome::Kind::infra_failure));

    // A misspelt key is a missing one: the update fails naming it, and no updater is called.
    json::object misspelt = update;
    json::object &container = misspelt["container"].as_object();
    container["containerId"] = container["containerID"];
    container.erase("containerID");
    const Outcome refused = executor.execute(misspelt, log);
    BOOST_TEST((refused.kind == Outcome::Kind::infra_failure));
    BOOST_TEST(refused.message == "malformed update step: update.container.containerID: missing");
    BOOST_TEST(take_calls().empty());
}

// A whole sync into a container sync back could not read (docs/sync-back.md,
// "A whole forward sync"): the agreed file it leaves is neither carried nor
// deleted by a folder's delete, and not said to be a change that comes back.
BOOST_AUTO_TEST_CASE(a_whole_sync_neither_carries_nor_deletes_an_unread_file) {
    SyncedJournals journals((root / "journals").string());
    journals.journal(SyncedKey::of("lu", "docker", "c1", ""))->add({"/app/gen/lock.json"});
    const ForwardSyncBackFn sync_back = [](const liveupdate::update_step::ContainerUpdate &) {
        ForwardSyncBack out;
        out.comes_back = [](const std::string &path) { return path.ends_with("lock.json"); };
        out.left_alone = [](const liveupdate::update_step::ContainerUpdate &, const SyncedJournal &,
                            const LogSinkFn &) {
            return std::vector<LeftAlone>{{.container_path = "/app/gen/lock.json",
                                           .local_path = "/nonexistent/gen/lock.json",
                                           .container_changed = false,
                                           .unread = true}};
        };
        return out;
    };
    Executor executor(updaters, &journals, sync_back);
    std::vector<std::string> lines;
    std::mutex mutex;
    const LogSinkFn log = [&](liveupdate::common::LogLevel, std::string_view line) {
        std::lock_guard lock(mutex);
        lines.emplace_back(line);
    };
    const json::object update = json::parse(R"({"liveUpdate": "lu", "via": "docker",
        "container": {"containerID": "c1", "containerName": "web", "podName": "", "namespace": ""},
        "copy": [{"local": ")" + (root / "a.txt").string() +
                                            R"(", "container": "/app/a.txt"}],
        "delete": ["/app/gen", "/app/old.txt"], "runs": [],
        "restart": false, "initialSync": true, "filter": []})")
                                    .as_object();
    const Outcome outcome = executor.execute(update, log);
    BOOST_TEST((outcome.kind == Outcome::Kind::ok), outcome.message);
    const json::array calls = take_calls();
    BOOST_TEST_REQUIRE(calls.size() == 1u);
    BOOST_TEST(json::serialize(calls[0].at("delete")) == R"(["/app/old.txt"])");
    for (const std::string &line : lines) BOOST_TEST(line.find("left to come back") == std::string::npos, line);
}

BOOST_AUTO_TEST_CASE(reload_keeps_state_and_a_refused_plugin_keeps_the_old_one) {
    PluginSlot slot(LU_TEST_LIVEUPDATE_PLUGIN, kStart);
    slot.with_instance([&](const PluginInstance &instance) {
        instance.upsert(file_watch(root.string(), {{at_micros(1'000'000), {root.string() + "/a.txt"}}}));
        instance.upsert(compose_service("svc", "c1"));
        return instance.upsert(live_update("lu", "svc", root.string(), "/app", {"make"}));
    });
    JsonObjectStore store;
    store.put(json::parse(live_update("lu", "svc", root.string(), "/app", {"make"})).as_object(), true);
    Executor executor(updaters);
    ReconcileDriver driver(slot, executor, store, [] { return kStart; });

    slot.reload();
    BOOST_CHECK_THROW(slot.reload(LU_TEST_WRONG_ABI_PLUGIN), PluginLoadError);
    BOOST_TEST(slot.plugin_file() == LU_TEST_LIVEUPDATE_PLUGIN);

    // The objects upserted before both reloads are still there: the file is synced.
    ReconcileResult first = driver.reconcile("lu");
    BOOST_TEST(first.updates == 1u);
    BOOST_TEST(first.status_written);
    BOOST_TEST(take_calls().size() == 1u);
    slot.reload();
    ReconcileResult second = driver.reconcile("lu");
    BOOST_TEST(second.updates == 0u);
    BOOST_TEST(!second.status_written);
    BOOST_TEST(store.status_writes(ObjectKey{"LiveUpdate", "lu"}) == 1u);
}

BOOST_AUTO_TEST_CASE(different_live_updates_reconcile_concurrently) {
    PluginSlot slot(LU_TEST_LIVEUPDATE_PLUGIN, kStart);
    JsonObjectStore store;
    constexpr int kCount = 8;
    slot.with_instance([&](const PluginInstance &instance) {
        instance.upsert(file_watch(root.string(), {{at_micros(1'000'000), {root.string() + "/a.txt"}}}));
        for (int i = 0; i < kCount; ++i) {
            const std::string n = std::to_string(i);
            instance.upsert(compose_service("svc" + n, "c" + n));
            BOOST_TEST_REQUIRE(
                accepted(instance.upsert(live_update("lu" + n, "svc" + n, root.string(), "/app", {"make"}))));
            store.put(json::parse(live_update("lu" + n, "svc" + n, root.string(), "/app", {"make"})).as_object(), true);
        }
        return 0;
    });
    Executor executor(updaters);
    // Each reconcile's first line waits until every reconcile has logged one:
    // all kCount are in flight at once, which one after another never are.
    // (The bound only keeps a serialized driver from hanging the test.)
    std::mutex barrier_mutex;
    std::condition_variable barrier_changed;
    std::set<std::string> arrived;
    bool one_waited_alone = false;
    const ReconcileDriver::LiveLogFn barrier = [&](const std::string &live_update, liveupdate::common::LogLevel,
                                                   std::string_view) {
        std::unique_lock lock(barrier_mutex);
        if (!arrived.insert(live_update).second) return;
        barrier_changed.notify_all();
        if (!barrier_changed.wait_for(lock, std::chrono::seconds(60),
                                      [&] { return arrived.size() == static_cast<std::size_t>(kCount); }))
            one_waited_alone = true;
    };
    const ReconcileDriver::Clock clock = [] { return kStart; };
    ReconcileDriver driver(slot, executor, store, clock, barrier);
    std::vector<ReconcileResult> results(kCount);
    std::vector<std::thread> threads;
    threads.reserve(kCount);
    for (int i = 0; i < kCount; ++i) {
        threads.emplace_back([&, i] { results[i] = driver.reconcile("lu" + std::to_string(i)); });
    }
    for (auto &t : threads) t.join();
    BOOST_TEST(!one_waited_alone);
    BOOST_TEST(arrived.size() == static_cast<std::size_t>(kCount));
    for (int i = 0; i < kCount; ++i) {
        BOOST_TEST(results[i].updates == 1u);
        BOOST_TEST(results[i].events.size() == 2u);
        BOOST_TEST(store.status_writes(ObjectKey{"LiveUpdate", "lu" + std::to_string(i)}) == 1u);
    }
    BOOST_TEST(take_calls().size() == static_cast<size_t>(kCount));
}

BOOST_AUTO_TEST_SUITE_END()
