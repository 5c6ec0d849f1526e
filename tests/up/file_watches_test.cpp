// FileWatches at the scale of large projects: many FileWatches share the
// daemon's inotify instance and thread (issue 33), each still seeing its own
// changes.
#include <boost/test/unit_test.hpp>

#include <condition_variable>
#include <fstream>
#include <map>
#include <mutex>
#include <set>

#include "host/compose/compose_project.hpp"
#include "host/up/file_watches.hpp"
#include "tests/up/watch_test_support.hpp"

using namespace std::chrono_literals;
using namespace liveupdate::host::up;
using up_test::TempDir;
using up_test::write_file;
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

// The FileWatches under test, and the names of the FileWatches whose status
// gained a FileEvent.
struct Watches {
    std::mutex mutex;
    std::condition_variable changed_cv;
    std::set<std::string> changed;
    std::vector<std::string> warnings;
    FileWatches watches{WatchTiming{10ms, 10s, 500ms},
                        [this](const json::object &fw) {
                            {
                                std::lock_guard<std::mutex> lock(mutex);
                                changed.insert(std::string(fw.at("metadata").at("name").as_string()));
                            }
                            changed_cv.notify_all();
                            return std::vector<std::string>{};
                        },
                        [](const std::vector<std::string> &) {},
                        [this](const std::string &warning) {
                            std::lock_guard<std::mutex> lock(mutex);
                            warnings.push_back(warning);
                        }};

    // A generous guard against hanging, not a timing assertion.
    bool wait_changed(const std::string &name) {
        std::unique_lock<std::mutex> lock(mutex);
        return changed_cv.wait_for(lock, 20s, [&] { return changed.count(name) != 0; });
    }
    bool saw_changed(const std::string &name) {
        std::lock_guard<std::mutex> lock(mutex);
        return changed.count(name) != 0;
    }
};

json::object file_watch(const std::string &name, const std::string &path) {
    return json::object{{"apiVersion", "tilt.dev/v1alpha1"},
                        {"kind", "FileWatch"},
                        {"metadata", {{"name", name}}},
                        {"spec", {{"watchedPaths", json::array{json::value(path)}}}}};
}

std::string error_of(const json::object &applied) {
    const json::value *error = applied.at("status").as_object().if_contains("error");
    return error != nullptr ? std::string(error->as_string()) : std::string();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(file_watches_at_scale)

// The project: 45 services with 3 rules each make 135 FileWatches,
// more than the default 128 inotify instances a user may have.
BOOST_AUTO_TEST_CASE(a_compose_project_of_45_services_with_3_rules_each_starts) {
    TempDir dir;
    std::string compose = "name: large\nservices:\n";
    for (int s = 0; s < 45; ++s) {
        const std::string service = "svc" + std::to_string(s);
        compose += "  " + service + ":\n    image: busybox\n    develop:\n      watch:\n";
        for (const std::string rule : {"src", "lib", "conf"}) {
            write_file(dir.path() / service / rule / "keep.txt", "k");
            compose.append("        - {path: ./").append(service).append("/").append(rule);
            compose.append(", action: sync, target: /app/").append(rule).append("}\n");
        }
    }
    write_file(dir.path() / "compose.yaml", compose);
    const auto project = liveupdate::host::compose::load_compose_project(
        {{dir / "compose.yaml"}, std::nullopt},
        [](std::string_view) -> std::optional<std::string> { return std::nullopt; });
    BOOST_TEST_REQUIRE(project.errors.empty());

    const int threads_before = up_test::thread_count();
    const int instances_before = up_test::inotify_instance_count();
    Watches w;
    std::map<std::string, std::string> name_of_path;
    for (const auto &object : project.objects) {
        if (object.at("kind").as_string() != "FileWatch") continue;
        const std::string name(object.at("metadata").at("name").as_string());
        name_of_path[std::string(object.at("spec").at("watchedPaths").at(0).as_string())] = name;
        BOOST_TEST(error_of(w.watches.apply(object)) == "", name);
    }
    BOOST_TEST_REQUIRE(name_of_path.size() == 135u);
    // One inotify instance and one thread for them all.
    BOOST_TEST(up_test::inotify_instance_count() - instances_before == 1);
    BOOST_TEST(up_test::thread_count() - threads_before == 1);

    write_file(dir.path() / "svc44/conf/new.txt", "n");
    write_file(dir.path() / "svc0/src/new.txt", "n");
    BOOST_TEST(w.wait_changed(name_of_path.at(dir / "svc44/conf")));
    BOOST_TEST(w.wait_changed(name_of_path.at(dir / "svc0/src")));
    BOOST_TEST(!w.saw_changed(name_of_path.at(dir / "svc0/lib")));
}

BOOST_AUTO_TEST_CASE(three_hundred_file_watches_start_and_each_sees_its_own_changes) {
    TempDir dir;
    const int threads_before = up_test::thread_count();
    const int instances_before = up_test::inotify_instance_count();
    Watches w;
    for (int i = 0; i < 300; ++i) {
        const std::string folder = dir / ("fw" + std::to_string(i));
        fs::create_directories(folder);
        BOOST_TEST(error_of(w.watches.apply(file_watch("fw" + std::to_string(i), folder))) == "");
    }
    BOOST_TEST(up_test::inotify_instance_count() - instances_before == 1);
    BOOST_TEST(up_test::thread_count() - threads_before == 1);

    write_file(dir.path() / "fw299/a.txt", "a");
    BOOST_TEST(w.wait_changed("fw299"));
    write_file(dir.path() / "fw0/a.txt", "a");
    BOOST_TEST(w.wait_changed("fw0"));
    BOOST_TEST(!w.saw_changed("fw1"));
}

// Two FileWatches of one folder hold the same kernel watch: removing one
// leaves the other watching.
BOOST_AUTO_TEST_CASE(removing_one_of_two_file_watches_of_a_folder_keeps_the_other) {
    TempDir dir;
    Watches w;
    BOOST_TEST(error_of(w.watches.apply(file_watch("first", dir.path().string()))) == "");
    BOOST_TEST(error_of(w.watches.apply(file_watch("second", dir.path().string()))) == "");
    w.watches.remove("first");
    write_file(dir.path() / "sub/a.txt", "a");
    BOOST_TEST(w.wait_changed("second"));
    BOOST_TEST(!w.saw_changed("first"));
}

BOOST_AUTO_TEST_SUITE_END()
