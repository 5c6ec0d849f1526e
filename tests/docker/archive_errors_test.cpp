// The executor's archive path with the real docker and kubernetes updaters
// against the real engine: a file the host cannot read is left out, every
// other file arrives, and the update fails naming it (never a success).
#define BOOST_TEST_MODULE docker_archive_errors
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <mutex>

#include "host/core/executor.hpp"
#include "host/core/host_services.hpp"
#include "host/core/plugin_loader.hpp"
#include "host/core/updater.hpp"
#include "host/core/updater_registry.hpp"
#include "tests/docker/docker_test_support.hpp"
#include "tests/support/temp_dir.hpp"

using namespace liveupdate::host;
using liveupdate::updater::Outcome;
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

// Readable by nobody, root included (procfs checks the mode even for root).
constexpr const char *kUnreadable = "/proc/sys/vm/compact_memory";

using liveupdate::test::TempDir;

struct Run {
    Outcome outcome;
    std::vector<std::string> lines;
};

// One update of a.txt, the unreadable file and c.txt into /app of the container.
Run update_with_an_unreadable_file(const std::string &plugin, const std::string &config, const std::string &via,
                                   const lu_test::TestContainer &c) {
    TempDir tmp;
    std::ofstream(tmp.path() / "a.txt") << "a";
    std::ofstream(tmp.path() / "c.txt") << "c";
    auto services = std::make_shared<UpdaterHostServices>();
    UpdaterRegistry updaters;
    updaters.set(via, std::make_shared<Updater>(UpdaterPlugin::load(plugin), services, config));
    Executor executor(updaters);
    json::object update{
        {"liveUpdate", "lu"},
        {"via", via},
        {"container",
         {{"containerID", c.id()}, {"containerName", c.name()}, {"podName", c.name()}, {"namespace", "dev"}}},
        {"copy", json::array{json::object{{"local", (tmp.path() / "a.txt").string()}, {"container", "/app/a.txt"}},
                             json::object{{"local", kUnreadable}, {"container", "/app/b.txt"}},
                             json::object{{"local", (tmp.path() / "c.txt").string()}, {"container", "/app/c.txt"}}}},
        {"delete", json::array()},
        {"runs", json::array()},
        {"restart", false},
        {"initialSync", false},
        {"filter", json::array()}};
    Run run;
    std::mutex mutex;
    run.outcome = executor.execute(update, [&](liveupdate::common::LogLevel, std::string_view line) {
        std::lock_guard lock(mutex);
        run.lines.emplace_back(line);
    });
    return run;
}

void check_the_readable_files_arrived_and_the_update_failed(const Run &run, const lu_test::TestContainer &c) {
    BOOST_TEST((run.outcome.kind == Outcome::Kind::infra_failure));
    BOOST_TEST(
        run.outcome.message.find(std::string(kUnreadable) + " (cannot open: Permission denied)") != std::string::npos,
        run.outcome.message);
    BOOST_TEST(c.exec("cat /app/a.txt /app/c.txt").output == "ac");
    BOOST_TEST(c.exec("ls /app").output == "a.txt\nc.txt\n");
}

}  // namespace

BOOST_AUTO_TEST_CASE(docker_with_tar_in_the_image) {
    lu_test::TestContainer c("lu-busybox:latest", "sleep 100000");
    const Run run = update_with_an_unreadable_file(LU_DOCKER_UPDATER_PATH, "{}", "docker", c);
    check_the_readable_files_arrived_and_the_update_failed(run, c);
}

BOOST_AUTO_TEST_CASE(docker_through_the_archive_api) {
    lu_test::TestContainer c("lu-notar:2", "/sleep 100000");
    const Run run = update_with_an_unreadable_file(LU_DOCKER_UPDATER_PATH, "{}", "docker", c);
    BOOST_TEST((run.outcome.kind == Outcome::Kind::infra_failure));
    BOOST_TEST(run.outcome.message.find(kUnreadable) != std::string::npos, run.outcome.message);
    BOOST_TEST(lu_test::sh_ok("docker cp " + c.name() + ":/app/a.txt - | tar -xO") == "a");
    BOOST_TEST(lu_test::sh_ok("docker cp " + c.name() + ":/app/c.txt - | tar -xO") == "c");
}

BOOST_AUTO_TEST_CASE(kubernetes_through_kubectl_exec) {
    lu_test::TestContainer c("lu-busybox:latest", "sleep 100000");
    const Run run =
        update_with_an_unreadable_file(LU_KUBERNETES_UPDATER_PATH,
                                       std::string(R"({"exec": "kubectl", "kubectl": ")") + LU_KUBECTL_STANDIN +
                                           R"(", "kubeconfig": ")" + lu_test::no_cluster_kubeconfig() + R"("})",
                                       "kubernetes", c);
    check_the_readable_files_arrived_and_the_update_failed(run, c);
}
