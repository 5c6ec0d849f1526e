// Sync back through a real `lu-host up` (docs/sync-back.md): files written in
// a local container's folder come back to the LiveUpdate's localPath with
// their bytes and mode, a hostile container writes nothing outside it, and a
// conflict shows in `get`, `describe` and the status page until resolved, and
// a restarted daemon overwrites nothing the app changed while none ran.
#define BOOST_TEST_MODULE up_sync_back_tests
#include <sys/stat.h>

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <iterator>
#include <map>
#include <sstream>
#include <thread>

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
    BOOST_TEST_REQUIRE(wait_outcome(wait_until([&] { return d.log_text().find(": started") != std::string::npos; }),
                                    [&] { return d.log_text(); }));
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

// The daemon's lines about LiveUpdate lu holding `text`.
std::size_t lines_with(const std::string &log, const std::string &text) {
    std::size_t count = 0;
    std::istringstream lines(log);
    for (std::string line; std::getline(lines, line);)
        if (line.find("[lu]") != std::string::npos && line.find(text) != std::string::npos) ++count;
    return count;
}

// LiveUpdate lu's open sync-back conflicts, as `get liveupdates -o json` shows them.
json::array conflicts_of(const UpDaemon &d) {
    const json::value status = d.status_of("LiveUpdate", "lu");
    const json::value *conflicts = status.is_object() ? status.as_object().if_contains("syncBackConflicts") : nullptr;
    return conflicts != nullptr && conflicts->is_array() ? conflicts->as_array() : json::array{};
}

// The COLUMN-th word (from 0) of the row of `lu-host get` starting with name.
std::string column_of(const std::string &table, const std::string &name, std::size_t column) {
    std::istringstream lines(table);
    for (std::string line; std::getline(lines, line);) {
        std::istringstream words(line);
        std::vector<std::string> row{std::istream_iterator<std::string>(words), std::istream_iterator<std::string>()};
        if (!row.empty() && row[0] == name && row.size() > column) return row[column];
    }
    return "";
}

// A route of the status page (e.g. "api/status"), through its printed URL and
// its secret as a Bearer token (the last daemon's, when it was restarted);
// "" when the page cannot be read.
std::string page(const UpDaemon &d, const std::string &route) {
    const std::string log = d.log_text();
    const std::string marker = "up: status page ";
    const std::size_t at = log.rfind(marker);
    if (at == std::string::npos) return "";
    const std::string url =
        log.substr(at + marker.size(), log.find_first_of(" \n", at + marker.size()) - (at + marker.size()));
    const std::size_t query = url.find("?token=");
    if (query == std::string::npos) return "";
    return run_command("curl -s --max-time 10 -H 'Authorization: Bearer " + url.substr(query + 7) + "' '" +
                       url.substr(0, query) + route + "'")
        .output;
}

json::value api_status(const UpDaemon &d) { return json_or_text(page(d, "api/status")); }

// The metrics' container update counts, one line each ("" when the page cannot be read).
std::string container_updates(const UpDaemon &d) {
    std::istringstream lines(page(d, "metrics"));
    std::string out;
    for (std::string line; std::getline(lines, line);)
        if (line.starts_with("lu_container_updates_total{")) out += line + "\n";
    return out;
}

