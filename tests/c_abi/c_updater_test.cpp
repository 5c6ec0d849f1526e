// The host drives an updater plugin written in C.
#include <filesystem>
#include <fstream>
#include <mutex>

#define BOOST_TEST_MODULE c_abi_tests
#include <boost/test/unit_test.hpp>

#include "host/core/executor.hpp"
#include "host/core/host_error.hpp"

using namespace liveupdate::host;
using liveupdate::updater::Outcome;
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

struct RecordingRestarts : LocalContainerService {
    std::vector<std::string> restarted;
    bool fail = false;
    void restart(const liveupdate::updater::ContainerRef &container) override {
        if (fail) throw std::runtime_error("process would not stop");
        restarted.emplace_back(container.id);
    }
};

struct Fixture {
    fs::path file = fs::temp_directory_path() / "lu-c-abi-test.txt";
    std::shared_ptr<UpdaterHostServices> services = std::make_shared<UpdaterHostServices>();
    UpdaterRegistry updaters;
    Executor executor{updaters};
    std::vector<std::string> lines;
    std::mutex mutex;
    LogSinkFn log = [this](liveupdate::common::LogLevel, std::string_view line) {
        std::lock_guard lock(mutex);
        lines.emplace_back(line);
    };

    Fixture() {
        std::ofstream(file) << std::string(5000, 'c');
        updaters.set("local", std::make_shared<Updater>(UpdaterPlugin::load(LU_TEST_C_UPDATER), services));
    }
    ~Fixture() { fs::remove(file); }

    json::object update(bool restart, const char *run = "true") const {
        return json::parse(R"({"liveUpdate": "lu", "via": "local",
            "container": {"containerID": "c-7", "containerName": "n", "podName": "", "namespace": "", "root": "/tmp"},
            "copy": [{"local": ")" +
                           file.string() + R"(", "container": "/a.txt"}], "delete": [],
            "runs": [{"args": [")" +
                           std::string(run) + R"("], "echoOff": false}], "restart": )" + (restart ? "true" : "false") +
                           R"(, "initialSync": false, "filter": []})")
            .as_object();
    }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(c_updater, Fixture)

BOOST_AUTO_TEST_CASE(loads_and_reads_the_whole_archive) {
    auto plugin = UpdaterPlugin::load(LU_TEST_C_UPDATER);
    BOOST_TEST(plugin->identity().name == "c-updater");
    const Outcome outcome = executor.execute(update(false), log);
    BOOST_TEST((outcome.kind == Outcome::Kind::ok));
    std::uint64_t expected_bytes = 0;
    write_archive(
        {{file.string(), "/a.txt"}}, liveupdate::common::IgnoreSet{},
        [&](const void *, std::size_t size) { expected_bytes += size; }, log);
    BOOST_TEST_REQUIRE(lines.size() == 1u);
    BOOST_TEST(lines[0] == "c-updater: " + std::to_string(expected_bytes) + " archive bytes for c-7");
}

BOOST_AUTO_TEST_CASE(a_failing_run_is_a_run_failure) {
    const Outcome outcome = executor.execute(update(false, "false"), log);
    BOOST_TEST((outcome.kind == Outcome::Kind::run_failure));
    BOOST_TEST(outcome.exit_code == 1);
    BOOST_TEST(outcome.message == "false failed");
}

BOOST_AUTO_TEST_CASE(restart_goes_through_the_host_extension_when_offered) {
    const Outcome without = executor.execute(update(true), log);
    BOOST_TEST((without.kind == Outcome::Kind::infra_failure));
    BOOST_TEST(without.message == "no local-containers extension");

    auto restarts = std::make_shared<RecordingRestarts>();
    services->set_local_containers(restarts);
    BOOST_TEST((executor.execute(update(true), log).kind == Outcome::Kind::ok));
    BOOST_TEST(restarts->restarted == std::vector<std::string>{"c-7"}, boost::test_tools::per_element());

    restarts->fail = true;
    const Outcome failed = executor.execute(update(true), log);
    BOOST_TEST((failed.kind == Outcome::Kind::infra_failure));
    BOOST_TEST(failed.message == "process would not stop");
}

BOOST_AUTO_TEST_SUITE_END()
