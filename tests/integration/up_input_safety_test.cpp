// `lu-host up` against bad input: files it cannot read, names that are not
// UTF-8, a file synced into a folder, files every watcher ignores. Each case
// ends with the container tree checked against the source.
#define BOOST_TEST_MODULE up_input_safety_tests
#include <boost/test/unit_test.hpp>

#include <sys/stat.h>

#include "tests/integration/up_daemon.hpp"

using namespace up_it;

namespace {

bool has(const fs::path &p) {
    std::error_code ec;
    return fs::exists(fs::symlink_status(p, ec));
}

bool holds(const fs::path &p, const std::string &content) { return has(p) && read_file(p) == content; }

const json::value *member(const json::value &v, std::initializer_list<const char *> path) {
    const json::value *cur = &v;
    for (const char *key : path) {
        if (!cur->is_object()) return nullptr;
        cur = cur->as_object().if_contains(key);
        if (cur == nullptr) return nullptr;
    }
    return cur;
}

std::string failure_message(const UpDaemon &d) {
    const json::value status = d.status_of("liveupdates", "lu");
    const json::value *message = member(status, {"failed", "message"});
    return message != nullptr && message->is_string() ? std::string(message->as_string()) : "";
}

// Without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH, root reads only what the
// file modes allow it: a mode-000 file is unreadable to the daemon.
const std::vector<std::string> kWithoutReadOverride{"/usr/bin/setpriv", "--bounding-set",
                                                    "-dac_override,-dac_read_search"};

}  // namespace

// The initial sync walks the source: an unreadable file is left out, every
// other file still arrives, and the LiveUpdate fails naming the file and why.
BOOST_AUTO_TEST_CASE(an_unreadable_file_fails_the_initial_sync_and_the_rest_arrives) {
    UpDaemon d;
    write_file(d.src / "a.txt", "a");
    write_file(d.src / "b.txt", "b");
    write_file(d.src / "c.txt", "c");
    write_file(d.src / "z/d.txt", "d");
    fs::permissions(d.src / "b.txt", fs::perms::none);
    Objects o;
    o.lu_spec()["initialSync"] = json::object{};
    d.launcher = kWithoutReadOverride;
    BOOST_TEST_REQUIRE(d.start(o));
    BOOST_TEST(wait_outcome(wait_until([&] { return failure_message(d).find("b.txt") != std::string::npos; }),
                            [&] { return d.log_text(); }));
    const std::string message = failure_message(d);
    BOOST_TEST(message.find("Permission denied") != std::string::npos, message);
    BOOST_TEST(holds(d.in_app("a.txt"), "a"));
    BOOST_TEST(holds(d.in_app("c.txt"), "c"));
    BOOST_TEST(holds(d.in_app("z/d.txt"), "d"));
    BOOST_TEST(!has(d.in_app("b.txt")));
    BOOST_TEST(d.log_text().find("updated!") == std::string::npos, d.log_text());
}

// A live update of three files, the middle one unreadable: the other two
// arrive and the update fails naming it. Once readable, a restart (a new
// container, so a new initial sync) makes the container equal the source.
BOOST_AUTO_TEST_CASE(an_unreadable_changed_file_fails_the_update_and_the_rest_arrives) {
    UpDaemon d;
    Objects o;
    d.launcher = kWithoutReadOverride;
    BOOST_TEST_REQUIRE(d.start(o, {"--debounce", "300"}));
    write_file(d.src / "first.txt", "1");
    BOOST_TEST_REQUIRE(wait_until([&] { return holds(d.in_app("first.txt"), "1"); }));
    write_file(d.src / "a.txt", "a");
    write_file(d.src / "b.txt", "b");
    fs::permissions(d.src / "b.txt", fs::perms::none);
    write_file(d.src / "c.txt", "c");
    BOOST_TEST(wait_outcome(wait_until([&] { return failure_message(d).find("b.txt") != std::string::npos; }),
                            [&] { return d.log_text(); }));
    BOOST_TEST(failure_message(d).find("Permission denied") != std::string::npos, failure_message(d));
    BOOST_TEST(holds(d.in_app("a.txt"), "a"));
    BOOST_TEST(holds(d.in_app("c.txt"), "c"));
    BOOST_TEST(!has(d.in_app("b.txt")));
    BOOST_TEST(d.stop() == 0);

    fs::permissions(d.src / "b.txt", fs::perms::owner_read | fs::perms::owner_write);
    o.lu_spec()["initialSync"] = json::object{};
    BOOST_TEST_REQUIRE(d.start(o));
    BOOST_TEST(wait_until([&] { return tree_of(d.src) == tree_of(d.root / "app"); }));
}

