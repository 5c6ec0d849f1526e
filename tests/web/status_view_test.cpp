// The page's model from what the daemon answers.
#include <boost/test/unit_test.hpp>

#include "host/web/status_view.hpp"

using namespace liveupdate::host::web;
namespace json = boost::json;

namespace {

json::value lu(const std::string &name, const std::string &status, const std::string &annotations = "{}") {
    return json::parse(R"({"kind": "LiveUpdate", "metadata": {"name": ")" + name + R"(", "annotations": )" +
                       annotations + R"(}, "spec": {"basePath": "/src"}, "status": )" + status + "}");
}

json::object row(const json::value &item, const json::object &activity = {}) {
    const json::object view = status_view(json::object{{"items", json::array{item}}}, activity, json::array{});
    return view.at("liveUpdates").as_array().at(0).as_object();
}

const json::value kRunning = json::parse(R"({"containerName": "web", "containerID": "c1",
    "lastFileTimeSynced": "2026-01-01T00:00:01.000000Z"})");

}  // namespace

BOOST_AUTO_TEST_SUITE(status_view_rows)

BOOST_AUTO_TEST_CASE(a_synced_container_is_in_sync) {
    const json::object r = row(lu("a", R"({"containers": [)" + json::serialize(kRunning) + "]}"));
    BOOST_TEST(r.at("state").as_string() == "in-sync");
    BOOST_TEST(r.at("containers").as_array().at(0).at("name").as_string() == "web");
    BOOST_TEST(r.at("mode").as_string() == "auto");
    BOOST_TEST(r.at("canTrigger").as_bool() == false);
}

BOOST_AUTO_TEST_CASE(a_container_says_how_its_agent_got_there_and_its_last_restart) {
    const json::object r = row(lu("a", R"({"containers": [{"containerName": "web", "agent": "injected",
        "lastRestartTime": "2026-01-01T00:00:02.000000Z"}, {"containerName": "side"}]})"));
    const json::array &containers = r.at("containers").as_array();
    BOOST_TEST(containers.at(0).at("agent").as_string() == "injected");
    BOOST_TEST(containers.at(0).at("lastRestartTime").as_string() == "2026-01-01T00:00:02.000000Z");
    BOOST_TEST(!containers.at(1).as_object().contains("agent"));
    BOOST_TEST(!containers.at(1).as_object().contains("lastRestartTime"));
}

BOOST_AUTO_TEST_CASE(states_and_their_reasons) {
    BOOST_TEST(row(lu("a", R"({"failed": {"reason": "UpdateStopped", "message": "Detected change to stop file x"}})"))
                   .at("state")
                   .as_string() == "needs-rebuild");
    const json::object failed = row(lu("a", R"({"failed": {"reason": "UpdateFailed", "message": "boom"}})"));
    BOOST_TEST(failed.at("state").as_string() == "failed");
    BOOST_TEST(failed.at("reason").as_string() == "UpdateFailed");
    BOOST_TEST(failed.at("message").as_string() == "boom");
    const json::object exec = row(lu("a", R"({"containers": [{"containerName": "w", "lastExecError": "exit 7"}]})"));
    BOOST_TEST(exec.at("state").as_string() == "failed");
    BOOST_TEST(exec.at("message").as_string() == "exit 7");
    const json::object waiting = row(lu(
        "a",
        R"({"containers": [{"containerName": "w", "waiting": {"reason": "Trigger", "message": "Only updates on manual trigger"}}]})"));
    BOOST_TEST(waiting.at("state").as_string() == "waiting");
    BOOST_TEST(waiting.at("reason").as_string() == "Trigger");
    BOOST_TEST(row(lu("a", "{}")).at("reason").as_string() == "NoContainer");
}

