// Sync back's rules (common/sync_back): what a container change does locally,
// checked over every combination of agreement and both sides' states; the
// mass-deletion rule; which files a syncBack rule brings back; the limits on
// names, sizes and bursts.
#define BOOST_TEST_MODULE sync_back
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "common/sync_back/sync_back_limits.hpp"
#include "common/sync_back/sync_back_mapping.hpp"
#include "common/sync_back/sync_back_rules.hpp"

namespace sb = liveupdate::sync_back;
using sb::Action;
using sb::ConflictKind;
using sb::PathState;

namespace {

const std::vector<PathState> kStates = {PathState::absent_path(), PathState::file("A"), PathState::file("B"),
                                        PathState::file("C"), PathState::other()};
const std::vector<sb::Agreed> kAgreements = {std::nullopt, std::string("A"), std::string("B")};

bool same_as_agreed(const sb::Agreed &agreed, const PathState &side) {
    return agreed ? side == PathState::file(*agreed) : side.kind == PathState::Kind::absent;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(rules)

BOOST_AUTO_TEST_CASE(a_container_change_to_a_file_unchanged_locally_is_written_locally) {
    BOOST_TEST((sb::decide(std::string("A"), PathState::file("A"), PathState::file("B"), true) ==
                sb::Decision{Action::write_local, ConflictKind::none}));
    // A file new in the container, absent locally.
    BOOST_TEST((sb::decide(std::nullopt, PathState::absent_path(), PathState::file("B"), true) ==
                sb::Decision{Action::write_local, ConflictKind::none}));
}

BOOST_AUTO_TEST_CASE(a_container_delete_of_an_agreed_file_deletes_it_locally_unless_held) {
    BOOST_TEST((sb::decide(std::string("A"), PathState::file("A"), PathState::absent_path(), true) ==
                sb::Decision{Action::delete_local, ConflictKind::none}));
    BOOST_TEST((sb::decide(std::string("A"), PathState::file("A"), PathState::absent_path(), false) ==
                sb::Decision{Action::hold_deletes, ConflictKind::none}));
}

BOOST_AUTO_TEST_CASE(each_conflict_kind) {
    BOOST_TEST((sb::decide(std::string("A"), PathState::file("B"), PathState::file("C"), true) ==
                sb::Decision{Action::conflict, ConflictKind::both_modified}));
    // Both created the same new name with different content.
    BOOST_TEST((sb::decide(std::nullopt, PathState::file("B"), PathState::file("C"), true) ==
                sb::Decision{Action::conflict, ConflictKind::both_modified}));
    BOOST_TEST((sb::decide(std::string("A"), PathState::file("B"), PathState::absent_path(), true) ==
                sb::Decision{Action::conflict, ConflictKind::local_modified_container_deleted}));
    BOOST_TEST((sb::decide(std::string("A"), PathState::absent_path(), PathState::file("B"), true) ==
                sb::Decision{Action::conflict, ConflictKind::local_deleted_container_modified}));
    // A local folder or symlink where the container has a file: never written over.
    BOOST_TEST((sb::decide(std::nullopt, PathState::other(), PathState::file("B"), true) ==
                sb::Decision{Action::conflict, ConflictKind::not_a_regular_file}));
    // A container symlink or FIFO where both had agreed on a file: never brought back.
    BOOST_TEST((sb::decide(std::string("A"), PathState::file("A"), PathState::other(), true) ==
                sb::Decision{Action::conflict, ConflictKind::not_a_regular_file}));
}

BOOST_AUTO_TEST_CASE(sides_that_converged_agree) {
    BOOST_TEST((sb::decide(std::string("A"), PathState::file("B"), PathState::file("B"), true) ==
                sb::Decision{Action::agree, ConflictKind::none}));
    BOOST_TEST((sb::decide(std::string("A"), PathState::absent_path(), PathState::absent_path(), false) ==
                sb::Decision{Action::agree, ConflictKind::none}));
}

BOOST_AUTO_TEST_CASE(a_local_change_alone_is_left_to_the_forward_sync) {
    BOOST_TEST((sb::decide(std::string("A"), PathState::file("B"), PathState::file("A"), true) == sb::Decision{}));
    BOOST_TEST((sb::decide(std::string("A"), PathState::absent_path(), PathState::file("A"), true) == sb::Decision{}));
    BOOST_TEST((sb::decide(std::nullopt, PathState::file("B"), PathState::absent_path(), true) == sb::Decision{}));
}

// Every combination: the invariants that keep both sides safe.
BOOST_AUTO_TEST_CASE(every_combination_keeps_both_sides_safe) {
    int combinations = 0;
    for (const sb::Agreed &agreed : kAgreements)
        for (const PathState &local : kStates)
            for (const PathState &container : kStates)
                for (const bool allow_deletes : {true, false}) {
                    ++combinations;
                    const sb::Decision d = sb::decide(agreed, local, container, allow_deletes);
                    BOOST_TEST_CONTEXT("agreed " << agreed.value_or("(none)") << ", local "
                                                 << static_cast<int>(local.kind) << local.digest << ", container "
                                                 << static_cast<int>(container.kind) << container.digest << ", deletes "
                                                 << allow_deletes) {
                        // A local file is replaced or deleted only when it is what both agreed on
                        // (or absent, for a new file), never a local edit.
                        if (d.action == Action::write_local || d.action == Action::delete_local)
                            BOOST_TEST(same_as_agreed(agreed, local));
                        if (d.action == Action::write_local) BOOST_TEST((container.kind == PathState::Kind::file));
                        if (d.action == Action::delete_local) {
                            BOOST_TEST(allow_deletes);
                            BOOST_TEST((container.kind == PathState::Kind::absent));
                        }
                        if (d.action == Action::hold_deletes) BOOST_TEST(!allow_deletes);
                        // Nothing that is not a regular file is ever written over or agreed on.
                        if (local.kind == PathState::Kind::other || container.kind == PathState::Kind::other)
                            BOOST_TEST((d.action == Action::nothing || d.action == Action::conflict));
                        // A conflict exactly when both changed since the agreement, differently.
                        const bool both_changed = !same_as_agreed(agreed, local) && !same_as_agreed(agreed, container);
                        const bool differ = !(local == container);
                        const bool any_other =
                            local.kind == PathState::Kind::other || container.kind == PathState::Kind::other;
                        if (d.action == Action::conflict)
                            BOOST_TEST((d.conflict != ConflictKind::none));
                        else
                            BOOST_TEST((d.conflict == ConflictKind::none));
                        if (!any_other) BOOST_TEST((d.action == Action::conflict) == (both_changed && differ));
                        // Equal sides agree; a container as agreed asks nothing.
                        if (!any_other && !differ) BOOST_TEST((d.action == Action::agree));
                        if (same_as_agreed(agreed, container) && differ) BOOST_TEST((d.action == Action::nothing));
                    }
                }
    BOOST_TEST(combinations == 150);
}

// A forward sync that sets the container whole (a restarted daemon's initial
// sync, a verify's repair) carries what only the local side changed; a
// container change is left to come back (or to be a conflict), so it never
// overwrites one; a root gone or empty gets everything.
BOOST_AUTO_TEST_CASE(a_whole_forward_sync_carries_only_what_the_local_side_alone_changed) {
    const sb::ContainerRoot holds{.exists = true, .empty = false};
    const sb::Agreed a = std::string("A");
    BOOST_TEST(sb::forward_carries(a, PathState::file("B"), PathState::file("A"), holds));
    BOOST_TEST(sb::forward_carries(a, PathState::absent_path(), PathState::file("A"), holds));  // a local delete
    BOOST_TEST(sb::forward_carries(std::nullopt, PathState::file("B"), PathState::absent_path(), holds));
    BOOST_TEST(!sb::forward_carries(a, PathState::file("A"), PathState::file("C"), holds));  // comes back
    BOOST_TEST(!sb::forward_carries(a, PathState::file("A"), PathState::absent_path(), holds));
    BOOST_TEST(!sb::forward_carries(a, PathState::file("B"), PathState::file("C"), holds));  // a conflict
    BOOST_TEST(!sb::forward_carries(std::nullopt, PathState::file("B"), PathState::file("C"), holds));
    BOOST_TEST(!sb::forward_carries(a, PathState::file("B"), PathState::other(), holds));
    BOOST_TEST(!sb::forward_carries(a, PathState::file("A"), PathState::file("A"), holds));  // nothing to carry
    for (const sb::ContainerRoot root : {sb::ContainerRoot{}, sb::ContainerRoot{.exists = true, .empty = true}})
        BOOST_TEST(sb::forward_carries(a, PathState::file("A"), PathState::absent_path(), root));
    // Whatever it carries, decide() would have taken no container change there.
    for (const sb::Agreed &agreed : kAgreements)
        for (const PathState &local : kStates)
            for (const PathState &container : kStates)
                if (sb::forward_carries(agreed, local, container, holds))
                    BOOST_TEST((sb::decide(agreed, local, container, true).action == Action::nothing));
}

BOOST_AUTO_TEST_CASE(a_file_that_came_back_is_an_echo_and_an_edit_is_not) {
    BOOST_TEST(sb::is_echo(std::string("A"), PathState::file("A")));
    BOOST_TEST(!sb::is_echo(std::string("A"), PathState::file("B")));
    BOOST_TEST(!sb::is_echo(std::string("A"), PathState::absent_path()));
    BOOST_TEST(!sb::is_echo(std::nullopt, PathState::file("A")));
}

BOOST_AUTO_TEST_CASE(a_gone_or_empty_sync_root_deletes_nothing) {
    BOOST_TEST(!sb::deletes_allowed({.exists = false, .empty = true}));
    BOOST_TEST(!sb::deletes_allowed({.exists = true, .empty = true}));
    BOOST_TEST(sb::deletes_allowed({.exists = true, .empty = false}));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(limits)

BOOST_AUTO_TEST_CASE(hostile_names_are_refused) {
    const sb::Limits limits;
    for (const std::string &name : std::vector<std::string>{
             "", "/etc/passwd", "..", "../x", "a/../../x", "a/..", "./a", "a/./b", "a//b", "a/", std::string("a\0b", 3),
             std::string("bad\xff", 4), std::string(256, 'x'), "a/" + std::string(256, 'y'), std::string(4096, 'z')})
        BOOST_TEST_CONTEXT("name of " << name.size() << " bytes") {
            BOOST_TEST(!sb::name_refusal(name, limits).empty());
        }
}

BOOST_AUTO_TEST_CASE(ordinary_names_pass) {
    const sb::Limits limits;
    for (const std::string &name :
         std::vector<std::string>{"package-lock.json", "db/migrations/0001_init.py", "..hidden", "a..b", ".env",
                                  "é/ü.txt", std::string(255, 'x')})
        BOOST_TEST_CONTEXT(name) { BOOST_TEST(sb::name_refusal(name, limits) == ""); }
}

BOOST_AUTO_TEST_CASE(a_file_over_the_size_limit_is_refused) {
    sb::Limits limits;
    limits.max_file_bytes = 10;
    BOOST_TEST(sb::size_refusal(10, limits) == "");
    BOOST_TEST(sb::size_refusal(11, limits) == "a file of 11 bytes (at most 10)");
    BOOST_TEST(!sb::size_refusal(2ull << 30, sb::Limits{}).empty());
}

BOOST_AUTO_TEST_CASE(the_rate_budget_lets_a_burst_pass_then_holds_the_steady_rate) {
    sb::RateBudget budget(2, 3);
    for (int i = 0; i < 3; ++i) BOOST_TEST(budget.take(1000));
    BOOST_TEST(!budget.take(1000));
    BOOST_TEST(!budget.take(1499));  // 499 ms at 2 a second: not yet one file
    BOOST_TEST(budget.take(1500));
    BOOST_TEST(!budget.take(1500));
    // A quiet while fills the bucket to its size, not past it.
    for (int i = 0; i < 3; ++i) BOOST_TEST(budget.take(100'000));
    BOOST_TEST(!budget.take(100'000));
    // A clock that goes back refills nothing.
    BOOST_TEST(!budget.take(50'000));
    BOOST_TEST(!budget.take(100'000));
}

BOOST_AUTO_TEST_CASE(by_default_a_generators_burst_passes_whole_and_a_flood_is_held) {
    const sb::Limits limits;
    sb::RateBudget budget(limits.max_files_per_second, limits.max_burst_files);
    int passed = 0;
    for (int i = 0; i < 100'000; ++i) passed += budget.take(5000) ? 1 : 0;
    BOOST_TEST(passed == 20'000);
    // A second later, the steady rate only.
    for (int i = 0; i < 100'000; ++i) passed += budget.take(6000) ? 1 : 0;
    BOOST_TEST(passed == 22'000);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(mapping)

BOOST_AUTO_TEST_CASE(only_matching_files_beneath_container_path_come_back) {
    const sb::SyncBackMapping m("/home/dev/app", "/app",
                                {"package-lock.json", "db/migrations", "gen/*.go", "!gen/skip.go"});
    BOOST_TEST(m.wanted("/app/package-lock.json").value_or("") == "package-lock.json");
    BOOST_TEST(m.wanted("/app/db/migrations/0001.py").value_or("") == "db/migrations/0001.py");
    BOOST_TEST(m.wanted("/app/gen/a.go").value_or("") == "gen/a.go");
    BOOST_TEST(!m.wanted("/app/gen/skip.go"));
    BOOST_TEST(!m.wanted("/app/src/main.js"));
    BOOST_TEST(!m.wanted("/app"));
    BOOST_TEST(!m.wanted("/etc/passwd"));
    BOOST_TEST(!m.wanted("/app/../etc/package-lock.json"));
    BOOST_TEST(!m.wanted("/application/package-lock.json"));
    BOOST_TEST(m.local_file("db/migrations/0001.py") == "/home/dev/app/db/migrations/0001.py");
}

// The local updater writes a guarded file into such a temporary beside it
// before the rename: seen by a local container's watch, it must not come back.
BOOST_AUTO_TEST_CASE(a_temporary_of_a_forward_write_never_comes_back) {
    const sb::SyncBackMapping m("/home/dev/app", "/app", {"gen"});
    BOOST_TEST(!m.wanted("/app/gen/.lu-agent-42-7-0123456789abcdef"));
    BOOST_TEST(!m.wanted("/app/gen/deep/.lu-agent-1-0-fedcba9876543210"));
    // Only our exact form: the app's look-alikes come back as any file.
    BOOST_TEST(m.wanted("/app/gen/.lu-agent-1-2").value_or("") == "gen/.lu-agent-1-2");
    BOOST_TEST(m.wanted("/app/gen/.lu-agent-42-7-0123456789abcdef.txt").has_value());
}

BOOST_AUTO_TEST_CASE(no_pattern_brings_nothing_back) {
    const sb::SyncBackMapping m("/home/dev/app", "/app", {});
    BOOST_TEST(!m.wanted("/app/package-lock.json"));
}

BOOST_AUTO_TEST_CASE(a_malformed_pattern_is_an_error_naming_it) {
    BOOST_CHECK_THROW(sb::SyncBackMapping("/l", "/app", {"[a-"}), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
