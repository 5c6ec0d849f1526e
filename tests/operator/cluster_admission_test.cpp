#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "host/cluster/cluster_admission.hpp"

using namespace liveupdate::host::cluster;
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

using Decision = ClusterVerdict::Decision;

// A project folder with src/ and a symlink "out" to a folder beside it.
struct Project {
    fs::path top = fs::temp_directory_path() / ("lu-operator-test-" + std::to_string(::getpid()));
    fs::path root = top / "project";
    Project() {
        fs::create_directories(root / "src");
        fs::create_directories(top / "outside");
        fs::create_directory_symlink("../outside", root / "out");
        fs::create_directory_symlink("src", root / "alias");
    }
    ~Project() { fs::remove_all(top); }
};

json::object live_update(const char *base, const char *local) {
    return json::object{
        {"apiVersion", "tilt.dev/v1alpha1"},
        {"kind", "LiveUpdate"},
        {"metadata", json::object{{"name", "web"},
                                  {"namespace", "dev"},
                                  {"uid", "u1"},
                                  {"resourceVersion", "7"},
                                  {"annotations", json::object{{"tilt.dev/resource", "web"}}}}},
        {"spec", json::object{{"basePath", base},
                              {"syncs", json::array{json::object{{"localPath", local}, {"containerPath", "/app"}}}}}},
        {"status", json::object{{"failed", json::object{{"reason", "X"}}}}}};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cluster_admission)

// A cluster object alone cannot make the daemon write into the project folder.
BOOST_AUTO_TEST_CASE(sync_back_needs_the_developers_allowance) {
    Project p;
    json::object lu = live_update(".", "src");
    lu["spec"].as_object()["syncs"].as_array()[0].as_object()["syncBack"] = json::array{"package-lock.json"};
    const auto refused = judge_cluster_object(lu, p.root.string());
    BOOST_TEST((refused.decision == Decision::refused));
    BOOST_TEST(refused.message.find("spec.syncs[0].syncBack: Forbidden:") != std::string::npos, refused.message);
    BOOST_TEST(refused.message.find("--allow-sync-back") != std::string::npos);
    const auto allowed = judge_cluster_object(lu, p.root.string(), {.sync_back = true});
    BOOST_TEST((allowed.decision == Decision::taken), allowed.message);
    BOOST_TEST(allowed.object.at("spec").at("syncs").at(0).at("syncBack").at(0).as_string() == "package-lock.json");
    // An empty list asks for nothing.
    lu["spec"].as_object()["syncs"].as_array()[0].as_object()["syncBack"] = json::array{};
    BOOST_TEST((judge_cluster_object(lu, p.root.string()).decision == Decision::taken));
}

BOOST_AUTO_TEST_CASE(a_live_update_is_taken_resolved_and_stripped) {
    Project p;
    const auto v = judge_cluster_object(live_update(".", "src"), p.root.string());
    BOOST_TEST((v.decision == Decision::taken));
    BOOST_TEST(v.object.at("spec").at("basePath").as_string() == p.root.string());
    BOOST_TEST(v.object.at("spec").at("syncs").at(0).at("localPath").as_string() == "src");
    BOOST_TEST(!v.object.contains("status"));
    const auto &metadata = v.object.at("metadata").as_object();
    BOOST_TEST(metadata.size() == 3u);  // name, namespace (shown by get/describe) and annotations: no uid
    BOOST_TEST(metadata.at("namespace").as_string() == "dev");
    BOOST_TEST(metadata.at("annotations").at("tilt.dev/resource").as_string() == "web");
}

BOOST_AUTO_TEST_CASE(paths_leaving_the_project_are_refused_naming_the_field) {
    Project p;
    const auto up = judge_cluster_object(live_update("..", "src"), p.root.string());
    BOOST_TEST((up.decision == Decision::refused));
    BOOST_TEST(up.message.find("spec.basePath") != std::string::npos);
    const auto absolute = judge_cluster_object(live_update(".", "/etc"), p.root.string());
    BOOST_TEST((absolute.decision == Decision::refused));
    BOOST_TEST(absolute.message.find("spec.syncs[0].localPath") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_symlink_leading_out_is_refused_one_staying_in_is_taken) {
    Project p;
    const auto out = judge_cluster_object(live_update(".", "out"), p.root.string());
    BOOST_TEST((out.decision == Decision::refused));
    BOOST_TEST(out.message.find("a symlink leads to") != std::string::npos);
    const auto base = judge_cluster_object(live_update("out", "x"), p.root.string());
    BOOST_TEST((base.decision == Decision::refused));
    BOOST_TEST(base.message.find("spec.basePath") != std::string::npos);
    BOOST_TEST((judge_cluster_object(live_update(".", "alias"), p.root.string()).decision == Decision::taken));
}

BOOST_AUTO_TEST_CASE(a_file_watch_through_a_symlink_out_is_refused) {
    Project p;
    const json::object fw{{"apiVersion", "tilt.dev/v1alpha1"},
                          {"kind", "FileWatch"},
                          {"metadata", json::object{{"name", "src"}}},
                          {"spec", json::object{{"watchedPaths", json::array{"src", "out/deeper"}}}}};
    const auto v = judge_cluster_object(fw, p.root.string());
    BOOST_TEST((v.decision == Decision::refused));
    BOOST_TEST(v.message.find("spec.watchedPaths[1]") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(kinds_that_run_local_processes_are_ignored) {
    Project p;
    for (const char *kind : {"LocalContainer", "Cmd", "DockerComposeService"}) {
        const json::object o{{"kind", kind}, {"metadata", json::object{{"name", "x"}}}, {"spec", json::object{}}};
        const auto v = judge_cluster_object(o, p.root.string());
        BOOST_TEST((v.decision == Decision::ignored));
        BOOST_TEST(v.message.find("never taken from a cluster") != std::string::npos);
    }
}

BOOST_AUTO_TEST_SUITE_END()
