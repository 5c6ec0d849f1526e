// What the plugin tells verify of a LiveUpdate (core/sync_targets.hpp): the
// updater class, the running containers its selector picks, each sync rule
// as a whole and the initial sync's filter, or why it cannot tell.
#include <boost/test/unit_test.hpp>

#include <map>
#include <string>
#include <variant>

#include "common/builtin_ignores.hpp"
#include "plugin/core/sync_targets.hpp"
#include "tests/support/temp_dir.hpp"

using namespace liveupdate;
namespace json = boost::json;

namespace {

struct Objects {
    test::TempDir dir;
    std::map<std::pair<api::Kind, std::string>, api::ObjectPtr> held;

    void add(const std::string &text) {
        auto object = std::make_shared<const api::ApiObject>(api::decode_api_object(json::parse(text)));
        held[{object->kind, object->meta.name}] = object;
    }
    void live_update(const std::string &selector,
                     const std::string &syncs = R"([{"localPath":"src","containerPath":"/app"}])") {
        add(R"({"kind":"LiveUpdate","metadata":{"name":"lu"},"spec":{"basePath":")" + dir.path().string() +
            R"(","sources":[{"fileWatch":"fw"}],"selector":)" + selector + R"(,"syncs":)" + syncs + "}}");
    }
    void file_watch() {
        add(R"({"kind":"FileWatch","metadata":{"name":"fw"},"spec":{"watchedPaths":[")" + dir.path().string() +
            R"("],"ignores":[{"basePath":")" + dir.path().string() + R"(","patterns":["*.log"]},{"basePath":")" +
            dir.path().string() + R"(/tmp"}]}})");
    }
    std::variant<SyncTargets, SyncTargetsProblem> answer(const std::string &name = "lu") const {
        return sync_targets_of(name, [this](api::Kind kind, const std::string &n) -> api::ObjectPtr {
            auto found = held.find({kind, n});
            return found == held.end() ? nullptr : found->second;
        });
    }
    SyncTargets targets() const {
        auto a = answer();
        if (const auto *p = std::get_if<SyncTargetsProblem>(&a)) BOOST_FAIL("unexpected problem: " + p->message);
        return std::get<SyncTargets>(a);
    }
    SyncTargetsProblem problem(const std::string &name = "lu") const {
        auto a = answer(name);
        BOOST_REQUIRE(std::holds_alternative<SyncTargetsProblem>(a));
        return std::get<SyncTargetsProblem>(a);
    }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(sync_targets, Objects)

BOOST_AUTO_TEST_CASE(a_local_container_with_its_root_and_the_filter_of_its_sources) {
    file_watch();
    add(R"({"kind":"LocalContainer","metadata":{"name":"app"},"spec":{"root":")" + dir.path().string() +
        R"(/rootfs"},"status":{"containerID":"local-1","containerName":"app","containerState":{"status":"running"}}})");
    live_update(R"({"local":{"container":"app"}})");
    const SyncTargets t = targets();
    BOOST_TEST(t.via == "local");
    BOOST_REQUIRE_EQUAL(t.containers.size(), 1u);
    BOOST_TEST((t.containers[0] == updater::ContainerRef{"local-1", "app", "", "", dir.path().string() + "/rootfs"}));
    BOOST_TEST((t.targets == std::vector<updater::CopyMapping>{{dir.path().string() + "/src", "/app"}}));
    const std::vector<common::IgnoreDef> filter{{dir.path().string(), {"*.log"}},
                                                {dir.path().string() + "/tmp", {"**"}},
                                                {"/", common::builtin_ignore_patterns()}};
    BOOST_TEST((t.filter == filter));
}

BOOST_AUTO_TEST_CASE(a_docker_compose_service_and_its_document) {
    file_watch();
    add(R"({"kind":"DockerComposeService","metadata":{"name":"svc"},"status":{"containerID":"c1","containerName":"web","containerState":{"status":"running"}}})");
    live_update(R"({"dockerCompose":{"service":"svc"}})");
    const json::object doc = encode_sync_targets(targets());
    BOOST_TEST(doc.at("via").as_string() == "docker");
    const json::object &c = doc.at("containers").as_array().at(0).as_object();
    BOOST_TEST(c.at("containerID").as_string() == "c1");
    BOOST_TEST(c.at("display").as_string() == "web");
    BOOST_TEST(c.at("root").as_string() == "");
    BOOST_TEST(doc.at("targets").as_array().at(0).as_object().at("container").as_string() == "/app");
    BOOST_TEST(doc.at("filter").as_array().size() == 3u);
}

BOOST_AUTO_TEST_CASE(kubernetes_pods_that_run_and_not_those_that_finished) {
    file_watch();
    add(R"({"kind":"KubernetesDiscovery","metadata":{"name":"disc"},"status":{"pods":[
        {"name":"pod-1","namespace":"ns","phase":"Running","containers":[{"name":"main","image":"img","id":"id-1","state":{"running":{}}}]},
        {"name":"pod-2","namespace":"ns","phase":"Succeeded","containers":[{"name":"main","image":"img","id":"id-2","state":{"running":{}}}]},
        {"name":"pod-3","namespace":"ns","phase":"Running","containers":[{"name":"main","image":"img","id":"id-3","state":{"terminated":{}}}]}]}})");
    live_update(R"({"kubernetes":{"discoveryName":"disc","containerName":"main"}})");
    const SyncTargets t = targets();
    BOOST_TEST(t.via == "kubernetes");
    BOOST_REQUIRE_EQUAL(t.containers.size(), 1u);
    BOOST_TEST((t.containers[0] == updater::ContainerRef{"id-1", "main", "pod-1", "ns", ""}));
    const json::object doc = encode_sync_targets(t);
    BOOST_TEST(doc.at("containers").as_array().at(0).at("display").as_string() == "pod-1/main");
}

BOOST_AUTO_TEST_CASE(a_missing_live_update_is_not_found) {
    const SyncTargetsProblem p = problem("absent");
    BOOST_TEST(p.not_found);
    BOOST_TEST(p.message == "LiveUpdate \"absent\" not found");
}

BOOST_AUTO_TEST_CASE(an_invalid_selector_says_why) {
    live_update(R"({"local":{"container":""}})");
    const SyncTargetsProblem p = problem();
    BOOST_TEST(!p.not_found);
    BOOST_TEST(p.message == "Local selector requires Container");
    live_update("{}");
    BOOST_TEST(problem().message == "No valid selector");
}

BOOST_AUTO_TEST_CASE(a_missing_object_it_names_is_the_problem) {
    file_watch();
    live_update(R"({"dockerCompose":{"service":"svc"}})");
    const SyncTargetsProblem p = problem();
    BOOST_TEST(!p.not_found);
    BOOST_TEST(p.message.find("svc") != std::string::npos, p.message);
}

BOOST_AUTO_TEST_SUITE_END()