// The status page's conflicts of LiveUpdate lu.
json::array page_conflicts(const UpDaemon &d) {
    const json::value status = api_status(d);
    if (!status.is_object()) return {};
    for (const auto &row : status.at("liveUpdates").as_array())
        if (row.at("name") == json::value("lu")) return row.at("syncBackConflicts").as_array();
    return {};
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_conflict_shows_in_get_describe_and_the_status_page_until_resolved) {
    UpDaemon d;
    Objects o = with_sync_back();
    // The lockfile belongs to the container: a local edit of it is not sent forward, so a conflict stays.
    o.file_watch["spec"].as_object()["ignores"].as_array()[0].as_object()["patterns"].as_array().emplace_back(
        "package-lock.json");
    start_syncing_back(d, o, {"--debounce", "0", "--web-port", "0"});
    write_file(d.in_app("package-lock.json"), "{\"lock\": 1}");
    BOOST_TEST_REQUIRE(wait_outcome(wait_until([&] { return holds(d.src / "package-lock.json", "{\"lock\": 1}"); }),
                                    [&] { return d.log_text(); }));
    BOOST_TEST(conflicts_of(d).empty());
    // Both sides edited since they agreed: a conflict, nothing overwritten.
    write_file(d.src / "package-lock.json", "{\"lock\": \"local\"}");
    write_file(d.in_app("package-lock.json"), "{\"lock\": \"container\"}");
    BOOST_TEST_REQUIRE(
        wait_outcome(wait_until([&] { return conflicts_of(d).size() == 1u; }), [&] { return d.log_text(); }));
    const json::object conflict = conflicts_of(d).at(0).as_object();
    BOOST_TEST(conflict.at("container").as_string() == "box");
    BOOST_TEST(conflict.at("path").as_string() == "/app/package-lock.json");
    BOOST_TEST(conflict.at("localPath").as_string() == (d.src / "package-lock.json").string());
    BOOST_TEST(conflict.at("kind").as_string() == "BothModified");
    BOOST_TEST(holds(d.src / "package-lock.json", "{\"lock\": \"local\"}"));
    BOOST_TEST(holds(d.in_app("package-lock.json"), "{\"lock\": \"container\"}"));
    const std::string table = d.cli("get liveupdates");
    BOOST_TEST(column_of(table, "NAME", 4) == "SYNC", table);  // LAST SYNC: two words
    BOOST_TEST(column_of(table, "NAME", 5) == "CONFLICTS", table);
    BOOST_TEST(column_of(table, "lu", 4) == "1", table);
    const std::string described = d.cli("describe liveupdate lu");
    BOOST_TEST(described.find("Sync-back conflicts") != std::string::npos, described);
    BOOST_TEST(described.find("/app/package-lock.json   " + (d.src / "package-lock.json").string() +
                              "   BothModified") != std::string::npos,
               described);
    const json::array on_page = page_conflicts(d);
    BOOST_TEST_REQUIRE(on_page.size() == 1u, json::serialize(api_status(d)));
    BOOST_TEST(on_page.at(0).at("localPath").as_string() == "src/package-lock.json");
    BOOST_TEST(on_page.at(0).at("kind").as_string() == "BothModified");
    const std::string metrics = page(d, "metrics");
    BOOST_TEST(metrics.find("lu_sync_back_conflicts_total{live_update=\"lu\"} 1") != std::string::npos, metrics);
    // Resolved: the container's side edited to agree with the local one.
    write_file(d.in_app("package-lock.json"), "{\"lock\": \"local\"}");
    BOOST_TEST(wait_outcome(wait_until([&] { return conflicts_of(d).empty(); }), [&] { return d.log_text(); }));
    BOOST_TEST(d.cli("describe liveupdate lu").find("Sync-back conflicts") == std::string::npos);
    BOOST_TEST(wait_until([&] { return page_conflicts(d).empty(); }));
    BOOST_TEST(holds(d.src / "package-lock.json", "{\"lock\": \"local\"}"));
}

BOOST_AUTO_TEST_CASE(files_that_came_back_are_not_sent_forward_again) {
    UpDaemon d;
    Objects o = with_sync_back();
    add_witness(o);
    start_syncing_back(d, o, {"--debounce", "0", "--workers", "1"});
    write_file(d.in_app("package-lock.json"), "{\"lock\": 1}");
    write_file(d.in_app("gen/deep/migration.sql"), "create table t;");
    BOOST_TEST(wait_outcome(wait_until([&] { return holds(d.src / "package-lock.json", "{\"lock\": 1}"); }),
                            [&] { return d.log_text(); }));
    BOOST_TEST(wait_until([&] { return holds(d.src / "gen/deep/migration.sql", "create table t;"); }));
    // Written again in the container at once: an echo of the first would overwrite it there.
    write_file(d.in_app("package-lock.json"), "{\"lock\": 2}");
    BOOST_TEST(wait_outcome(wait_until([&] { return holds(d.src / "package-lock.json", "{\"lock\": 2}"); }),
                            [&] { return d.log_text(); }));
    BOOST_TEST_REQUIRE(d.witness_barrier());
    BOOST_TEST(echoes(d.log_text()) == 0u, d.log_text());
    BOOST_TEST(holds(d.in_app("package-lock.json"), "{\"lock\": 2}"));
    // A developer's own edit of a file that came back is sent forward as ever.
    write_file(d.src / "package-lock.json", "{\"lock\": 3}");
    BOOST_TEST(wait_outcome(wait_until([&] { return holds(d.in_app("package-lock.json"), "{\"lock\": 3}"); }),
                            [&] { return d.log_text(); }));
}