// A name that is not UTF-8 cannot go into the FileWatch's JSON: it is left
// out with one warning naming it (bytes as \xNN), and every other file syncs.
BOOST_AUTO_TEST_CASE(a_name_that_is_not_utf8_is_skipped_and_poisons_nothing) {
    UpDaemon d;
    write_file(d.src / "before.txt", "b");
    write_file(d.src /
                   "\xff\xfe"
                   "A",
               "raw");  // present at start-up, for the initial sync
    Objects o;
    o.lu_spec()["initialSync"] = json::object{};
    BOOST_TEST_REQUIRE(d.start(o));
    BOOST_TEST(
        wait_outcome(wait_until([&] { return holds(d.in_app("before.txt"), "b"); }), [&] { return d.log_text(); }));
    write_file(d.src /
                   "\xfe"
                   "B",
               "raw");  // a live change
    write_file(d.src / "after.txt", "a");
    BOOST_TEST(
        wait_outcome(wait_until([&] { return holds(d.in_app("after.txt"), "a"); }), [&] { return d.log_text(); }));
    write_file(d.src / "later.txt", "l");
    BOOST_TEST(
        wait_outcome(wait_until([&] { return holds(d.in_app("later.txt"), "l"); }), [&] { return d.log_text(); }));
    const std::string log = d.log_text();
    BOOST_TEST(log.find("\\xff\\xfeA") != std::string::npos, log);
    BOOST_TEST(log.find("\\xfeB: its name is not valid UTF-8") != std::string::npos, log);
    BOOST_TEST(log.find("malformed JSON") == std::string::npos, log);
    BOOST_TEST(log.find("invalid JSON") == std::string::npos, log);
    BOOST_TEST(member(d.status_of("liveupdates", "lu"), {"failed"}) == nullptr);
    auto expected = tree_of(d.src);
    expected.erase(
        "\xff\xfe"
        "A");
    expected.erase(
        "\xfe"
        "B");
    BOOST_TEST((tree_of(d.root / "app") == expected));
}

// `containerPath` ending in "/" puts a file rule's file into that folder, in
// the initial sync and in live updates (P01).
BOOST_AUTO_TEST_CASE(a_file_synced_into_a_folder) {
    UpDaemon d;
    write_file(d.src / "config.yml", "v1");
    Objects o;
    o.lu_spec()["initialSync"] = json::object{};
    o.lu_spec()["syncs"] = json::array{json::object{{"localPath", "src/config.yml"}, {"containerPath", "/etc/app/"}}};
    BOOST_TEST_REQUIRE(d.start(o));
    BOOST_TEST(wait_outcome(wait_until([&] { return holds(d.root / "etc/app/config.yml", "v1"); }),
                            [&] { return d.log_text(); }));
    write_file(d.src / "config.yml", "v2");
    BOOST_TEST(wait_outcome(wait_until([&] { return holds(d.root / "etc/app/config.yml", "v2"); }),
                            [&] { return d.log_text(); }));
    BOOST_TEST(member(d.status_of("liveupdates", "lu"), {"failed"}) == nullptr);
    BOOST_TEST((tree_of(d.root / "etc/app") == tree_of(d.src)));
}

// The initial sync leaves out what the watcher never reports (.git/, editor
// temporaries): the container holds exactly what live sync keeps in step.
BOOST_AUTO_TEST_CASE(initial_and_live_sync_ignore_the_same_files) {
    UpDaemon d;
    write_file(d.src / "keep.txt", "k");
    write_file(d.src / ".git/HEAD", "ref");
    write_file(d.src / "notes.swp", "s");
    write_file(d.src / "main.c~", "old");
    Objects o;
    o.lu_spec()["initialSync"] = json::object{};
    BOOST_TEST_REQUIRE(d.start(o));
    BOOST_TEST(
        wait_outcome(wait_until([&] { return holds(d.in_app("keep.txt"), "k"); }), [&] { return d.log_text(); }));
    write_file(d.src / "notes.swp", "s2");
    write_file(d.src / "keep2.txt", "k2");
    BOOST_TEST(
        wait_outcome(wait_until([&] { return holds(d.in_app("keep2.txt"), "k2"); }), [&] { return d.log_text(); }));
    const std::map<std::string, std::string> expected{{"keep.txt", "k"}, {"keep2.txt", "k2"}};
    BOOST_TEST((tree_of(d.root / "app") == expected));
}

// Tilt's build entry before each live update, paths relative to the daemon's
// working directory.
BOOST_AUTO_TEST_CASE(the_build_entry_names_the_changed_files) {
    UpDaemon d;
    const fs::path here = fs::current_path();
    fs::current_path(d.dir);  // the daemon inherits it
    const bool started = d.start(Objects{}, {"--debounce", "300"});
    fs::current_path(here);
    BOOST_TEST_REQUIRE(started);
    write_file(d.src / "a.txt", "a");
    BOOST_TEST(wait_until([&] { return holds(d.in_app("a.txt"), "a"); }));
    write_file(d.src / "b.txt", "b");
    write_file(d.src / "c.txt", "c");
    write_file(d.src / "d.txt", "d");
    BOOST_TEST(wait_until([&] { return holds(d.in_app("d.txt"), "d") && holds(d.in_app("b.txt"), "b"); }));
    BOOST_TEST(wait_outcome(wait_until([&] { return d.log_text().find("3 Files Changed: [") != std::string::npos; }),
                            [&] { return d.log_text(); }));
    const std::string log = d.log_text();
    BOOST_TEST(log.find("1 File Changed: [src/a.txt]") != std::string::npos, log);
    BOOST_TEST(log.find("3 Files Changed: [src/b.txt src/c.txt src/d.txt]") != std::string::npos, log);
    BOOST_TEST(log.find("1 File Changed: [src/a.txt]") < log.find("Will copy 1 file(s)"), log);
}
