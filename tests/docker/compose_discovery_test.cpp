// Docker Compose discovery against the real engine: statuses follow a service's
// container through start, restart, stop and re-creation.
#define BOOST_TEST_MODULE compose_discovery
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <vector>

#include "host/compose_discovery/compose_discovery.hpp"
#include "tests/docker/docker_test_support.hpp"

using namespace liveupdate::host::compose_discovery;
using lu_test::sh;
using lu_test::sh_ok;
namespace json = boost::json;

namespace {

// Collects what the discovery reports and lets the test wait for a status.
class Recorder {
public:
    void on_status(const std::string &name, const json::object &status) {
        std::lock_guard lock(mutex_);
        reports_.emplace_back(name, status);
        changed_.notify_all();
    }
    void on_warning(std::string_view text) {
        std::lock_guard lock(mutex_);
        warnings_.emplace_back(text);
        changed_.notify_all();
    }
    // The first status for name, reported from now on, that satisfies pred;
    // fails the test when none comes within a generous bound.
    json::object wait_for(const std::string &name, const std::function<bool(const json::object &)> &pred) {
        std::unique_lock lock(mutex_);
        json::object found;
        const bool ok = changed_.wait_for(lock, std::chrono::seconds(30), [&] {
            for (std::size_t i = seen_; i < reports_.size(); ++i)
                if (reports_[i].first == name && pred(reports_[i].second)) {
                    found = reports_[i].second;
                    seen_ = i + 1;
                    return true;
                }
            return false;
        });
        BOOST_TEST_REQUIRE(ok, "no matching status for " << name);
        return found;
    }
    bool wait_for_warning(const std::string &needle) {
        std::unique_lock lock(mutex_);
        return changed_.wait_for(lock, std::chrono::seconds(30), [&] {
            for (const auto &w : warnings_)
                if (w.find(needle) != std::string::npos) return true;
            return false;
        });
    }

private:
    std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<std::pair<std::string, json::object>> reports_;
    std::vector<std::string> warnings_;
    std::size_t seen_ = 0;
};

std::string str(const json::object &o, const char *key) {
    const auto *v = o.if_contains(key);
    return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

const json::object &state_of(const json::object &status) {
    static const json::object empty;
    const auto *s = status.if_contains("containerState");
    return s != nullptr && s->is_object() ? s->as_object() : empty;
}

struct ComposeContainer {
    std::string name;
    std::string id;
    ComposeContainer(const std::string &project, const std::string &service, const std::string &name_,
                     bool oneoff = false)
        : name(name_) {
        id = sh_ok("docker run -d --network none --name " + name + " --label com.docker.compose.project=" + project +
                   " --label com.docker.compose.service=" + service + " --label com.docker.compose.oneoff=" +
                   (oneoff ? "True" : "False") + " lu-busybox:latest sleep 100000");
    }
    ~ComposeContainer() { sh("docker rm -f " + name + " >/dev/null 2>&1"); }
};

std::string unique_project() { return "lu-disc-" + std::to_string(::getpid()); }

}  // namespace

BOOST_AUTO_TEST_CASE(follows_a_service_through_its_container_lifecycle) {
    Recorder rec;
    ComposeDiscovery discovery(
        {}, [&](const std::string &n, const json::object &s) { rec.on_status(n, s); },
        [&](std::string_view w) { rec.on_warning(w); });
    const auto project = unique_project();
    discovery.watch("web", {project, "web"});
    rec.wait_for("web", [](const json::object &s) {
        return !s.contains("containerID") && s.at("replicas").as_array().empty();
    });  // no container yet

    std::string first_id;
    std::string first_start;
    {
        ComposeContainer c(project, "web", project + "-web-1");
        // A one-off container of the same service never stands for it.
        ComposeContainer oneoff(project, "web", project + "-web-run-1", true);
        const auto running =
            rec.wait_for("web", [](const json::object &s) { return str(state_of(s), "status") == "running"; });
        first_id = str(running, "containerID");
        first_start = str(state_of(running), "startedAt");
        BOOST_TEST(first_id == c.id);
        BOOST_TEST(str(running, "containerName") == c.name);
        BOOST_TEST(running.at("replicas").as_array().size() == 1u);  // the one-off is no replica
        BOOST_TEST(state_of(running).at("running").as_bool());
        BOOST_TEST(first_start.size() == std::string("2026-01-01T00:00:00.000000Z").size());
        BOOST_TEST(!state_of(running).contains("finishedAt"));

        sh_ok("docker restart -t 0 " + c.name);
        const auto restarted = rec.wait_for("web", [&](const json::object &s) {
            return str(state_of(s), "status") == "running" && str(state_of(s), "startedAt") != first_start;
        });
        BOOST_TEST(str(restarted, "containerID") == first_id);  // restarted in place

        sh_ok("docker stop -t 0 " + c.name);
        const auto stopped =
            rec.wait_for("web", [](const json::object &s) { return str(state_of(s), "status") == "exited"; });
        BOOST_TEST(!state_of(stopped).contains("running"));
        BOOST_TEST(state_of(stopped).at("exitCode").as_int64() == 137);
        BOOST_TEST(!str(state_of(stopped), "finishedAt").empty());
    }
    // Re-created: a new container stands for the service.
    ComposeContainer again(project, "web", project + "-web-1");
    const auto recreated =
        rec.wait_for("web", [](const json::object &s) { return str(state_of(s), "status") == "running"; });
    BOOST_TEST(str(recreated, "containerID") == again.id);
    BOOST_TEST(str(recreated, "containerID") != first_id);
    BOOST_TEST(discovery.status("web").has_value());
}

BOOST_AUTO_TEST_CASE(other_services_do_not_disturb_and_unwatch_stops_reports) {
    Recorder rec;
    ComposeDiscovery discovery(
        {}, [&](const std::string &n, const json::object &s) { rec.on_status(n, s); },
        [&](std::string_view w) { rec.on_warning(w); });
    const auto project = unique_project() + "-b";
    ComposeContainer api(project, "api", project + "-api-1");
    discovery.watch("api", {project, "api"});
    discovery.watch("db", {project, "db"});
    const auto api_status = rec.wait_for("api", [](const json::object &s) { return s.contains("containerID"); });
    BOOST_TEST(str(api_status, "containerID") == api.id);
    rec.wait_for("db", [](const json::object &s) { return !s.contains("containerID"); });
    discovery.unwatch("api");
    BOOST_TEST(!discovery.status("api").has_value());
}

BOOST_AUTO_TEST_CASE(an_unreachable_engine_is_a_warning_not_a_hang) {
    Recorder rec;
    {
        ComposeDiscovery discovery(
            {"unix:///nonexistent/docker.sock", "", std::chrono::milliseconds(2000), std::chrono::milliseconds(200)},
            [&](const std::string &n, const json::object &s) { rec.on_status(n, s); },
            [&](std::string_view w) { rec.on_warning(w); });
        discovery.watch("web", {"p", "web"});
        BOOST_TEST(rec.wait_for_warning("cannot connect to the Docker daemon at unix:///nonexistent/docker.sock"));
        BOOST_TEST(!discovery.status("web").has_value());
    }  // the destructor returns: CTest's timeout would catch a hang
}

BOOST_AUTO_TEST_CASE(an_unusable_docker_host_in_the_environment_is_a_warning) {
    Recorder rec;
    ::setenv("DOCKER_HOST", "npipe:////./pipe/docker_engine", 1);
    ComposeDiscovery discovery(
        {}, [&](const std::string &n, const json::object &s) { rec.on_status(n, s); },
        [&](std::string_view w) { rec.on_warning(w); });
    ::unsetenv("DOCKER_HOST");
    discovery.watch("web", {"p", "web"});
    BOOST_TEST(rec.wait_for_warning(
        "DOCKER_HOST: docker host 'npipe:////./pipe/docker_engine': scheme 'npipe' is not supported"));
    ComposeDiscovery::Options bad;
    bad.docker_host = "ssh://box";
    BOOST_CHECK_THROW(ComposeDiscovery(bad, nullptr, nullptr), std::invalid_argument);
}
