// lu-host up readies a container for its first update once a reconcile's
// status lists it: each container once, off the caller's thread, a failure
// only logged.
#define BOOST_TEST_MODULE container_warm_up
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "host/core/log.hpp"
#include "host/up/container_warm_up.hpp"

using namespace liveupdate::host;
namespace json = boost::json;

namespace {

// Every line of the host's log and of the warm-up's, for a test to wait on.
struct Lines {
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<std::string> lines;

    void add(std::string line) {
        const std::lock_guard lock(mutex);
        lines.push_back(std::move(line));
        changed.notify_all();
    }
    // Waits until a line holds text (the bound only keeps a broken warm-up from hanging the test).
    bool wait_for(const std::string &text) {
        std::unique_lock lock(mutex);
        return changed.wait_for(lock, std::chrono::seconds(30), [&] { return count(text) > 0; });
    }
    std::size_t count(const std::string &text) const {
        std::size_t n = 0;
        for (const auto &l : lines) n += l.find(text) != std::string::npos ? 1 : 0;
        return n;
    }
};

verify::LiveUpdateTargets targets(const std::vector<std::string> &ids) {
    verify::LiveUpdateTargets t;
    t.name = "web";
    t.via = "docker";
    for (const auto &id : ids) t.containers.push_back(verify::RunningContainer{{id, "c-" + id, "", "", ""}, "c-" + id});
    return t;
}

json::value status_listing(const std::vector<std::string> &ids) {
    json::array containers;
    for (const auto &id : ids) containers.push_back(json::object{{"containerID", id}});
    return json::object{{"containers", std::move(containers)}};
}

}  // namespace

BOOST_AUTO_TEST_CASE(each_selected_container_is_prepared_once_and_a_failure_is_only_logged) {
    Lines lines;
    const LogSinkFn previous =
        log::set_sink([&](liveupdate::common::LogLevel, std::string_view l) { lines.add(std::string(l)); });
    UpdaterRegistry updaters;
    updaters.set("docker",
                 std::make_shared<Updater>(UpdaterPlugin::load(LU_TEST_BY_CONTAINER_UPDATER),
                                           std::make_shared<UpdaterHostServices>(), R"({"id-2": "unpreparable"})"));
    std::mutex asked_mutex;
    int asked = 0;
    {
        up::ContainerWarmUp warm_up(
            [&](const std::string &) {
                const std::lock_guard lock(asked_mutex);
                // Discovery found a third container by the second time.
                return ++asked == 1 ? targets({"id-1", "id-2"}) : targets({"id-1", "id-2", "id-3"});
            },
            updaters,
            [&](liveupdate::common::LogLevel, const std::string &lu, const std::string &l) {
                lines.add(lu + ": " + l);
            });
        warm_up.reconciled("web", status_listing({"id-1", "id-2"}));
        BOOST_TEST_REQUIRE(lines.wait_for("prepared id-1"));
        BOOST_TEST_REQUIRE(lines.wait_for("web: Could not prepare container c-id-2 ahead of its first update"));
        // Both tried: the next reconciles queue nothing, until a new container shows.
        warm_up.reconciled("web", status_listing({"id-1", "id-2"}));
        warm_up.reconciled("web", status_listing({"id-1", "id-2", "id-3"}));
        BOOST_TEST_REQUIRE(lines.wait_for("prepared id-3"));
    }
    log::set_sink(previous);
    BOOST_TEST(lines.count("prepared id-1") == 1u);
    BOOST_TEST(lines.count("prepared id-3") == 1u);
    BOOST_TEST(lines.count("Could not prepare container c-id-2") == 1u);
    BOOST_TEST(asked == 2);
}

// A LiveUpdate just removed reconciles to no status at all: nothing to prepare, and no error.
BOOST_AUTO_TEST_CASE(a_reconcile_without_a_status_prepares_nothing) {
    UpdaterRegistry updaters;
    int asked = 0;
    up::ContainerWarmUp warm_up(
        [&](const std::string &) {
            ++asked;
            return targets({});
        },
        updaters, [](liveupdate::common::LogLevel, const std::string &, const std::string &) {});
    for (const json::value &status : {json::value(nullptr), json::value(json::array{}), json::value("gone")})
        BOOST_CHECK_NO_THROW(warm_up.reconciled("web", status));
    BOOST_TEST(asked == 0);
}
