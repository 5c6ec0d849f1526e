// Sync back through a real `lu-host up` (docs/sync-back.md): files written in
// a local container's folder come back to the LiveUpdate's localPath with
// their bytes and mode, and a hostile container writes nothing outside it.
#define BOOST_TEST_MODULE up_sync_back_tests
#include <sys/stat.h>

#include <boost/test/unit_test.hpp>

#include <sstream>

#include "tests/integration/up_daemon.hpp"

using namespace up_it;

namespace {

bool has(const fs::path &p) {
    std::error_code ec;
    return fs::exists(fs::symlink_status(p, ec));
}

bool holds(const fs::path &p, const std::string &content) { return has(p) && read_file(p) == content; }

unsigned mode_of(const fs::path &p) {
    struct stat st {};
    return ::lstat(p.c_str(), &st) == 0 ? st.st_mode & 07777 : 0;
}

// The default objects, the rule bringing back package-lock.json and gen/.
Objects with_sync_back() {
    Objects o;
    o.lu_spec()["initialSync"] = json::object{};
    o.lu_spec()["syncs"].as_array()[0].as_object()["syncBack"] = json::array{"package-lock.json", "gen"};
    return o;
}

// Started, with its sync root holding a file (an empty one deletes nothing)
// and its sync back running.
void start_syncing_back(UpDaemon &d, const Objects &o, std::vector<std::string> args = {"--debounce", "0"}) {
    write_file(d.src / "main.js", "main");
    const bool started = d.start(o, std::move(args));
    BOOST_TEST_REQUIRE(started);
    BOOST_TEST_REQUIRE(wait_until([&] { return holds(d.in_app("main.js"), "main"); }));
    BOOST_TEST_REQUIRE(wait_until([&] { return d.log_text().find(": started") != std::string::npos; }), d.log_text());
}

// The daemon's lines saying LiveUpdate lu saw a local change to a file that
// came back (package-lock.json, gen/...) or to a sync back temporary file.
std::size_t echoes(const std::string &log) {
    std::size_t count = 0;
    std::istringstream lines(log);
    for (std::string line; std::getline(lines, line);)
        if (line.find("[lu]") != std::string::npos && line.find(" Changed: ") != std::string::npos &&
            (line.find("package-lock.json") != std::string::npos || line.find("/gen") != std::string::npos ||
             line.find(".lu-sync-back-") != std::string::npos))
            ++count;
    return count;
}

}  // namespace

BOOST_AUTO_TEST_CASE(files_that_came_back_are_not_sent_forward_again) {
    UpDaemon d;
    Objects o = with_sync_back();
    add_witness(o);
    start_syncing_back(d, o, {"--debounce", "0", "--workers", "1"});
    write_file(d.in_app("package-lock.json"), "{\"lock\": 1}");
    write_file(d.in_app("gen/deep/migration.sql"), "create table t;");
    BOOST_TEST(wait_until([&] { return holds(d.src / "package-lock.json", "{\"lock\": 1}"); }), d.log_text());
    BOOST_TEST(wait_until([&] { return holds(d.src / "gen/deep/migration.sql", "create table t;"); }));
    // Written again in the container at once: an echo of the first would overwrite it there.
    write_file(d.in_app("package-lock.json"), "{\"lock\": 2}");
    BOOST_TEST(wait_until([&] { return holds(d.src / "package-lock.json", "{\"lock\": 2}"); }), d.log_text());
    BOOST_TEST_REQUIRE(d.witness_barrier());
    BOOST_TEST(echoes(d.log_text()) == 0u, d.log_text());
    BOOST_TEST(holds(d.in_app("package-lock.json"), "{\"lock\": 2}"));
    // A developer's own edit of a file that came back is sent forward as ever.
    write_file(d.src / "package-lock.json", "{\"lock\": 3}");
    BOOST_TEST(wait_until([&] { return holds(d.in_app("package-lock.json"), "{\"lock\": 3}"); }), d.log_text());
}

