// host/sync_back/left_alone: what a whole forward sync leaves for sync back
// when the container cannot be read. Through the local updater's digest,
// which cannot read a container without a root folder (LU_ERR_UNSUPPORTED,
// as a docker or kubernetes updater whose agent cannot run there).
#define BOOST_TEST_MODULE left_alone
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "host/core/host_services.hpp"
#include "host/core/synced_journal.hpp"
#include "host/core/updater.hpp"
#include "host/sync_back/left_alone.hpp"
#include "tests/support/temp_dir.hpp"

using namespace liveupdate;
using namespace liveupdate::host;
namespace fs = std::filesystem;

namespace {

struct Fixture {
    test::TempDir dir{"lu-left-alone-test"};
    fs::path local = dir.path() / "src";
    Updater via{UpdaterPlugin::load(LU_TEST_LOCAL_UPDATER), std::make_shared<UpdaterHostServices>()};
    SyncedJournal journal{(dir.path() / "journal").string(), {"web", "local", ""}};
    std::vector<std::string> warnings;

    Fixture() {
        fs::create_directories(local);
        std::ofstream(local / "package-lock.json") << "{\"lockfileVersion\": 3}\n";
        std::ofstream(local / "main.js") << "console.log(1)\n";
    }

    // An initial sync of local into /app of a container the updater cannot read (no root folder).
    std::vector<LeftAlone> left_alone_of_unreadable() {
        update_step::ContainerUpdate update;
        update.live_update = "web";
        update.via = "local";
        update.container = {"c1", "web", "", "", ""};
        update.copy = {{local.string(), "/app"}};
        update.initial_sync = true;
        const ComesBackFn comes_back = [](const std::string &path) { return path.ends_with("package-lock.json"); };
        const LogSinkFn log = [this](common::LogLevel level, std::string_view line) {
            if (level == common::LogLevel::warn) warnings.emplace_back(line);
        };
        return sync_back::left_alone(via, update, {"/app"}, comes_back, journal, log);
    }
};

}  // namespace

// An earlier daemon agreed on the lockfile with the container: the app may
// have rewritten it since, and nobody judged that, so the whole sync leaves it.
BOOST_FIXTURE_TEST_CASE(an_agreed_file_of_a_container_that_cannot_be_read_is_left_alone, Fixture) {
    journal.add({"/app/package-lock.json", "/app/main.js"});
    journal.agree("/app/package-lock.json", "0123456789abcdef");
    const auto left = left_alone_of_unreadable();
    BOOST_TEST_REQUIRE(left.size() == 1u);
    BOOST_TEST(left[0].container_path == "/app/package-lock.json");
    BOOST_TEST(left[0].local_path == (local / "package-lock.json").string());
    BOOST_TEST(left[0].unread);
    BOOST_TEST(!left[0].container_changed);
    BOOST_TEST_REQUIRE(warnings.size() == 1u);
    BOOST_TEST(warnings[0].find("cannot read /app in the container") != std::string::npos, warnings[0]);
    BOOST_TEST(warnings[0].find("no root folder") != std::string::npos, warnings[0]);
    BOOST_TEST(warnings[0].find("1 file(s) both sides agreed on before are left") != std::string::npos, warnings[0]);
}

// Nothing agreed on: nothing known there to keep, the whole sync carries everything as before.
BOOST_FIXTURE_TEST_CASE(a_container_that_cannot_be_read_with_no_agreement_keeps_nothing, Fixture) {
    journal.add({"/app/package-lock.json", "/app/main.js"});
    BOOST_TEST(left_alone_of_unreadable().empty());
    BOOST_TEST(warnings.empty());
}