BOOST_AUTO_TEST_CASE(open_sync_back_conflicts_are_listed_with_local_paths_beneath_the_base) {
    const json::object r = row(lu("a", R"({"containers": [)" + json::serialize(kRunning) + R"(],
        "syncBackConflicts": [{"container": "web", "path": "/app/package-lock.json",
            "localPath": "/src/package-lock.json", "kind": "BothModified", "message": "m"}]})"));
    const json::array &conflicts = r.at("syncBackConflicts").as_array();
    BOOST_TEST_REQUIRE(conflicts.size() == 1u);
    BOOST_TEST(conflicts.at(0).at("container").as_string() == "web");
    BOOST_TEST(conflicts.at(0).at("path").as_string() == "/app/package-lock.json");
    BOOST_TEST(conflicts.at(0).at("localPath").as_string() == "package-lock.json");
    BOOST_TEST(conflicts.at(0).at("kind").as_string() == "BothModified");
    BOOST_TEST(row(lu("b", "{}")).at("syncBackConflicts").as_array().empty());
}

BOOST_AUTO_TEST_CASE(an_update_in_flight_shows_as_updating) {
    const json::object activity{{"a", json::object{{"updating", true}}}};
    BOOST_TEST(
        row(lu("a", R"({"containers": [)" + json::serialize(kRunning) + "]}"), activity).at("state").as_string() ==
        "updating");
}

BOOST_AUTO_TEST_CASE(last_files_are_shown_relative_to_the_base_path) {
    const json::object activity =
        json::parse(R"({"a": {"updating": false, "lastFiles": ["/src/app/x.js", "/elsewhere/y"],
        "lastFileCount": 2, "lastFilesAt": "2026-01-01T00:00:02.000000Z", "lastUpdateAt": "2026-01-01T00:00:03.000000Z",
        "recentUpdates": [{"at": "2026-01-01T00:00:03.000000Z", "ms": 12.5, "files": 2, "failed": false}]}})")
            .as_object();
    const json::object r = row(lu("a", "{}"), activity);
    BOOST_TEST(r.at("recentUpdates") == activity.at("a").at("recentUpdates"));  // the page's chart
    BOOST_TEST(r.at("lastFiles").as_array().at(0).as_string() == "app/x.js");
    BOOST_TEST(r.at("lastFiles").as_array().at(1).as_string() == "/elsewhere/y");
    BOOST_TEST(r.at("lastUpdateAt").as_string() == "2026-01-01T00:00:03.000000Z");
}

BOOST_AUTO_TEST_CASE(manual_mode_with_a_manifest_can_be_triggered) {
    BOOST_TEST(row(lu("a", "{}", R"({"tilt.dev/update-mode": "manual", "tilt.dev/resource": "web"})"))
                   .at("canTrigger")
                   .as_bool());
    // Without a manifest the trigger queue cannot name it.
    const json::object no_manifest = row(lu("a", "{}", R"({"tilt.dev/update-mode": "manual"})"));
    BOOST_TEST(no_manifest.at("mode").as_string() == "manual");
    BOOST_TEST(!no_manifest.at("canTrigger").as_bool());
}

BOOST_AUTO_TEST_CASE(a_cluster_object_shows_its_namespace) {
    json::value from_cluster = lu("a", "{}");
    from_cluster.at("metadata").as_object()["namespace"] = "team";
    BOOST_TEST(row(from_cluster).at("namespace").as_string() == "team");
    BOOST_TEST(row(lu("b", "{}")).at("namespace").as_string() == "");  // from a file: none
}

BOOST_AUTO_TEST_CASE(rejected_live_updates_have_a_row_with_the_reason) {
    const json::value list =
        json::parse(R"({"items": [], "rejected": [{"name": "bad", "message": "spec.syncs: required"}]})");
    const json::object view = status_view(list, {}, json::parse(R"([{"kind": "liveupdate", "name": "p"}])"));
    const json::object r = view.at("liveUpdates").as_array().at(0).as_object();
    BOOST_TEST(r.at("state").as_string() == "rejected");
    BOOST_TEST(r.at("message").as_string() == "spec.syncs: required");
    BOOST_TEST(view.at("plugins").as_array().size() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