BOOST_AUTO_TEST_CASE(a_file_written_in_the_container_comes_back_with_its_mode) {
    UpDaemon d;
    start_syncing_back(d, with_sync_back());
    write_file(d.in_app("other.txt"), "stays in the container");
    write_file(d.in_app("package-lock.json"), "{\"lock\": 1}");
    ::chmod(d.in_app("package-lock.json").c_str(), 0750);
    write_file(d.in_app("gen/deep/migration.sql"), "create table t;");
    BOOST_TEST(wait_outcome(wait_until([&] { return holds(d.src / "package-lock.json", "{\"lock\": 1}"); }),
                            [&] { return d.log_text(); }));
    BOOST_TEST(wait_until([&] { return mode_of(d.src / "package-lock.json") == 0750; }));
    BOOST_TEST(wait_until([&] { return holds(d.src / "gen/deep/migration.sql", "create table t;"); }));
    BOOST_TEST(!has(d.src / "other.txt"));
    // The line is logged once the file is in place: it may come a moment after.
    BOOST_TEST(wait_until([&] {
        return d.log_text().find("came back to " + (d.src / "package-lock.json").string()) != std::string::npos;
    }));
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
    BOOST_TEST(wait_outcome(wait_until([&] { return d.log_text().find("gen/evil.txt") != std::string::npos; }),
                            [&] { return d.log_text(); }));
    fs::remove(d.in_app("package-lock.json"));
    BOOST_TEST_REQUIRE(::mkfifo(d.in_app("package-lock.json").c_str(), 0644) == 0);
    // Not stalled by any of it: a file written after them still comes back.
    fs::remove(d.src / "gen");
    fs::create_directories(d.src / "gen");
    // The forward sync of the new local folder first: it may replace the
    // container's gen/ (ours was a symlink), and a file written there before
    // it would go with it.
    write_file(d.src / "gen/marker.txt", "m");
    BOOST_TEST_REQUIRE(
        wait_outcome(wait_until([&] { return holds(d.in_app("gen/marker.txt"), "m"); }), [&] { return d.log_text(); }));
    write_file(d.in_app("gen/after.txt"), "after");
    BOOST_TEST(wait_outcome(wait_until([&] { return holds(d.src / "gen/after.txt", "after"); }),
                            [&] { return d.log_text(); }));
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
    BOOST_TEST(wait_outcome(wait_until([&] { return d.log_text().find(": stopped") != std::string::npos; }),
                            [&] { return d.log_text(); }));
    write_file(d.in_app("package-lock.json"), "not wanted");
    write_file(d.src / "marker.txt", "m");  // a forward sync after the write: the daemon is not idle
    BOOST_TEST(wait_until([&] { return holds(d.in_app("marker.txt"), "m"); }));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    BOOST_TEST(!has(d.src / "package-lock.json"));
}

BOOST_AUTO_TEST_CASE(a_burst_of_local_saves_is_neither_a_conflict_nor_comes_back) {
    UpDaemon d;
    start_syncing_back(d, with_sync_back());
    // Saves quicker than the container's watcher looks at each forward sync:
    // a forward sync that did not agree on what it sent left the container's
    // copy of one save to meet the next local save, a conflict.
    std::string last;
    for (int i = 0; i < 60; ++i) {
        last = "{\"lock\": " + std::to_string(i) + "}";
        write_file(d.src / "package-lock.json", last);
        write_file(d.src / "gen/out.txt", last);
        std::this_thread::sleep_for(std::chrono::milliseconds(i % 3 == 0 ? 25 : 5));
    }
    BOOST_TEST_REQUIRE(wait_outcome(
        wait_until([&] { return holds(d.in_app("package-lock.json"), last) && holds(d.in_app("gen/out.txt"), last); }),
        [&] { return d.log_text(); }));
    // Past the container watcher's debounce: it has looked at the last one.
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const std::string log = d.log_text();
    BOOST_TEST(lines_with(log, ": conflict: ") == 0u, log);
    BOOST_TEST(lines_with(log, " came back to ") == 0u, log);  // so nothing to echo either
    BOOST_TEST(conflicts_of(d).empty());
    BOOST_TEST(holds(d.src / "package-lock.json", last));
    BOOST_TEST(holds(d.src / "gen/out.txt", last));
}

