#include <boost/test/unit_test.hpp>

#include "common/install_layout.hpp"

namespace fs = std::filesystem;
using namespace liveupdate::common;

// The path lu-host computes from its binary is the one the install rules
// (cmake/LuInstall.cmake) put the plugins in, under any prefix.
BOOST_AUTO_TEST_CASE(the_installed_plugin_folder_comes_first_then_the_build_tree) {
    const std::vector<fs::path> folders = plugin_folders("/opt/lu/bin/lu-host");
    BOOST_TEST_REQUIRE(folders.size() == 2u);
    BOOST_TEST(folders[0] == fs::path("/opt/lu") / LU_INSTALL_PLUGINDIR);
    BOOST_TEST(folders[1] == fs::path("/opt/lu/lib"));
}

BOOST_AUTO_TEST_CASE(lu_agent_is_looked_for_in_the_plugin_folders_then_beside_the_executable) {
    const std::vector<fs::path> places = agent_places("/opt/lu/bin/lu-host");
    BOOST_TEST_REQUIRE(places.size() == 3u);
    BOOST_TEST(places[0] == fs::path("/opt/lu") / LU_INSTALL_PLUGINDIR / "lu-agent");
    BOOST_TEST(places[1] == fs::path("/opt/lu/lib/lu-agent"));
    BOOST_TEST(places[2] == fs::path("/opt/lu/bin/lu-agent"));
}
