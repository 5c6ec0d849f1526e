// The state folder (issue 33): one daemon per folder, a folder that cannot
// be used reported when the daemon starts, and a fallback when the home
// cannot be written.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <boost/test/unit_test.hpp>

#include "host/core/host_error.hpp"
#include "host/core/state_folder.hpp"
#include "tests/support/temp_dir.hpp"

using namespace liveupdate::host;
using liveupdate::test::TempDir;
namespace fs = std::filesystem;

namespace {

// The message StateFolder throws for places, or "" when it opens.
std::string refusal(const StateFolderPlaces &places) {
    try {
        StateFolder folder(places);
        return "";
    } catch (const HostError &e) {
        return e.what();
    }
}

bool contains(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

// A home that cannot be created, whoever runs the test (even root): procfs takes no folder.
constexpr const char *kNoHome = "/proc/lu-no-such-home";

mode_t mode_of(const fs::path &p) {
    struct stat st {};
    BOOST_TEST_REQUIRE(::lstat(p.c_str(), &st) == 0);
    return st.st_mode & 07777;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(state_folder)

BOOST_AUTO_TEST_CASE(a_second_holder_is_refused_naming_the_folder_and_the_first_ones_pid) {
    TempDir scratch{"lu-state-folder-test"};
    StateFolderPlaces places;
    places.chosen = (scratch.path() / "state").string();
    StateFolder first(places);
    BOOST_TEST(first.path() == places.chosen);
    BOOST_TEST(first.fallback_note().empty());
    const std::string message = refusal(places);
    BOOST_TEST(contains(message, places.chosen), message);
    BOOST_TEST(contains(message, "another lu-host up (pid " + std::to_string(::getpid()) + ")"), message);
    BOOST_TEST(!contains(message, "--state-dir"), message);  // no advice to run a second one elsewhere
}

BOOST_AUTO_TEST_CASE(the_lock_goes_with_its_holder) {
    TempDir scratch{"lu-state-folder-test"};
    StateFolderPlaces places;
    places.chosen = (scratch.path() / "state").string();
    { StateFolder first(places); }
    BOOST_TEST(refusal(places).empty());
}

BOOST_AUTO_TEST_CASE(a_folder_that_is_a_file_is_refused_and_left_alone) {
    TempDir scratch{"lu-state-folder-test"};
    const fs::path file = scratch.path() / "state";
    std::ofstream(file) << "my notes";
    StateFolderPlaces places;
    places.chosen = file.string();
    const std::string message = refusal(places);
    BOOST_TEST(contains(message, "cannot use the state folder: " + file.string()), message);
    BOOST_TEST(contains(message, "is not a folder"), message);
    BOOST_TEST(fs::file_size(file) == 8u);
    // A default place in the way is the user's to fix, not a reason to go elsewhere.
    StateFolderPlaces defaults;
    defaults.home = scratch.path().string();
    defaults.temp_dir = scratch.path().string();
    fs::create_directories(scratch.path() / ".local/state/liveupdate");
    std::ofstream(scratch.path() / ".local/state/liveupdate/synced") << "x";
    BOOST_TEST(contains(refusal(defaults), "is not a folder"));
}

BOOST_AUTO_TEST_CASE(a_chosen_folder_that_cannot_be_made_has_no_fallback) {
    TempDir scratch{"lu-state-folder-test"};
    StateFolderPlaces places;
    places.chosen = std::string(kNoHome) + "/state";
    places.temp_dir = scratch.path().string();
    const std::string message = refusal(places);
    BOOST_TEST(contains(message, "cannot use the state folder: " + places.chosen + ": cannot create"), message);
    BOOST_TEST(!fs::exists(places.private_temp_folder()));
}

BOOST_AUTO_TEST_CASE(the_defaults_are_taken_in_order) {
    TempDir scratch{"lu-state-folder-test"};
    StateFolderPlaces places;
    places.home = (scratch.path() / "home").string();
    places.temp_dir = scratch.path().string();
    {
        StateFolder home(places);
        BOOST_TEST(home.path() == places.home + "/.local/state/liveupdate/synced");
        BOOST_TEST(home.fallback_note().empty());
        BOOST_TEST(mode_of(home.path()) == 0700u);
    }
    places.xdg_state_home = (scratch.path() / "xdg-state").string();
    StateFolder state_home(places);
    BOOST_TEST(state_home.path() == places.xdg_state_home + "/liveupdate/synced");
    BOOST_TEST(state_home.fallback_note().empty());
}

BOOST_AUTO_TEST_CASE(a_home_that_cannot_be_written_gives_way_to_the_runtime_folder_then_a_private_one) {
    TempDir scratch{"lu-state-folder-test"};
    StateFolderPlaces places;
    places.home = kNoHome;
    places.xdg_runtime_dir = (scratch.path() / "run").string();
    places.temp_dir = scratch.path().string();
    {
        StateFolder runtime(places);
        BOOST_TEST(runtime.path() == places.xdg_runtime_dir + "/liveupdate/synced");
        BOOST_TEST(contains(runtime.fallback_note(), "the synced journals are kept in " + runtime.path()));
        BOOST_TEST(contains(runtime.fallback_note(), "cannot create " + std::string(kNoHome) + ": No such file"),
                   runtime.fallback_note());
        BOOST_TEST(runtime.fallback_note().find('\n') == std::string::npos);
    }
    places.xdg_runtime_dir.clear();
    StateFolder temporary(places);
    const std::string private_folder = (scratch.path() / ("liveupdate-" + std::to_string(::geteuid()))).string();
    BOOST_TEST(temporary.path() == private_folder + "/synced");
    BOOST_TEST(mode_of(private_folder) == 0700u);
    BOOST_TEST(contains(temporary.fallback_note(), "may not outlive a reboot"), temporary.fallback_note());
}

BOOST_AUTO_TEST_CASE(a_private_folder_someone_could_tamper_with_is_refused) {
    TempDir scratch{"lu-state-folder-test"};
    StateFolderPlaces places;
    places.home = kNoHome;
    places.temp_dir = scratch.path().string();
    const fs::path private_folder = places.private_temp_folder();

    fs::create_directory(private_folder);
    fs::permissions(private_folder, fs::perms::all);  // 0777
    std::string message = refusal(places);
    BOOST_TEST(contains(message, private_folder.string() + " can be written by other users (mode 0777)"), message);
    BOOST_TEST(contains(message, kNoHome), message);  // and why the home was passed over
    fs::remove(private_folder);

    fs::create_directory(scratch.path() / "elsewhere");
    fs::create_directory_symlink(scratch.path() / "elsewhere", private_folder);
    message = refusal(places);
    BOOST_TEST(contains(message, "is a symlink"), message);
    BOOST_TEST(fs::is_empty(scratch.path() / "elsewhere"));
    fs::remove(private_folder);

    if (::geteuid() == 0) {  // only root can give a folder away
        fs::create_directory(private_folder);
        fs::permissions(private_folder, fs::perms::owner_all, fs::perm_options::replace);
        BOOST_TEST_REQUIRE(::chown(private_folder.c_str(), 65534, 65534) == 0);
        message = refusal(places);
        BOOST_TEST(contains(message, "is owned by uid 65534, not by this user"), message);
    }
}

BOOST_AUTO_TEST_SUITE_END()