BOOST_AUTO_TEST_CASE(a_lockfile_synced_forward_comes_back_when_the_container_rewrites_it) {
    UpDaemon d;
    // There before the daemon: only the initial sync carries it, before any
    // watcher of the container runs, so only that sync can agree on it.
    write_file(d.src / "package-lock.json", "{\"lock\": \"local\"}");
    start_syncing_back(d, with_sync_back());
    BOOST_TEST_REQUIRE(wait_until([&] { return holds(d.in_app("package-lock.json"), "{\"lock\": \"local\"}"); }));
    write_file(d.in_app("package-lock.json"), "{\"lock\": \"npm install\"}");
    BOOST_TEST(
        wait_outcome(wait_until([&] { return holds(d.src / "package-lock.json", "{\"lock\": \"npm install\"}"); }),
                     [&] { return d.log_text(); }));
    BOOST_TEST(conflicts_of(d).empty());
}

// The app makes a folder where our symlink was and writes in it; then the
// developer's gen becomes a folder too. The forward sync sees the symlink go
// first: its delete must not take the app's file with it.
BOOST_AUTO_TEST_CASE(our_symlink_made_a_folder_by_the_app_keeps_the_apps_files) {
    UpDaemon d;
    const fs::path elsewhere = d.dir / "elsewhere";
    fs::create_directories(elsewhere);
    fs::create_directory_symlink(elsewhere, d.src / "gen");
    start_syncing_back(d, with_sync_back());
    BOOST_TEST_REQUIRE(
        wait_outcome(wait_until([&] { return fs::is_symlink(d.in_app("gen")); }), [&] { return d.log_text(); }));
    fs::remove(d.in_app("gen"));
    write_file(d.in_app("gen/app.txt"), "the app's");
    fs::remove(d.src / "gen");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the delete alone, as an editor's save may make it
    fs::create_directories(d.src / "gen");
    write_file(d.src / "gen/marker.txt", "m");
    BOOST_TEST_REQUIRE(
        wait_outcome(wait_until([&] { return holds(d.in_app("gen/marker.txt"), "m"); }), [&] { return d.log_text(); }));
    BOOST_TEST(holds(d.in_app("gen/app.txt"), "the app's"), d.log_text());
    // Under load the watcher may see the flip as one change, and no delete is asked.
    const std::string log = d.log_text();
    if (lines_with(log, "- '/app/gen' (matched local path") > 0)
        BOOST_TEST(lines_with(log, "/app/gen is not deleted: /app/gen/app.txt holds a change") >= 1u, log);
    // The app writes it again: now that gen is a folder on both sides, it comes back.
    write_file(d.in_app("gen/app.txt"), "the app's, again");
    BOOST_TEST(wait_outcome(wait_until([&] { return holds(d.src / "gen/app.txt", "the app's, again"); }),
                            [&] { return d.log_text(); }));
}

// The app empties the sync root in two steps a moment apart, so the first
// delete comes in a batch of its own: nothing is deleted here, because the
// root the deletes end in is empty.
BOOST_AUTO_TEST_CASE(a_sync_root_emptied_in_steps_deletes_nothing_locally) {
    UpDaemon d;
    start_syncing_back(d, with_sync_back());
    write_file(d.in_app("package-lock.json"), "lock");
    fs::create_directories(d.in_app("gen"));
    write_file(d.in_app("gen/a.sql"), "a");
    BOOST_TEST_REQUIRE(
        wait_outcome(wait_until([&] { return holds(d.src / "gen/a.sql", "a"); }), [&] { return d.log_text(); }));
    BOOST_TEST_REQUIRE(wait_outcome(wait_until([&] { return holds(d.src / "package-lock.json", "lock"); }),
                                    [&] { return d.log_text(); }));
    fs::remove(d.in_app("gen/a.sql"));
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
    for (const auto &entry : fs::directory_iterator(d.root / "app")) fs::remove_all(entry.path());
    BOOST_TEST(wait_outcome(wait_until([&] { return lines_with(d.log_text(), "is not deleted although") >= 1; }),
                            [&] { return d.log_text(); }));
    BOOST_TEST(holds(d.src / "gen/a.sql", "a"), d.log_text());
    BOOST_TEST(holds(d.src / "package-lock.json", "lock"));
    BOOST_TEST(holds(d.src / "main.js", "main"));
}

