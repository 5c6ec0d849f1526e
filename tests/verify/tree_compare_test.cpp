// The rule of `lu-host verify`: what differs between a local tree's digest
// and the container's, with ignores, nested targets and the repair it implies.
#define BOOST_TEST_MODULE tree_compare_tests
#include <boost/test/unit_test.hpp>

#include "host/verify/tree_compare.hpp"
#include "host/verify/verify_schedule.hpp"

using namespace liveupdate;
using namespace liveupdate::host::verify;
using tree_digest::Entry;
using tree_digest::EntryKind;

namespace {

Entry dir(std::string path) { return {std::move(path), EntryKind::dir, 0755, 0, 0}; }
Entry file(std::string path, std::uint64_t hash, std::uint64_t size = 3, std::uint32_t mode = 0644) {
    return {std::move(path), EntryKind::file, mode, size, hash};
}

const updater::CopyMapping kTarget{"/src", "/app"};

std::vector<std::string> paths(const std::vector<Difference> &list) {
    std::vector<std::string> out;
    out.reserve(list.size());
    for (const auto &d : list) out.push_back(d.container_path);
    return out;
}

using Paths = std::vector<std::string>;

// A synced journal holding every path of the container's digest: all of it was synced by liveupdate.
host::SyncedPaths all_synced(const tree_digest::Digest &container, const std::string &root = "/app") {
    host::SyncedPaths out;
    for (const auto &e : container) out.insert(e.path.empty() ? root : root + "/" + e.path);
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(equal_trees_have_no_differences) {
    const tree_digest::Digest tree{dir(""), file("a.txt", 1), dir("sub"), file("sub/b.txt", 2)};
    BOOST_TEST(compare_target(kTarget, tree, tree, {}, {}).empty());
}

BOOST_AUTO_TEST_CASE(missing_extra_and_different_files_are_told_apart) {
    const tree_digest::Digest local{dir(""), file("a.txt", 1), file("changed.txt", 2), file("gone-there.txt", 3)};
    const tree_digest::Digest container{dir(""), file("a.txt", 1), file("changed.txt", 9), file("only-there.txt", 4)};
    const Differences d = compare_target(kTarget, local, container, {}, {}, all_synced(container));
    BOOST_TEST(paths(d.missing) == Paths{"/app/gone-there.txt"}, boost::test_tools::per_element());
    BOOST_TEST(paths(d.extra) == Paths{"/app/only-there.txt"}, boost::test_tools::per_element());
    BOOST_TEST(paths(d.different) == Paths{"/app/changed.txt"}, boost::test_tools::per_element());
    BOOST_TEST(d.different[0].why == "the content differs");
    BOOST_TEST(d.missing[0].local_path == "/src/gone-there.txt");
}

BOOST_AUTO_TEST_CASE(size_kind_and_executable_bit_count_other_permissions_do_not) {
    const tree_digest::Digest local{dir(""), file("size", 1, 3), file("exec", 2, 3, 0755), file("perm", 3, 3, 0644),
                                    file("kind", 4)};
    const tree_digest::Digest container{
        dir(""),     file("size", 1, 4),    file("exec", 2, 3, 0644), file("perm", 3, 3, 0600),
        dir("kind"), file("kind/inside", 5)};
    const Differences d = compare_target(kTarget, local, container, {}, {}, all_synced(container));
    BOOST_TEST(paths(d.different) == (Paths{"/app/exec", "/app/kind", "/app/size"}), boost::test_tools::per_element());
    BOOST_TEST(d.different[0].why == "executable here, not in the container");
    BOOST_TEST(d.different[1].why == "a file here, a folder in the container");
    BOOST_TEST(d.different[2].why == "3 bytes here, 4 in the container");
    // What lies in a folder that becomes a file goes with it, not as an extra.
    BOOST_TEST(d.extra.empty());
}

BOOST_AUTO_TEST_CASE(an_extra_folder_stands_for_what_it_holds) {
    const tree_digest::Digest local{dir(""), file("a", 1)};
    const tree_digest::Digest container{dir(""),          file("a", 1),    dir("old"),
                                        file("old/x", 2), dir("old/deep"), file("old/deep/y", 3)};
    const Differences d = compare_target(kTarget, local, container, {}, {}, all_synced(container));
    BOOST_TEST(paths(d.extra) == Paths{"/app/old"}, boost::test_tools::per_element());
    // "old-x" sorts between "old" and "old/x": it is not inside the folder.
    const tree_digest::Digest with_sibling{dir(""), file("a", 1), dir("old"), file("old-x", 4), file("old/x", 2)};
    BOOST_TEST(paths(compare_target(kTarget, local, with_sibling, {}, {}, all_synced(with_sibling)).extra) ==
                   (Paths{"/app/old", "/app/old-x"}),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_target_missing_in_the_container_misses_every_file_but_not_empty_folders) {
    const tree_digest::Digest local{dir(""), file("a", 1), dir("empty"), dir("sub"), file("sub/b", 2)};
    const Differences d = compare_target(kTarget, local, {}, {}, {});
    BOOST_TEST(paths(d.missing) == (Paths{"/app/a", "/app/sub/b"}), boost::test_tools::per_element());
    BOOST_TEST(d.extra.empty());
}

BOOST_AUTO_TEST_CASE(ignored_paths_are_left_out_on_both_sides) {
    common::IgnoreSet ignore;
    ignore.add(common::IgnorePatterns("/src", {"*.log", "cache/"}));
    const tree_digest::Digest local{dir(""), file("a", 1), file("here.log", 2), dir("cache"), file("cache/x", 3)};
    const tree_digest::Digest container{dir(""), file("a", 1), file("there.log", 4), dir("cache"), file("cache/y", 5)};
    BOOST_TEST(compare_target(kTarget, local, container, ignore, {}).empty());
    // Without the ignores the same trees differ: the test can fail.
    BOOST_TEST(compare_target(kTarget, local, container, {}, {}, all_synced(container)).count() == 4u);
}

BOOST_AUTO_TEST_CASE(targets_nested_in_the_container_are_left_to_their_own_comparison) {
    const tree_digest::Digest local{dir(""), file("a", 1)};
    const tree_digest::Digest container{dir(""), file("a", 1), dir("manual"), file("manual/x", 2)};
    BOOST_TEST(compare_target(kTarget, local, container, {}, {"/app/manual", "/app", "/elsewhere"}).empty());
    BOOST_TEST(paths(compare_target(kTarget, local, container, {}, {"/elsewhere"}, all_synced(container)).extra) ==
                   Paths{"/app/manual"},
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_file_target_compares_its_one_entry) {
    const updater::CopyMapping one{"/src/config.yaml", "/etc/app/config.yaml"};
    const Differences d = compare_target(one, {file("", 1)}, {file("", 2)}, {}, {});
    BOOST_TEST(paths(d.different) == Paths{"/etc/app/config.yaml"}, boost::test_tools::per_element());
    BOOST_TEST(d.different[0].local_path == "/src/config.yaml");
}

BOOST_AUTO_TEST_CASE(symlinks_compare_by_target) {
    const Entry here{"link", EntryKind::symlink, 0777, 5, 10};
    Entry there = here;
    BOOST_TEST(compare_target(kTarget, {dir(""), here}, {dir(""), there}, {}, {}).empty());
    there.hash = 11;
    BOOST_TEST(compare_target(kTarget, {dir(""), here}, {dir(""), there}, {}, {}).different[0].why ==
               "the symlink's target differs");
}

BOOST_AUTO_TEST_CASE(the_repair_deletes_extras_and_changed_kinds_and_copies_the_rest) {
    const tree_digest::Digest local{dir(""),         file("missing", 1), file("changed", 2),
                                    file("kind", 3), dir("was-file"),    file("was-file/in", 4)};
    const tree_digest::Digest container{dir(""), file("changed", 9), dir("kind"), file("extra", 5),
                                        file("was-file", 6)};
    const Repair r = repair_of(compare_target(kTarget, local, container, {}, {}, all_synced(container)));
    BOOST_TEST(r.deletes == (Paths{"/app/extra", "/app/kind", "/app/was-file"}), boost::test_tools::per_element());
    std::vector<std::string> copied;
    for (const auto &c : r.copies) copied.push_back(c.local_path + " -> " + c.container_path);
    BOOST_TEST(copied == (Paths{"/src/changed -> /app/changed", "/src/kind -> /app/kind",
                                "/src/missing -> /app/missing", "/src/was-file/in -> /app/was-file/in"}),
               boost::test_tools::per_element());
}

// A container is trusted less than the developer's files: a digest whose
// paths climb out of the target (a hostile lu-agent) must not turn into a
// report of, or a repair's delete of, paths elsewhere in the container.
BOOST_AUTO_TEST_CASE(a_container_digest_with_paths_out_of_the_target_is_refused) {
    const tree_digest::Digest local{dir(""), file("a.txt", 1)};
    for (const std::string hostile : {"..", "../etc", "sub/../../etc", "/etc/passwd", "./a.txt", "sub//b", "sub/"}) {
        const tree_digest::Digest container{dir(""), file("a.txt", 1), dir(hostile)};
        const host::SyncedPaths synced{"/app/a.txt", "/etc", "/etc/passwd"};
        BOOST_CHECK_EXCEPTION(repair_of(compare_target(kTarget, local, container, {}, {}, synced), true),
                              std::runtime_error, [&](const std::runtime_error &e) {
                                  const std::string what = e.what();
                                  BOOST_TEST(what.find("the container's digest of /app is refused: the path") == 0u,
                                             what);
                                  return true;
                              });
    }
    const tree_digest::Digest fine{dir(""), file("a.txt", 1), file("..b", 2), file("sub/.c", 3)};
    BOOST_TEST(repair_of(compare_target(kTarget, local, fine, {}, {}, host::SyncedPaths{}), true).deletes ==
                   Paths({"/app/..b", "/app/sub/.c"}),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(intervals_read_as_durations) {
    using std::chrono::milliseconds;
    BOOST_TEST(parse_interval("30s")->count() == 30000);
    BOOST_TEST(parse_interval("30")->count() == 30000);
    BOOST_TEST(parse_interval("500ms")->count() == 500);
    BOOST_TEST(parse_interval("5m")->count() == 300000);
    BOOST_TEST(parse_interval("off")->count() == 0);
    BOOST_TEST(!parse_interval("soon"));
    BOOST_TEST(!parse_interval("-1s"));
    BOOST_TEST(!parse_interval("10 s"));
}

// Issue 19: what liveupdate never synced is the app's (a database, uploads,
// node_modules): told as unsynced, never deleted by a repair unless asked.
BOOST_AUTO_TEST_CASE(a_path_liveupdate_never_synced_is_unsynced_and_the_repair_leaves_it) {
    const tree_digest::Digest local{dir(""), file("a", 1)};
    const tree_digest::Digest container{dir(""),         file("a", 1),   file("app.sqlite", 2),
                                        file("gone", 3), dir("uploads"), file("uploads/p.png", 4)};
    const Differences d = compare_target(kTarget, local, container, {}, {}, {"/app", "/app/a", "/app/gone"});
    BOOST_TEST(paths(d.extra) == Paths{"/app/gone"}, boost::test_tools::per_element());
    BOOST_TEST(paths(d.unsynced) == (Paths{"/app/app.sqlite", "/app/uploads"}), boost::test_tools::per_element());
    BOOST_TEST(d.count() == 1u);  // the app's files are not differences
    BOOST_TEST(repair_of(d).deletes == Paths{"/app/gone"}, boost::test_tools::per_element());
    BOOST_TEST(repair_of(d, true).deletes == (Paths{"/app/gone", "/app/app.sqlite", "/app/uploads"}),
               boost::test_tools::per_element());
}

// The fault soak: lu-agent killed between writing a temporary file and
// renaming it into place (agent kill, container restart) leaves the
// temporary file. It is liveupdate's own, never in the journal: extra, and
// the repair (after the agent reconnects) deletes it. A name only like it
// (an app's file, or the token-less name of older agents) stays.
BOOST_AUTO_TEST_CASE(a_temporary_file_of_a_killed_agent_is_extra_and_the_repair_deletes_it) {
    const tree_digest::Digest local{dir(""), file("a", 1), dir("sub")};
    const tree_digest::Digest container{dir(""),
                                        file("a", 1),
                                        file(".lu-agent-7-38-00000000deadbeef", 2),
                                        dir("sub"),
                                        file("sub/.lu-agent-12-3", 3),
                                        file("sub/.lu-agent-12-3-0123456789abcdef", 3),
                                        file("sub/.lu-agent-12-3-0123456789ABCDEF", 3),
                                        file("sub/.lu-agent-notes", 4),
                                        file("sub/.lu-agent-7-x", 5)};
    const Differences d = compare_target(kTarget, local, container, {}, {}, {"/app", "/app/a", "/app/sub"});
    const Paths ours{"/app/.lu-agent-7-38-00000000deadbeef", "/app/sub/.lu-agent-12-3-0123456789abcdef"};
    BOOST_TEST(paths(d.extra) == ours, boost::test_tools::per_element());
    BOOST_TEST(paths(d.unsynced) == (Paths{"/app/sub/.lu-agent-12-3", "/app/sub/.lu-agent-12-3-0123456789ABCDEF",
                                           "/app/sub/.lu-agent-7-x", "/app/sub/.lu-agent-notes"}),
               boost::test_tools::per_element());
    BOOST_TEST(repair_of(d).deletes == ours, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_folder_holding_synced_and_app_files_is_told_one_by_one) {
    const tree_digest::Digest local{dir(""), file("a", 1)};
    const tree_digest::Digest container{dir(""), file("a", 1), dir("old"), file("old/synced", 2),
                                        file("old/app.db", 3)};
    const Differences d =
        compare_target(kTarget, local, container, {}, {}, {"/app", "/app/a", "/app/old", "/app/old/synced"});
    BOOST_TEST(paths(d.extra) == Paths{"/app/old/synced"}, boost::test_tools::per_element());
    BOOST_TEST(paths(d.unsynced) == Paths{"/app/old/app.db"}, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(an_ignored_app_file_keeps_its_synced_folder_from_being_deleted_whole) {
    common::IgnoreSet ignore;
    ignore.add(common::IgnorePatterns("/src", {"**/node_modules"}));
    const tree_digest::Digest local{dir(""), file("a", 1)};
    const tree_digest::Digest container{dir(""),
                                        file("a", 1),
                                        dir("web"),
                                        file("web/index.js", 2),
                                        dir("web/node_modules"),
                                        file("web/node_modules/x.js", 3)};
    const Differences d =
        compare_target(kTarget, local, container, ignore, {}, {"/app/a", "/app/web", "/app/web/index.js"});
    BOOST_TEST(paths(d.extra) == Paths{"/app/web/index.js"}, boost::test_tools::per_element());
    BOOST_TEST(d.unsynced.empty());  // ignored: not told, and not deleted with its folder
}

BOOST_AUTO_TEST_CASE(a_kind_change_over_app_files_is_left_with_what_lies_beneath) {
    const tree_digest::Digest local{dir(""), file("data", 1), dir("conf"), file("conf/x", 2)};
    const tree_digest::Digest container{dir(""), dir("data"), file("data/app.db", 3), file("conf", 4)};
    const Differences d = compare_target(kTarget, local, container, {}, {}, {"/app"});
    BOOST_TEST_REQUIRE(d.different.size() == 2u);
    BOOST_TEST(d.different[0].holds_unsynced);
    BOOST_TEST(d.different[1].holds_unsynced);
    const Repair r = repair_of(d);
    BOOST_TEST(r.deletes.empty());
    BOOST_TEST(r.copies.empty());  // conf/x cannot go beneath a file that stays
    const Repair forced = repair_of(d, true);
    BOOST_TEST(forced.deletes == (Paths{"/app/conf", "/app/data"}), boost::test_tools::per_element());
    BOOST_TEST(forced.copies.size() == 2u);
}

// A repair leaves what sync back brings back: a file the container rewrote,
// one it deleted, and a folder it kept a new file in are not differences the
// repair failed to mend; a difference next to them still is.
BOOST_AUTO_TEST_CASE(what_a_repair_left_for_sync_back_is_taken_out_of_the_differences) {
    const tree_digest::Digest local{dir(""), file("lock.json", 1), file("deleted.sql", 2), file("stale.js", 3)};
    const tree_digest::Digest container{dir(""),           file("lock.json", 9), file("stale.js", 4),
                                        dir("gen"),        file("gen/new", 5),   dir("gen-x"),
                                        file("gen-x/y", 6)};
    Differences d = compare_target(kTarget, local, container, {}, {}, all_synced(container));
    const std::vector<Difference> left =
        take_left_for_sync_back(d, {"/app/lock.json", "/app/deleted.sql", "/app/gen/new"});
    BOOST_TEST(paths(left) == (Paths{"/app/deleted.sql", "/app/gen", "/app/lock.json"}),
               boost::test_tools::per_element());
    BOOST_TEST(paths(d.different) == Paths{"/app/stale.js"}, boost::test_tools::per_element());
    BOOST_TEST(paths(d.extra) == Paths{"/app/gen-x"}, boost::test_tools::per_element());
    BOOST_TEST(d.missing.empty());
    BOOST_TEST(d.count() == 2u);
}
