// Reloading the liveupdate plugin in process: state survives, and a new file
// that is incompatible, truncated, of the wrong kind or refuses the snapshot
// leaves the old plugin serving. The real plugin and real broken builds.
#include <fstream>
#include <future>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include <boost/test/unit_test.hpp>

#include "host/core/executor.hpp"
#include "host/core/host_error.hpp"
#include "host/core/plugin_slot.hpp"
#include "host/core/reconcile_driver.hpp"
#include "host/core/updater_registry.hpp"
#include "host/reload/plugin_reloader.hpp"
#include "tests/reload/reload_test_support.hpp"
#include "tests/support/tilt_objects.hpp"

using namespace liveupdate;
using namespace liveupdate::host;
using namespace reload_test;
using namespace liveupdate::test;
using host::reload::PluginReloader;
using host::reload::QuiesceGate;
using namespace std::chrono_literals;

namespace {

struct Fixture {
    TempDir dir;
    fs::path plugin_file = dir / "libliveupdate.so";
    fs::path src = dir / "src";
    std::optional<PluginSlot> slot;
    QuiesceGate gate;
    std::shared_ptr<UpdaterHostServices> services = std::make_shared<UpdaterHostServices>();
    UpdaterRegistry updaters;
    std::optional<Executor> executor;
    JsonObjectStore store;
    std::optional<ReconcileDriver> driver;
    std::vector<FileEvent> events;