// The developer saves ten agreed files and deletes ten others, and the app
// rewrites each right after, before the container's watch judged anything
// (docs/sync-back.md, "Forward writes over a container change"). The forward
// write and delete compare before they replace, so the container always keeps
// the app's bytes: each file ends a conflict keeping both sides or, when this
// test was held up long enough for the forward update to land between the
// two writes, the app's bytes came back after it. Never the developer's save
// over the app's change unseen.
BOOST_AUTO_TEST_CASE(an_app_change_racing_a_local_save_or_delete_is_a_conflict_never_lost) {
    UpDaemon d;
    start_syncing_back(d, with_sync_back());
    constexpr std::size_t kFiles = 10;
    const auto saved = [](std::size_t i) { return "gen/saved-" + std::to_string(i) + ".txt"; };
    const auto deleted = [](std::size_t i) { return "gen/deleted-" + std::to_string(i) + ".txt"; };
    const auto app = [](std::size_t i) { return "app " + std::to_string(i); };
    const auto dev = [](std::size_t i) { return "dev " + std::to_string(i); };
    fs::create_directories(d.in_app("gen"));
    for (std::size_t i = 0; i < kFiles; ++i) {
        write_file(d.in_app(saved(i)), "agreed");
        write_file(d.in_app(deleted(i)), "agreed");
    }
    BOOST_TEST_REQUIRE(wait_outcome(wait_until([&] {
                                        for (std::size_t i = 0; i < kFiles; ++i)
                                            if (!holds(d.src / saved(i), "agreed") ||
                                                !holds(d.src / deleted(i), "agreed"))
                                                return false;
                                        return true;
                                    }),
                                    [&] { return d.log_text(); }));
    for (std::size_t i = 0; i < kFiles; ++i) {
        write_file(d.src / saved(i), dev(i));
        write_file(d.in_app(saved(i)), app(i));
        fs::remove(d.src / deleted(i));
        write_file(d.in_app(deleted(i)), app(i));
    }
    // Each file settled: the conflict open (the developer's side kept) or the app's bytes back here.
    std::map<std::string, std::string> kinds;
    const auto settled = [&](const std::string &name, const std::string &app_content, const std::string &kind,
                             bool local_kept) {
        const auto open = kinds.find("/app/" + name);
        return open != kinds.end() ? open->second == kind && local_kept : holds(d.src / name, app_content);
    };
    const auto all_settled = [&] {
        kinds.clear();
        for (const json::value &c : conflicts_of(d))
            kinds[std::string(c.at("path").as_string())] = std::string(c.at("kind").as_string());
        for (std::size_t i = 0; i < kFiles; ++i) {
            const bool saved_back = holds(d.src / saved(i), app(i)), deleted_back = holds(d.src / deleted(i), app(i));
            if (!(saved_back || kinds.contains("/app/" + saved(i))) ||
                !(deleted_back || kinds.contains("/app/" + deleted(i))))
                return false;
        }
        return true;
    };
    BOOST_TEST(
        wait_outcome(wait_until(all_settled), [&] { return json::serialize(conflicts_of(d)) + "\n" + d.log_text(); }));
    std::size_t conflicts = 0;
    for (std::size_t i = 0; i < kFiles; ++i) {
        BOOST_TEST_CONTEXT("file " << i) {
            BOOST_TEST(holds(d.in_app(saved(i)), app(i)));
            BOOST_TEST(settled(saved(i), app(i), "BothModified", holds(d.src / saved(i), dev(i))));
            BOOST_TEST(holds(d.in_app(deleted(i)), app(i)));
            BOOST_TEST(settled(deleted(i), app(i), "LocalDeletedContainerModified", !has(d.src / deleted(i))));
        }
        conflicts += kinds.count("/app/" + saved(i)) + kinds.count("/app/" + deleted(i));
    }
    BOOST_TEST_MESSAGE(conflicts << " of " << 2 * kFiles << " races ended a conflict, the rest came back");
}

