#include <boost/test/unit_test.hpp>

#include "host/cluster/cluster_objects.hpp"
#include "host/cluster/cluster_paths.hpp"

using namespace liveupdate::host::cluster;
namespace json = boost::json;

namespace {

const char *kRoot = "/project";

json::object parsed(const char *text) { return json::parse(text).as_object(); }

bool has_error(const ResolvedObject &r, const std::string &field) {
    for (const auto &e : r.errors)
        if (e.field == field) return true;
    return false;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cluster_paths)

BOOST_AUTO_TEST_CASE(relative_paths_resolve_against_the_root) {
    BOOST_TEST(resolve_cluster_path(kRoot, kRoot, ".").resolved == "/project");
    BOOST_TEST(resolve_cluster_path(kRoot, kRoot, "src/app").resolved == "/project/src/app");
    BOOST_TEST(resolve_cluster_path(kRoot, kRoot, "./src//app/").resolved == "/project/src/app");
    BOOST_TEST(resolve_cluster_path(kRoot, kRoot, "src/../lib").resolved == "/project/lib");
}

BOOST_AUTO_TEST_CASE(paths_relative_to_a_folder_under_the_root) {
    BOOST_TEST(resolve_cluster_path(kRoot, "/project/app", "../shared").resolved == "/project/shared");
    BOOST_TEST(!resolve_cluster_path(kRoot, "/project/app", "../../etc").ok());
}

BOOST_AUTO_TEST_CASE(absolute_paths_are_refused) {
    const ClusterPath p = resolve_cluster_path(kRoot, kRoot, "/home/dev/app");
    BOOST_TEST(!p.ok());
    BOOST_TEST(p.resolved.empty());
    BOOST_TEST(p.error.find("relative") != std::string::npos);
    BOOST_TEST(!resolve_cluster_path(kRoot, kRoot, "/project/src").ok());
}

BOOST_AUTO_TEST_CASE(escaping_the_root_is_refused) {
    for (const char *path : {"..", "../x", "a/../../x", "./../project/x", "a/b/../../.."}) {
        const ClusterPath p = resolve_cluster_path(kRoot, kRoot, path);
        BOOST_TEST(!p.ok(), path);
        BOOST_TEST(p.error.find("..") != std::string::npos, path);
    }
    // A sibling folder whose name starts like the root's is outside it.
    BOOST_TEST(!resolve_cluster_path(kRoot, kRoot, "../project-other").ok());
    // Climbing out and back in is refused whatever the root is called: the
    // webhook's placeholder and the operator's folder must judge alike.
    BOOST_TEST(!resolve_cluster_path("/project", "/project", "../project/x").ok());
    BOOST_TEST(!resolve_cluster_path("/", "/", "../x").ok());
    BOOST_TEST(!resolve_cluster_path(kRoot, "/project/app", "../../project/x").ok());
}

BOOST_AUTO_TEST_CASE(an_empty_path_is_refused) { BOOST_TEST(!resolve_cluster_path(kRoot, kRoot, "").ok()); }

BOOST_AUTO_TEST_CASE(live_update_base_path_is_replaced_and_the_rest_checked_from_it) {
    const ResolvedObject r = resolve_cluster_object(parsed(R"({"kind":"LiveUpdate","spec":{
        "basePath":"app","syncs":[{"localPath":"src","containerPath":"/app"},{"localPath":"../../x","containerPath":"/x"}],
        "stopPaths":["/abs"],"restartPaths":["ok"],"execs":[{"args":["make"],"triggerPaths":["../.."]}]}})"),
                                                    kRoot);
    BOOST_TEST(r.object.at("spec").at("basePath").as_string() == "/project/app");
    // Paths relative to basePath stay as written: the plugin joins them.
    BOOST_TEST(r.object.at("spec").at("syncs").at(0).at("localPath").as_string() == "src");
    BOOST_TEST(r.errors.size() == 3u);
    BOOST_TEST(has_error(r, "spec.syncs[1].localPath"));
    BOOST_TEST(has_error(r, "spec.stopPaths[0]"));
    BOOST_TEST(has_error(r, "spec.execs[0].triggerPaths[0]"));
}

BOOST_AUTO_TEST_CASE(live_update_without_base_path_is_refused) {
    const ResolvedObject r = resolve_cluster_object(parsed(R"({"kind":"LiveUpdate","spec":{"syncs":[]}})"), kRoot);
    BOOST_REQUIRE_EQUAL(r.errors.size(), 1u);
    BOOST_TEST(r.errors[0].field == "spec.basePath");
    BOOST_TEST(r.errors[0].message.rfind("Required value", 0) == 0u);
}

BOOST_AUTO_TEST_CASE(a_refused_base_path_stays_and_nothing_under_it_is_judged) {
    const ResolvedObject r = resolve_cluster_object(
        parsed(R"({"kind":"LiveUpdate","spec":{"basePath":"/abs","syncs":[{"localPath":"/x","containerPath":"/x"}]}})"),
        kRoot);
    BOOST_REQUIRE_EQUAL(r.errors.size(), 1u);
    BOOST_TEST(r.errors[0].field == "spec.basePath");
    BOOST_TEST(r.errors[0].message == "Invalid value: \"/abs\": " + resolve_cluster_path(kRoot, kRoot, "/abs").error);
    BOOST_TEST(r.object.at("spec").at("basePath").as_string() == "/abs");
}

BOOST_AUTO_TEST_CASE(file_watch_paths_are_replaced) {
    const ResolvedObject r = resolve_cluster_object(parsed(R"({"kind":"FileWatch","spec":{
        "watchedPaths":["src","/etc"],"ignores":[{"basePath":".","patterns":["*.o"]},{"basePath":".."}]}})"),
                                                    kRoot);
    BOOST_TEST(r.object.at("spec").at("watchedPaths").at(0).as_string() == "/project/src");
    BOOST_TEST(r.object.at("spec").at("ignores").at(0).at("basePath").as_string() == "/project");
    BOOST_TEST(r.errors.size() == 2u);
    BOOST_TEST(has_error(r, "spec.watchedPaths[1]"));
    BOOST_TEST(has_error(r, "spec.ignores[1].basePath"));
}

BOOST_AUTO_TEST_CASE(wrong_types_are_left_for_the_plugin) {
    const ResolvedObject r = resolve_cluster_object(
        parsed(R"({"kind":"LiveUpdate","spec":{"basePath":".","syncs":[{"localPath":5}],"stopPaths":"x"}})"), kRoot);
    BOOST_TEST(r.errors.empty());
    BOOST_TEST(r.object.at("spec").at("syncs").at(0).at("localPath").as_int64() == 5);
}

BOOST_AUTO_TEST_CASE(kinds_without_local_paths_are_unchanged) {
    const json::object kd = parsed(R"({"kind":"KubernetesDiscovery","spec":{"watches":[{"name":"/x"}]}})");
    const ResolvedObject r = resolve_cluster_object(kd, kRoot);
    BOOST_TEST(r.errors.empty());
    BOOST_TEST(r.object == kd);
}

BOOST_AUTO_TEST_SUITE_END()