BOOST_AUTO_TEST_CASE(a_file_written_in_the_container_comes_back_with_its_mode) {
    UpDaemon d;
    start_syncing_back(d, with_sync_back());
    write_file(d.in_app("other.txt"), "stays in the container");
    write_file(d.in_app("package-lock.json"), "{\"lock\": 1}");
    ::chmod(d.in_app("package-lock.json").c_str(), 0750);
    write_file(d.in_app("gen/deep/migration.sql"), "create table t;");
    BOOST_TEST(wait_until([&] { return holds(d.src / "package-lock.json", "{\"lock\": 1}"); }), d.log_text());
    BOOST_TEST(wait_until([&] { return mode_of(d.src / "package-lock.json") == 0750; }));
    BOOST_TEST(wait_until([&] { return holds(d.src / "gen/deep/migration.sql", "create table t;"); }));
    BOOST_TEST(!has(d.src / "other.txt"));
    BOOST_TEST(d.log_text().find("came back to " + (d.src / "package-lock.json").string()) != std::string::npos);
    // Changed again in the container: it comes back again.
    write_file(d.in_app("package-lock.json"), "{\"lock\": 2}");
    BOOST_TEST(wait_until([&] { return holds(d.src / "package-lock.json", "{\"lock\": 2}"); }));
}

BOOST_AUTO_TEST_CASE(a_hostile_container_writes_nothing_outside_local_path) {
    UpDaemon d;
    const fs::path outside = d.dir / "outside";
    fs::create_directories(outside);
    write_file(outside / "secret", "secret");
    // A local symlink on the way: the container's gen/ is a real folder.
    fs::create_directory_symlink(outside, d.src / "gen");
    start_syncing_back(d, with_sync_back());
    std::error_code ec;
    fs::remove(d.in_app("gen"), ec);  // the forward sync's copy of the symlink
    write_file(d.in_app("gen/evil.txt"), "evil");
    // A container symlink to a file outside, and a FIFO, under names that come back.
    fs::create_symlink(outside / "secret", d.in_app("package-lock.json"));
    BOOST_TEST(wait_until([&] { return d.log_text().find("gen/evil.txt") != std::string::npos; }), d.log_text());
    fs::remove(d.in_app("package-lock.json"));
    BOOST_TEST_REQUIRE(::mkfifo(d.in_app("package-lock.json").c_str(), 0644) == 0);
    // Not stalled by any of it: a file written after them still comes back.
    fs::remove(d.src / "gen");
    fs::create_directories(d.src / "gen");
    write_file(d.in_app("gen/after.txt"), "after");
    BOOST_TEST(wait_until([&] { return holds(d.src / "gen/after.txt", "after"); }), d.log_text());
    BOOST_TEST(!has(outside / "evil.txt"));
    BOOST_TEST(holds(outside / "secret", "secret"));
    BOOST_TEST(!has(d.src / "package-lock.json"));
    const bool inside_or_nowhere = !has(d.src / "gen/evil.txt") || read_file(d.src / "gen/evil.txt") == "evil";
    BOOST_TEST(inside_or_nowhere);
}

BOOST_AUTO_TEST_CASE(a_rule_without_sync_back_any_more_stops_it) {
    UpDaemon d;
    Objects o = with_sync_back();
    start_syncing_back(d, o);
    o.lu_spec()["syncs"].as_array()[0].as_object().erase("syncBack");
    write_file(d.objects, o.text());
    BOOST_TEST(wait_until([&] { return d.log_text().find(": stopped") != std::string::npos; }), d.log_text());
    write_file(d.in_app("package-lock.json"), "not wanted");
    write_file(d.src / "marker.txt", "m");  // a forward sync after the write: the daemon is not idle
    BOOST_TEST(wait_until([&] { return holds(d.in_app("marker.txt"), "m"); }));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    BOOST_TEST(!has(d.src / "package-lock.json"));
}