    Fixture() {
        fs::copy_file(LU_TEST_LIVEUPDATE_PLUGIN, plugin_file);
        fs::create_directories(src);
        slot.emplace(plugin_file, kStart, PluginLoadOptions{.private_copy = true});
        updaters.set("docker", std::make_shared<Updater>(UpdaterPlugin::load(LU_TEST_RECORD_UPDATER), services));
        executor.emplace(updaters);
        driver.emplace(*slot, *executor, store, [] { return at_micros(1'000'000'000); });
        upsert(file_watch(src.string(), events));
        upsert(compose_service("web"));
        upsert(live_update("lu", "web", src.string()));
        store.put(boost::json::parse(live_update("lu", "web", src.string())).as_object(), true);
    }

    void upsert(const std::string &object) {
        const auto result =
            slot->with_instance([&](const PluginInstance &instance) { return instance.upsert(object); });
        BOOST_TEST_REQUIRE(result.at("accepted").as_bool(), boost::json::serialize(result));
    }

    // A new file, its event, and one reconcile: the count of updates it caused.
    std::size_t change(const std::string &name) {
        write_file(src / name, name);
        events.push_back(
            FileEvent{at_micros(static_cast<std::int64_t>(events.size() + 1) * 1000), {(src / name).string()}});
        upsert(file_watch(src.string(), events));
        return driver->reconcile("lu").updates;
    }

    std::string snapshot() const {
        return slot->with_instance([](const PluginInstance &instance) { return instance.snapshot(); });
    }
};

// The private copies of plugins this process has mapped.
std::set<std::string> mapped_private_copies() {
    std::set<std::string> copies;
    std::ifstream maps("/proc/self/maps");
    for (std::string line; std::getline(maps, line);) {
        if (const auto at = line.find("/lu-host-plugin-"); at != std::string::npos) {
            copies.insert(line.substr(line.find('/')));
        }
    }
    return copies;
}

// The message of the exception reload throws (fails the test when none).
template <typename Error>
std::string refusal(PluginReloader &reloader, const fs::path &file) {
    try {
        reloader.reload(file);
    } catch (const Error &e) {
        return e.what();
    }
    BOOST_FAIL("the reload was not refused");
    return "";
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(plugin_reloader, Fixture)

BOOST_AUTO_TEST_CASE(reload_keeps_every_tracked_state) {
    BOOST_TEST(change("a.txt") == 1u);
    const std::string before = snapshot();
    PluginReloader reloader(*slot, gate);
    const host::reload::PluginReloadTimes times = reloader.reload(plugin_file);
    BOOST_TEST(snapshot() == before);
    BOOST_TEST((times.pause <= times.total));
    // Nothing is resynced, and what changes next is synced.
    BOOST_TEST(driver->reconcile("lu").updates == 0u);
    BOOST_TEST(change("b.txt") == 1u);
    BOOST_TEST(slot->identity().name == "liveupdate");
}

BOOST_AUTO_TEST_CASE(the_old_plugin_is_unloaded_after_the_swap_off_the_reloading_thread) {
    BOOST_TEST(change("a.txt") == 1u);
    const std::set<std::string> before = mapped_private_copies();
    BOOST_TEST_REQUIRE(before.size() == 1u);
    PluginReloader reloader(*slot, gate);
    reloader.reload(plugin_file);
    // Service goes on at once while the old engine is torn down.
    BOOST_TEST(change("b.txt") == 1u);
    reloader.wait_retired();
    const std::set<std::string> after = mapped_private_copies();
    BOOST_TEST_REQUIRE(after.size() == 1u);
    BOOST_TEST(*after.begin() != *before.begin());
    BOOST_TEST(!fs::exists(*before.begin()));
    BOOST_TEST((reloader.wait_retired() == 0us));  // nothing left retiring
}

BOOST_AUTO_TEST_CASE(a_plugin_of_another_abi_is_refused_and_the_old_one_serves) {
    BOOST_TEST(change("a.txt") == 1u);
    copy_over(LU_TEST_FUTURE_ABI_LIVEUPDATE, plugin_file);
    PluginReloader reloader(*slot, gate);
    const std::string error = refusal<PluginLoadError>(reloader, plugin_file);
    BOOST_TEST(error == "cannot load plugin: " + plugin_file.string() +
                            ": plugin liveupdate-next serves ABI 2..3, host needs 1");
    BOOST_TEST(slot->identity().name == "liveupdate");
    BOOST_TEST(driver->reconcile("lu").updates == 0u);
    BOOST_TEST(change("b.txt") == 1u);
}

BOOST_AUTO_TEST_CASE(a_truncated_file_is_refused_and_the_old_one_serves) {
    BOOST_TEST(change("a.txt") == 1u);
    truncated_copy_over(LU_TEST_LIVEUPDATE_PLUGIN, plugin_file);
    PluginReloader reloader(*slot, gate);
    const std::string error = refusal<PluginLoadError>(reloader, plugin_file);
    BOOST_TEST(
        error.find("cannot load plugin: " + plugin_file.string() + ": truncated: a load segment ends at byte") == 0u,
        error);
    BOOST_TEST(change("b.txt") == 1u);
    // Once the build completes, the reload goes through.
    copy_over(LU_TEST_LIVEUPDATE_PLUGIN, plugin_file);
    reloader.reload(plugin_file);
    BOOST_TEST(driver->reconcile("lu").updates == 0u);
    BOOST_TEST(change("c.txt") == 1u);
}

BOOST_AUTO_TEST_CASE(a_plugin_whose_restore_fails_is_refused_and_the_old_one_serves) {
    BOOST_TEST(change("a.txt") == 1u);
    const std::string before = snapshot();
    copy_over(LU_TEST_RESTORE_FAILS_LIVEUPDATE, plugin_file);
    PluginReloader reloader(*slot, gate);
    const std::string error = refusal<PluginCallError>(reloader, plugin_file);
    BOOST_TEST(error == "restore failed: plugin " + plugin_file.string() +
                            ": unsupported: snapshot version not supported by this test plugin");
    BOOST_TEST(slot->identity().name == "liveupdate");
    BOOST_TEST(snapshot() == before);
    BOOST_TEST(change("b.txt") == 1u);
}

BOOST_AUTO_TEST_CASE(an_updater_plugin_in_its_place_is_refused) {
    copy_over(LU_TEST_LOCAL_UPDATER, plugin_file);
    PluginReloader reloader(*slot, gate);
    const std::string error = refusal<PluginLoadError>(reloader, plugin_file);
    BOOST_TEST(error ==
               "cannot load plugin: " + plugin_file.string() + ": missing entry symbol lu_liveupdate_plugin_entry");
    BOOST_TEST(change("a.txt") == 1u);
}

BOOST_AUTO_TEST_CASE(reload_waits_for_the_reconcile_in_flight_and_holds_new_ones) {
    PluginReloader reloader(*slot, gate);
    std::optional<QuiesceGate::Pass> in_flight(gate.enter());
    auto reloaded = std::async(std::launch::async, [&] { return reloader.reload(plugin_file); });
    // Once the reload closes the gate (the new engine prepared), it waits for
    // the pass in flight however long that takes: it drains at least for as
    // long as the pass is held after closing began.
    while (gate.closers() == 0u && reloaded.wait_for(0s) == std::future_status::timeout) std::this_thread::yield();
    const auto closing_seen = QuiesceGate::Clock::now();
    BOOST_TEST_REQUIRE((reloaded.wait_for(0s) == std::future_status::timeout));
    std::this_thread::sleep_for(20ms);  // a drain long enough to tell from none (not a timing check)
    const auto left = QuiesceGate::Clock::now();
    in_flight.reset();
    const host::reload::PluginReloadTimes times = reloaded.get();
    BOOST_TEST((times.drain >= std::chrono::duration_cast<std::chrono::microseconds>(left - closing_seen)));
    BOOST_TEST((times.pause >= times.drain));
}

// A large state (an indexed snapshot) is decoded after the swap, while
// reconciles already run: each finds its LiveUpdate's state whoever decoded it.
BOOST_AUTO_TEST_CASE(a_large_state_is_decoded_while_reconciles_run) {
    constexpr int kLiveUpdates = 48;
    std::vector<std::string> names;
    for (int i = 0; i < kLiveUpdates; ++i) {
        names.push_back("lu" + std::to_string(i));
        upsert(compose_service("web" + std::to_string(i)));
        upsert(live_update(names.back(), "web" + std::to_string(i), src.string()));
        store.put(boost::json::parse(live_update(names.back(), "web" + std::to_string(i), src.string())).as_object(),
                  true);
    }
    BOOST_TEST(change("a.txt") == 1u);
    for (const auto &name : names) BOOST_TEST(driver->reconcile(name).updates == 1u);
    const std::string before = snapshot();
    BOOST_TEST_REQUIRE(before.find("\"liveUpdatesIndex\":") != std::string::npos);

    PluginReloader reloader(*slot, gate);
    reloader.reload(plugin_file);
    // Two workers, from the end and from the start, against the engine's own thread.
    auto from_the_end = std::async(std::launch::async, [&] {
        std::size_t resynced = 0;
        for (auto it = names.rbegin(); it != names.rend(); ++it) resynced += driver->reconcile(*it).updates;
        return resynced;
    });
    std::size_t resynced = 0;
    for (const auto &name : names) resynced += driver->reconcile(name).updates;
    BOOST_TEST(resynced + from_the_end.get() == 0u);  // H01: nothing is synced again
    BOOST_TEST(driver->reconcile("lu").updates == 0u);
    BOOST_TEST(change("b.txt") == 1u);
    for (const auto &name : names) BOOST_TEST(driver->reconcile(name).updates == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
