// Which containers a starting daemon checks once (verify/first_sight.hpp):
// those an earlier daemon synced into, not those it synced into first.
#include <filesystem>

#include <boost/test/unit_test.hpp>

#include "host/core/synced_journal.hpp"
#include "host/verify/first_sight.hpp"
#include "tests/support/temp_dir.hpp"

using namespace liveupdate::host;
using namespace liveupdate::host::verify;
using liveupdate::test::TempDir;
namespace fs = std::filesystem;

namespace {

LiveUpdateTargets one_container(const std::string &id) {
    LiveUpdateTargets lu;
    lu.name = "lu";
    lu.via = "docker";
    lu.containers.push_back(RunningContainer{{id, "web", "", "", ""}, "web"});
    return lu;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(first_sight)

BOOST_AUTO_TEST_CASE(a_container_this_daemon_synced_into_first_is_not_checked) {
    TempDir dir{"lu-first-sight-test"};
    SyncedJournals journals(dir.path().string());
    FirstSight first(journals);
    const LiveUpdateTargets lu = one_container("3f2a");
    journals.journal(SyncedKey::of("lu", "docker", "3f2a", ""))->add({"/app", "/app/a.txt"});
    BOOST_TEST(!first.any_unchecked({lu}));
}

BOOST_AUTO_TEST_CASE(a_container_an_earlier_daemon_synced_into_is_checked_once) {
    TempDir dir{"lu-first-sight-test"};
    const LiveUpdateTargets lu = one_container("3f2a");
    SyncedJournals(dir.path().string()).journal(SyncedKey::of("lu", "docker", "3f2a", ""))->add({"/app/a.txt"});
    SyncedJournals journals(dir.path().string());
    FirstSight first(journals);
    BOOST_TEST(first.any_unchecked({lu}));
    first.checked(lu);
    BOOST_TEST(!first.any_unchecked({lu}));
}

BOOST_AUTO_TEST_CASE(a_record_emptied_since_is_not_checked) {
    TempDir dir{"lu-first-sight-test"};
    const SyncedKey key = SyncedKey::of("lu", "docker", "3f2a", "");
    SyncedJournals(dir.path().string()).journal(key)->add({"/app/a.txt"});
    SyncedJournals journals(dir.path().string());
    journals.journal(key)->remove({"/app"});
    BOOST_TEST(!FirstSight(journals).any_unchecked({one_container("3f2a")}));
}

BOOST_AUTO_TEST_SUITE_END()
