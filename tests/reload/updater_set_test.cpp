// The updaters in service: adding, replacing and removing classes, all or
// nothing, and reloading a rebuilt updater plugin. Real updater plugins.
#include <boost/test/unit_test.hpp>

#include "host/core/host_error.hpp"
#include "host/reload/updater_set.hpp"
#include "tests/reload/reload_test_support.hpp"

using namespace liveupdate;
using namespace liveupdate::host;
using namespace reload_test;
using host::reload::UpdaterChoice;
using host::reload::UpdaterChoices;
using host::reload::UpdaterSet;

namespace {

struct Fixture {
    TempDir dir;
    fs::path local_file = dir / "libupdater_local.so";
    UpdaterRegistry registry;
    UpdaterSet set{registry, std::make_shared<UpdaterHostServices>()};

    Fixture() { fs::copy_file(LU_TEST_LOCAL_UPDATER, local_file); }

    UpdaterChoices local_only(const std::string &settings = "{}") const {
        return UpdaterChoices{{"local", UpdaterChoice{local_file, settings}}};
    }
};

// An update the local updater refuses (no container root): proves the updater still runs.
updater::Outcome refused_update(const Updater &updater) {
    lu_container_ref container{sizeof(lu_container_ref), "id", "box", "", "", ""};
    lu_update_request request{};
    request.struct_size = sizeof(lu_update_request);
    request.live_update = "lu";
    request.via = "local";
    request.container = &container;
    return updater.update(request);
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(updater_set, Fixture)

BOOST_AUTO_TEST_CASE(serves_adds_replaces_and_removes_classes) {
    host::reload::UpdaterChanges changes = set.apply(local_only());
    BOOST_TEST(changes.summary() == "added local");
    const auto first = registry.find("local");
    BOOST_TEST_REQUIRE(first != nullptr);
    BOOST_TEST(first->plugin().identity().name == "local");

    BOOST_TEST(set.apply(local_only()).empty());
    BOOST_TEST(registry.find("local") == first);

    UpdaterChoices with_docker = local_only(R"({"workingDir":"/srv"})");
    with_docker["docker"] = UpdaterChoice{LU_TEST_RECORD_UPDATER, "{}"};
    changes = set.apply(with_docker);
    BOOST_TEST(changes.summary() == "added docker; replaced local");
    BOOST_TEST(registry.find("local") != first);
    BOOST_TEST(registry.find("docker")->plugin().identity().name == "record");
    // Only the settings changed: the plugin already loaded is reused.
    BOOST_TEST(&registry.find("local")->plugin() == &first->plugin());
    BOOST_TEST(set.loaded().size() == 2u);
    BOOST_TEST(set.files().size() == 2u);

    changes = set.apply(local_only(R"({"workingDir":"/srv"})"));
    BOOST_TEST(changes.summary() == "removed docker");
    BOOST_TEST(registry.find("docker") == nullptr);
}

BOOST_AUTO_TEST_CASE(two_classes_share_one_loaded_plugin) {
    UpdaterChoices choices = local_only();
    choices["docker"] = UpdaterChoice{local_file, "{}"};
    set.apply(choices);
    const auto loaded = set.loaded();
    BOOST_TEST_REQUIRE(loaded.size() == 1u);
    BOOST_TEST((loaded[0].classes == std::vector<std::string>{"docker", "local"}));
}

BOOST_AUTO_TEST_CASE(a_failing_class_changes_nothing) {
    set.apply(local_only());
    const auto before = registry.find("local");
    UpdaterChoices choices = local_only(R"({"workingDir":"/srv"})");
    choices["docker"] = UpdaterChoice{LU_TEST_FUTURE_ABI_UPDATER, "{}"};
    try {
        set.apply(choices);
        BOOST_FAIL("not refused");
    } catch (const PluginLoadError &e) {
        BOOST_TEST(std::string(e.what()) ==
                   "cannot load the updater of class docker: " + std::string(LU_TEST_FUTURE_ABI_UPDATER) +
                       ": plugin local-next serves ABI 2..3, host needs 1");
    }
    BOOST_TEST(registry.find("local") == before);
    BOOST_TEST(registry.find("docker") == nullptr);
    BOOST_TEST(set.loaded().size() == 1u);
}

BOOST_AUTO_TEST_CASE(settings_the_plugin_refuses_change_nothing) {
    set.apply(local_only());
    const auto before = registry.find("local");
    try {
        set.apply(local_only(R"({"workingDir":"relative"})"));
        BOOST_FAIL("not refused");
    } catch (const PluginCallError &e) {
        BOOST_TEST(std::string(e.what()).find("cannot create the updater of class local: " + local_file.string() +
                                              ": local updater: bad config") == 0u,
                   e.what());
    }
    BOOST_TEST(registry.find("local") == before);
}

BOOST_AUTO_TEST_CASE(a_rebuilt_plugin_is_reloaded_and_a_broken_one_refused) {
    set.apply(local_only());
    const auto before = registry.find("local");

    truncated_copy_over(LU_TEST_LOCAL_UPDATER, local_file);
    BOOST_CHECK_THROW(set.reload(local_file), PluginLoadError);
    BOOST_TEST(registry.find("local") == before);

    copy_over(LU_TEST_FUTURE_ABI_UPDATER, local_file);
    BOOST_CHECK_THROW(set.reload(local_file), PluginLoadError);
    BOOST_TEST(registry.find("local") == before);

    copy_over(LU_TEST_LOCAL_UPDATER, local_file);
    BOOST_TEST((set.reload(local_file) == std::vector<std::string>{"local"}));
    const auto after = registry.find("local");
    BOOST_TEST(after != before);
    BOOST_TEST(&after->plugin() != &before->plugin());
    // An update in flight on the old updater finishes on it: its plugin stays loaded while held.
    BOOST_TEST((refused_update(*before).kind == updater::Outcome::Kind::infra_failure));
    BOOST_TEST((refused_update(*after).kind == updater::Outcome::Kind::infra_failure));

    BOOST_TEST(set.reload(dir / "not-in-service.so").empty());
}

BOOST_AUTO_TEST_SUITE_END()
