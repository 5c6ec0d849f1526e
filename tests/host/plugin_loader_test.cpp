#include <filesystem>

#include <boost/test/unit_test.hpp>

#include "host/core/abi_range.hpp"
#include "host/core/host_error.hpp"
#include "host/core/plugin_loader.hpp"

using namespace liveupdate::host;

namespace {

// The PluginLoadError of loading file as kind, or an empty reason when it loaded.
template <typename Plugin>
PluginLoadError load_error(const std::string &file) {
    try {
        Plugin::load(file);
    } catch (const PluginLoadError &e) {
        return e;
    }
    return PluginLoadError("", "", "");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(plugin_loader)

BOOST_AUTO_TEST_CASE(a_missing_file_is_named) {
    const auto e = load_error<LiveUpdatePlugin>("/nonexistent/libnothing.so");
    BOOST_TEST(e.location() == "/nonexistent/libnothing.so");
    BOOST_TEST(e.reason() == "no such file");
    BOOST_TEST(std::string(e.what()) == "cannot load plugin: /nonexistent/libnothing.so: no such file");
}

BOOST_AUTO_TEST_CASE(a_directory_is_refused) {
    const auto e = load_error<UpdaterPlugin>("/tmp");
    BOOST_TEST(e.reason() == "is a directory, not a shared object");
}

BOOST_AUTO_TEST_CASE(a_file_that_is_not_a_shared_object) {
    const auto e = load_error<LiveUpdatePlugin>(LU_TEST_NOT_A_PLUGIN);
    BOOST_TEST(e.location() == LU_TEST_NOT_A_PLUGIN);
    BOOST_TEST(e.reason().starts_with("not a loadable shared object ("), e.reason());
}

BOOST_AUTO_TEST_CASE(a_missing_entry_symbol) {
    const auto e = load_error<LiveUpdatePlugin>(LU_TEST_NO_ENTRY_PLUGIN);
    BOOST_TEST(e.location() == LU_TEST_NO_ENTRY_PLUGIN);
    BOOST_TEST(e.reason() == "missing entry symbol lu_liveupdate_plugin_entry");
    const auto u = load_error<UpdaterPlugin>(LU_TEST_NO_ENTRY_PLUGIN);
    BOOST_TEST(u.reason() == "missing entry symbol lu_updater_plugin_entry");
}

BOOST_AUTO_TEST_CASE(an_abi_version_the_plugin_does_not_serve) {
    const auto e = load_error<LiveUpdatePlugin>(LU_TEST_WRONG_ABI_PLUGIN);
    BOOST_TEST(e.location() == LU_TEST_WRONG_ABI_PLUGIN);
    BOOST_TEST(e.reason() == "plugin future serves ABI 7..9, host needs 1");
}

BOOST_AUTO_TEST_CASE(a_plugin_serving_a_range_gets_the_highest_version_the_host_serves) {
    auto plugin = UpdaterPlugin::load(LU_TEST_RANGE_UPDATER);
    BOOST_TEST(plugin->identity().abi_max == 5u);
    BOOST_TEST(plugin->api().abi_version == kHostAbi.max);
}

BOOST_AUTO_TEST_CASE(an_updater_is_not_a_liveupdate_plugin) {
    const auto e = load_error<LiveUpdatePlugin>(LU_TEST_RECORD_UPDATER);
    BOOST_TEST(e.reason() == "missing entry symbol lu_liveupdate_plugin_entry");
}

BOOST_AUTO_TEST_CASE(a_good_updater_loads_and_says_who_it_is) {
    auto plugin = UpdaterPlugin::load(LU_TEST_RECORD_UPDATER);
    BOOST_TEST(plugin->identity().kind == "updater");
    BOOST_TEST(plugin->identity().name == "record");
    BOOST_TEST(plugin->identity().abi_min <= LU_ABI_VERSION);
    BOOST_TEST(plugin->api().abi_version == LU_ABI_VERSION);
}

BOOST_AUTO_TEST_CASE(private_copies_are_separate_instances_and_leave_no_file) {
    const auto temp = std::filesystem::temp_directory_path();
    auto count_copies = [&] {
        int n = 0;
        for (const auto &entry : std::filesystem::directory_iterator(temp)) {
            n += entry.path().filename().string().starts_with("lu-host-plugin-") ? 1 : 0;
        }
        return n;
    };
    const int before = count_copies();
    auto original = UpdaterPlugin::load(LU_TEST_RECORD_UPDATER);
    auto copy = UpdaterPlugin::load(LU_TEST_RECORD_UPDATER, PluginLoadOptions{.private_copy = true});
    // A separate mapping: its function table lives at another address.
    BOOST_TEST(&original->api() != &copy->api());
    BOOST_TEST(copy->file() == LU_TEST_RECORD_UPDATER);
    BOOST_TEST(count_copies() == before);
}

BOOST_AUTO_TEST_SUITE_END()