// While no daemon runs (killed, then stopped), the app rewrites, deletes and
// creates files that come back, and the developer edits one the container
// left alone and one the container rewrote too. The restarted daemon's
// initial sync and its check of a container synced into before overwrite
// none of the container's changes: they come back (the watch judges the
// folder as it finds it), the local edit goes forward, and the file changed
// on both sides is a conflict that keeps both.
BOOST_AUTO_TEST_CASE(a_restarted_daemon_overwrites_no_change_the_app_made_while_none_ran) {
    for (const bool sigkill : {true, false}) {
        BOOST_TEST_CONTEXT((sigkill ? "SIGKILL" : "SIGTERM")) {
            UpDaemon d;
            const Objects o = with_sync_back();
            start_syncing_back(d, o);
            fs::create_directories(d.in_app("gen"));
            write_file(d.in_app("package-lock.json"), "one");
            write_file(d.in_app("gen/rewritten.txt"), "one");
            write_file(d.in_app("gen/deleted.txt"), "doomed");
            write_file(d.in_app("gen/local.txt"), "agreed");
            write_file(d.in_app("gen/both.txt"), "agreed");
            BOOST_TEST_REQUIRE(wait_outcome(wait_until([&] {
                                                return holds(d.src / "package-lock.json", "one") &&
                                                       holds(d.src / "gen/rewritten.txt", "one") &&
                                                       holds(d.src / "gen/deleted.txt", "doomed") &&
                                                       holds(d.src / "gen/local.txt", "agreed") &&
                                                       holds(d.src / "gen/both.txt", "agreed");
                                            }),
                                            [&] { return d.log_text(); }));
            if (sigkill)
                d.kill_hard();
            else
                BOOST_TEST_REQUIRE(d.stop() == 0);
            write_file(d.in_app("package-lock.json"), "two");
            write_file(d.in_app("gen/rewritten.txt"), "two");
            fs::remove(d.in_app("gen/deleted.txt"));
            write_file(d.in_app("gen/new.txt"), "new");
            write_file(d.in_app("gen/both.txt"), "container");
            write_file(d.src / "gen/local.txt", "local edit");
            write_file(d.src / "gen/both.txt", "local");
            BOOST_TEST_REQUIRE(d.start(o, {"--debounce", "0", "--web-port", "0"}));
            BOOST_TEST(wait_outcome(wait_until([&] { return holds(d.in_app("gen/local.txt"), "local edit"); }),
                                    [&] { return d.log_text(); }));
            BOOST_TEST(wait_outcome(wait_until([&] { return holds(d.src / "package-lock.json", "two"); }),
                                    [&] { return d.log_text(); }));
            BOOST_TEST(wait_outcome(wait_until([&] { return holds(d.src / "gen/rewritten.txt", "two"); }),
                                    [&] { return d.log_text(); }));
            BOOST_TEST(wait_outcome(wait_until([&] { return !has(d.src / "gen/deleted.txt"); }),
                                    [&] { return d.log_text(); }));
            BOOST_TEST(wait_outcome(wait_until([&] { return holds(d.src / "gen/new.txt", "new"); }),
                                    [&] { return d.log_text(); }));
            BOOST_TEST_REQUIRE(
                wait_outcome(wait_until([&] { return conflicts_of(d).size() == 1u; }), [&] { return d.log_text(); }));
            BOOST_TEST(conflicts_of(d).at(0).at("path").as_string() == "/app/gen/both.txt");
            // The check of a container synced into before (it finds the conflict) repaired nothing of the app's,
            // and says what it left for sync back once, not as differences that remain.
            BOOST_TEST(wait_until([&] { return d.log_text().find("verify (daemon start") != std::string::npos; }),
                       d.log_text());
            BOOST_TEST(wait_until([&] { return lines_with(d.log_text(), "left for sync back") > 0; }), d.log_text());
            BOOST_TEST(lines_with(d.log_text(), "remain after the repair") == 0u, d.log_text());
            BOOST_TEST(lines_with(d.log_text(), "warn  [lu] verify (") == 0u, d.log_text());  // not a difference
            // A later check finds the open conflict again: said as such, and no update sent for nothing.
            const std::string updates = container_updates(d);
            BOOST_TEST_REQUIRE(!updates.empty(), d.log_text());
            const std::string fixed = d.cli("verify --fix");
            BOOST_TEST(fixed.find("1 file(s) left for sync back") != std::string::npos, fixed);
            BOOST_TEST(container_updates(d) == updates, d.log_text());
            BOOST_TEST(holds(d.src / "gen/both.txt", "local"));
            BOOST_TEST(holds(d.in_app("gen/both.txt"), "container"));
            BOOST_TEST(holds(d.in_app("package-lock.json"), "two"));
            BOOST_TEST(holds(d.in_app("gen/rewritten.txt"), "two"));
            BOOST_TEST(!has(d.in_app("gen/deleted.txt")));
            BOOST_TEST(holds(d.src / "gen/local.txt", "local edit"));
        }
    }
}
