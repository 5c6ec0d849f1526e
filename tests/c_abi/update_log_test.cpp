// An updater's log lines reach the LiveUpdate whose update wrote them, from
// whatever thread they were written on (lu_update_request.log), while
// updates of two LiveUpdates run at the same time.
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "host/core/executor.hpp"

using namespace liveupdate::host;
namespace json = boost::json;

namespace {

struct Sink {
    std::mutex mutex;
    std::vector<std::string> lines;
    LogSinkFn fn = [this](liveupdate::common::LogLevel, std::string_view line) {
        std::lock_guard lock(mutex);
        lines.emplace_back(line);
    };
};

json::object update_of(const std::string &live_update) {
    return json::object{
        {"liveUpdate", live_update},
        {"via", "thread-log"},
        {"container",
         json::object{
             {"containerID", "c-" + live_update}, {"containerName", live_update}, {"podName", ""}, {"namespace", ""}}},
        {"copy", json::array()},
        {"delete", json::array()},
        {"runs", json::array()},
        {"restart", false},
        {"initialSync", false},
        {"filter", json::array()}};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(update_log)

BOOST_AUTO_TEST_CASE(lines_from_an_updaters_own_thread_reach_their_live_update) {
    UpdaterRegistry updaters;
    updaters.set("thread-log", std::make_shared<Updater>(UpdaterPlugin::load(LU_TEST_THREAD_LOG_UPDATER),
                                                         std::make_shared<UpdaterHostServices>()));
    const Executor executor(updaters);
    Sink front, back;
    std::vector<std::thread> runs;
    runs.reserve(40);
    for (int round = 0; round < 20; ++round) {
        runs.emplace_back([&] { executor.execute(update_of("front"), front.fn); });
        runs.emplace_back([&] { executor.execute(update_of("back"), back.fn); });
    }
    for (std::thread &run : runs) run.join();
    BOOST_TEST(front.lines == std::vector<std::string>(20, "worker thread of front"), boost::test_tools::per_element());
    BOOST_TEST(back.lines == std::vector<std::string>(20, "worker thread of back"), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
