// Sync back from docker containers through a real `lu-host up`, the docker
// updater and lu-agent (docs/sync-back.md): a file written in the container
// comes back with its bytes and mode and is not sent forward again, a
// conflict leaves both sides alone and shows in `get`, a container emptied
// or recreated from its image deletes nothing locally, a hostile container
// writes nothing outside localPath, two replicas writing different
// bytes are a conflict, lu-agent killed mid-file leaves no half file, and
// a forward delete keeps an app file that comes back and was never agreed,
// open conflicts show while a broken watch is down and after it restarted,
// a restarted daemon overwrites none of what the app changed while none ran,
// and an app change racing a local save or delete is a conflict, never lost.
// Containers are named h2sb-*.
#define BOOST_TEST_MODULE up_sync_back_docker
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <iterator>
#include <map>
#include <sstream>
#include <thread>

#include "tests/docker/docker_test_support.hpp"
#include "tests/integration/up_daemon.hpp"

using namespace up_it;
using lu_test::sh;
using lu_test::sh_ok;

namespace {

constexpr std::chrono::seconds kWait{60};

bool has(const fs::path &p) {
    std::error_code ec;
    return fs::exists(fs::symlink_status(p, ec));
}

bool holds(const fs::path &p, const std::string &content) { return has(p) && read_file(p) == content; }

unsigned mode_of(const fs::path &p) {
    struct stat st {};
    return ::lstat(p.c_str(), &st) == 0 ? st.st_mode & 07777 : 0;
}

std::string project_name() {
    static int counter = 0;
    return "h2sb-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

// A busybox container labelled as replica `number` of service "web" of project.
class Replica {
public:
    Replica(std::string project, int number) : project_(std::move(project)), number_(number) { run(); }
    ~Replica() { sh("docker rm -f " + name() + " >/dev/null 2>&1"); }
    Replica(const Replica &) = delete;
    Replica &operator=(const Replica &) = delete;

    const std::string &project() const { return project_; }
    std::string name() const { return project_ + "-web-" + std::to_string(number_); }
    std::string exec(const std::string &command) const {
        return sh("docker exec " + name() + " sh -c " + lu_test::shell_quote(command)).output;
    }
    std::string read(const std::string &path) const { return exec("cat " + path + " 2>/dev/null"); }
    // Removed and run again from its image: nothing of /app is left.
    void recreate() const {
        sh_ok("docker rm -f " + name() + " >/dev/null");
        run();
    }

private:
    void run() const {
        sh_ok("docker run -d --network none --name " + name() + " --label com.docker.compose.project=" + project_ +
              " --label com.docker.compose.service=web --label com.docker.compose.oneoff=False"
              " --label com.docker.compose.container-number=" +
              std::to_string(number_) + " lu-busybox:latest sleep 100000 >/dev/null");
    }

    std::string project_;
    int number_;
};

// The FileWatch on src, the project's service "web", a LiveUpdate syncing
// src → /app and bringing back package-lock.json and gen/.
Objects objects_for(const std::string &project) {
    Objects o;
    o.container = json::parse(R"({"apiVersion": "tilt.dev/v1alpha1", "kind": "DockerComposeService",
        "metadata": {"name": "web"}, "spec": {"service": "web", "project": {"name": ")" +
                              project + R"(", "projectPath": "."}}})")
                      .as_object();
    o.lu_spec()["selector"] = json::parse(R"({"dockerCompose": {"service": "web"}})");
    o.lu_spec()["syncs"].as_array()[0].as_object()["syncBack"] = json::array{"package-lock.json", "gen"};
    return o;
}

// How many sync backs the daemon said it started.
std::size_t sync_backs_started(const std::string &log) {
    std::size_t count = 0;
    std::istringstream lines(log);
    for (std::string line; std::getline(lines, line);)
        if (line.find("Sync back from container ") != std::string::npos && line.ends_with(": started")) ++count;
    return count;
}

// Started, src/main.js synced into each replica, and its sync backs running.
void start_syncing_back(UpDaemon &d, const Objects &o, const std::vector<const Replica *> &replicas,
                        std::vector<std::string> args = {"--debounce", "0"}) {
    const bool started = d.start(o, std::move(args));
    BOOST_TEST_REQUIRE(started);
    write_file(d.src / "main.js", "main");
    for (const Replica *r : replicas)
        BOOST_TEST_REQUIRE(wait_outcome(wait_until([&] { return r->read("/app/main.js") == "main"; }, kWait),
                                        [&] { return d.log_text(); }));
    BOOST_TEST_REQUIRE(
        wait_outcome(wait_until([&] { return sync_backs_started(d.log_text()) >= replicas.size(); }, kWait),
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

// Every synced journal of the daemon's state folder, one after the other.
std::string journal_text(const UpDaemon &d) {
    std::string text;
    std::error_code ec;
    for (const auto &e : fs::recursive_directory_iterator(d.state, ec))
        if (e.is_regular_file(ec)) text += read_file(e.path());
    return text;
}

bool logged(const UpDaemon &d, const std::string &text) { return d.log_text().find(text) != std::string::npos; }

std::size_t times_logged(const UpDaemon &d, const std::string &text) {
    const std::string log = d.log_text();
    std::size_t count = 0;
    for (std::size_t at = log.find(text); at != std::string::npos; at = log.find(text, at + text.size())) ++count;
    return count;
}

// SIGKILLs every lu-agent in the replica (its watch's and its updates'); how many.
int kill_agents(const Replica &web) {
    std::istringstream pids(
        sh_ok("docker top " + web.name() + " -eo pid,args | awk '/\\.lu-agent\\/lu-agent/ {print $1}'"));
    int killed = 0;
    for (std::string pid; std::getline(pids, pid);)
        if (!pid.empty() && ::kill(std::stoi(pid), SIGKILL) == 0) ++killed;
    return killed;
}

// The replica's lu-agents that watch for sync back (those holding an inotify
// descriptor; an update's session holds none), as host pids.
std::vector<int> watching_agents(const Replica &web) {
    std::istringstream pids(
        sh_ok("docker top " + web.name() + " -eo pid,args | awk '/\\.lu-agent\\/lu-agent/ {print $1}'"));
    std::vector<int> out;
    for (std::string pid; std::getline(pids, pid);) {
        std::error_code ec;
        for (const auto &fd : fs::directory_iterator("/proc/" + pid + "/fd", ec))
            if (fs::read_symlink(fd.path(), ec).string() == "anon_inode:inotify") {
                out.push_back(std::stoi(pid));
                break;
            }
    }
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_file_written_in_the_container_comes_back_with_its_mode_and_is_not_sent_forward_again) {
    const Replica web(project_name(), 1);
    UpDaemon d;
    Objects o = objects_for(web.project());
    add_witness(o);
    start_syncing_back(d, o, {&web}, {"--debounce", "0", "--workers", "1"});
    web.exec(
        "echo stays > /app/other.txt; printf '{\"lock\": 1}' > /app/package-lock.json;"
        " chmod 750 /app/package-lock.json; mkdir -p /app/gen/deep; echo 'create table t;' > "
        "/app/gen/deep/migration.sql");
    BOOST_TEST(wait_outcome(wait_until([&] { return holds(d.src / "package-lock.json", "{\"lock\": 1}"); }, kWait),
                            [&] { return d.log_text(); }));
    BOOST_TEST(wait_until([&] { return mode_of(d.src / "package-lock.json") == 0750; }));
    BOOST_TEST(wait_until([&] { return holds(d.src / "gen/deep/migration.sql", "create table t;\n"); }));
    BOOST_TEST(!has(d.src / "other.txt"));
    BOOST_TEST(logged(d, "came back to " + (d.src / "package-lock.json").string()), d.log_text());
    // Written again in the container at once: an echo of the first would overwrite it there.
    web.exec("printf '{\"lock\": 2}' > /app/package-lock.json");
    BOOST_TEST(wait_outcome(wait_until([&] { return holds(d.src / "package-lock.json", "{\"lock\": 2}"); }, kWait),
                            [&] { return d.log_text(); }));
    BOOST_TEST_REQUIRE(d.witness_barrier());
    BOOST_TEST(echoes(d.log_text()) == 0u, d.log_text());
    BOOST_TEST(web.read("/app/package-lock.json") == "{\"lock\": 2}");
    // A developer's own edit of a file that came back is sent forward as ever.
    write_file(d.src / "package-lock.json", "{\"lock\": 3}");
    BOOST_TEST(wait_outcome(wait_until([&] { return web.read("/app/package-lock.json") == "{\"lock\": 3}"; }, kWait),
                            [&] { return d.log_text(); }));
    // And a delete in the container of a file both agreed on deletes it here.
    web.exec("rm /app/gen/deep/migration.sql");
    BOOST_TEST(wait_outcome(wait_until([&] { return !has(d.src / "gen/deep/migration.sql"); }, kWait),
                            [&] { return d.log_text(); }));
    BOOST_TEST(holds(d.src / "package-lock.json", "{\"lock\": 3}"));
}

// The app makes a folder where our symlink was and writes in it; then the
// developer's gen becomes a folder too. The forward sync sees the symlink go
// first: its delete must not take the app's file, which the watch reported
// and both sides never agreed on, with it.
BOOST_AUTO_TEST_CASE(our_symlink_made_a_folder_by_the_app_keeps_the_apps_files) {
    const Replica web(project_name(), 1);
    UpDaemon d;
    const fs::path elsewhere = d.dir / "elsewhere";
    fs::create_directories(elsewhere);
    start_syncing_back(d, objects_for(web.project()), {&web});
    fs::create_directory_symlink(elsewhere, d.src / "gen");
    BOOST_TEST_REQUIRE(
        wait_outcome(wait_until([&] { return !web.exec("test -L /app/gen && echo link").empty(); }, kWait),
                     [&] { return d.log_text(); }));
    web.exec("rm /app/gen && mkdir /app/gen && echo \"the app's\" > /app/gen/app.txt");
    // It cannot come back through the local symlink: the daemon says so once the watch reported it.
    BOOST_TEST_REQUIRE(
        wait_outcome(wait_until([&] { return logged(d, "/app/gen/app.txt"); }, kWait), [&] { return d.log_text(); }));
    fs::remove(d.src / "gen");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the delete alone, as an editor's save may make it
    fs::create_directories(d.src / "gen");
    write_file(d.src / "gen/marker.txt", "m");
    BOOST_TEST_REQUIRE(wait_outcome(wait_until([&] { return web.read("/app/gen/marker.txt") == "m"; }, kWait),
                                    [&] { return d.log_text(); }));
    BOOST_TEST(web.read("/app/gen/app.txt") == "the app's\n", d.log_text());
    // Under load the watcher may see the flip as one change, and no delete is asked.
    if (logged(d, "- '/app/gen' (matched local path"))
        BOOST_TEST(logged(d, "/app/gen is not deleted: /app/gen/app.txt holds a change"), d.log_text());
    // The app writes it again: now that gen is a folder on both sides, it comes back.
    web.exec("echo again > /app/gen/app.txt");
    BOOST_TEST(wait_outcome(wait_until([&] { return holds(d.src / "gen/app.txt", "again\n"); }, kWait),
                            [&] { return d.log_text(); }));
}

BOOST_AUTO_TEST_CASE(a_conflict_leaves_both_sides_alone_and_shows_in_get_until_resolved) {
    const Replica web(project_name(), 1);
    UpDaemon d;
    Objects o = objects_for(web.project());
    // The lockfile belongs to the container: a local edit of it is not sent forward, so a conflict stays.
    o.file_watch["spec"].as_object()["ignores"].as_array()[0].as_object()["patterns"].as_array().emplace_back(
        "package-lock.json");
    start_syncing_back(d, o, {&web});
    web.exec("printf '{\"lock\": 1}' > /app/package-lock.json");
    BOOST_TEST_REQUIRE(
        wait_outcome(wait_until([&] { return holds(d.src / "package-lock.json", "{\"lock\": 1}"); }, kWait),
                     [&] { return d.log_text(); }));
    write_file(d.src / "package-lock.json", "{\"lock\": \"local\"}");
    web.exec("printf '{\"lock\": \"container\"}' > /app/package-lock.json");
    BOOST_TEST_REQUIRE(
        wait_outcome(wait_until([&] { return conflicts_of(d).size() == 1u; }, kWait), [&] { return d.log_text(); }));
    const json::object conflict = conflicts_of(d).at(0).as_object();
    BOOST_TEST(conflict.at("path").as_string() == "/app/package-lock.json");
    BOOST_TEST(conflict.at("kind").as_string() == "BothModified");
    BOOST_TEST(holds(d.src / "package-lock.json", "{\"lock\": \"local\"}"));
    BOOST_TEST(web.read("/app/package-lock.json") == "{\"lock\": \"container\"}");
    const std::string table = d.cli("get liveupdates");
    BOOST_TEST(column_of(table, "lu", 4) == "1", table);
    // Resolved: the container's side edited to agree with the local one.
    web.exec("printf '{\"lock\": \"local\"}' > /app/package-lock.json");
    BOOST_TEST(wait_outcome(wait_until([&] { return conflicts_of(d).empty(); }, kWait), [&] { return d.log_text(); }));
    BOOST_TEST(holds(d.src / "package-lock.json", "{\"lock\": \"local\"}"));
}

// The app rewrites agreed files and, before its watch reported it (the
// watching agent held stopped: what lu-agent's debounce and the way back make
// a moment long), the developer saves ten of them and deletes ten others
// (docs/sync-back.md, "Forward writes over a container change"). lu-agent
// compares before it replaces or deletes: the container keeps the app's
// files, and once the watch reports them each is a conflict keeping both
// sides; no side silently overwritten.
BOOST_AUTO_TEST_CASE(an_app_change_racing_a_local_save_or_delete_is_a_conflict_never_lost) {
    const Replica web(project_name(), 1);
    UpDaemon d;
    start_syncing_back(d, objects_for(web.project()), {&web});
    constexpr std::size_t kFiles = 10;
    const auto saved = [](std::size_t i) { return "gen/saved-" + std::to_string(i) + ".txt"; };
    const auto deleted = [](std::size_t i) { return "gen/deleted-" + std::to_string(i) + ".txt"; };
    const auto app_writes = [&](const std::string &content) {
        std::string script = "mkdir -p /app/gen";
        for (std::size_t i = 0; i < kFiles; ++i)
            for (const std::string &name : {saved(i), deleted(i)})
                script.append("; printf '").append(content).append("' > /app/").append(name);
        web.exec(script);
    };
    app_writes("agreed");
    BOOST_TEST_REQUIRE(wait_outcome(wait_until(
                                        [&] {
                                            for (std::size_t i = 0; i < kFiles; ++i)
                                                if (!holds(d.src / saved(i), "agreed") ||
                                                    !holds(d.src / deleted(i), "agreed"))
                                                    return false;
                                            return true;
                                        },
                                        kWait),
                                    [&] { return d.log_text(); }));
    const std::vector<int> watching = watching_agents(web);
    BOOST_TEST_REQUIRE(!watching.empty(), sh("docker top " + web.name()).output);
    for (const int pid : watching) BOOST_TEST_REQUIRE(::kill(pid, SIGSTOP) == 0);
    app_writes("app");
    for (std::size_t i = 0; i < kFiles; ++i) {
        write_file(d.src / saved(i), "dev");
        fs::remove(d.src / deleted(i));
    }
    // A save carried by the same update: once it is in, the update is done.
    write_file(d.src / "main.js", "main, saved with them");
    const bool updated = wait_until([&] { return web.read("/app/main.js") == "main, saved with them"; }, kWait);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    for (const int pid : watching) ::kill(pid, SIGCONT);
    BOOST_TEST_REQUIRE(updated, d.log_text());
    BOOST_TEST(wait_outcome(wait_until([&] { return conflicts_of(d).size() == 2 * kFiles; }, kWait),
                            [&] { return json::serialize(conflicts_of(d)) + "\n" + d.log_text(); }));
    std::map<std::string, std::string> kinds;
    for (const json::value &c : conflicts_of(d))
        kinds[std::string(c.at("path").as_string())] = std::string(c.at("kind").as_string());
    for (std::size_t i = 0; i < kFiles; ++i) {
        BOOST_TEST_CONTEXT("file " << i) {
            BOOST_TEST(web.read("/app/" + saved(i)) == "app");
            BOOST_TEST(holds(d.src / saved(i), "dev"));
            BOOST_TEST(kinds["/app/" + saved(i)] == "BothModified");
            BOOST_TEST(web.read("/app/" + deleted(i)) == "app");
            BOOST_TEST(!has(d.src / deleted(i)));
            BOOST_TEST(kinds["/app/" + deleted(i)] == "LocalDeletedContainerModified");
        }
    }
}

BOOST_AUTO_TEST_CASE(a_container_emptied_or_recreated_from_its_image_deletes_nothing_locally) {
    const Replica web(project_name(), 1);
    UpDaemon d;
    start_syncing_back(d, objects_for(web.project()), {&web});
    web.exec("printf lock > /app/package-lock.json; mkdir -p /app/gen; echo a > /app/gen/a.sql");
    BOOST_TEST_REQUIRE(wait_outcome(wait_until([&] { return holds(d.src / "gen/a.sql", "a\n"); }, kWait),
                                    [&] { return d.log_text(); }));
    BOOST_TEST_REQUIRE(wait_until([&] { return holds(d.src / "package-lock.json", "lock"); }, kWait));
    // Everything beneath the sync root deleted, its first file a moment
    // before the rest (so in a batch of its own): held, not applied.
    web.exec("rm /app/gen/a.sql; sleep 0.05; rm -rf /app/* /app/.[!.]* 2>/dev/null; true");
    BOOST_TEST(wait_outcome(wait_until([&] { return logged(d, "is not deleted although"); }, kWait),
                            [&] { return d.log_text(); }));
    BOOST_TEST(holds(d.src / "gen/a.sql", "a\n"));
    BOOST_TEST(holds(d.src / "package-lock.json", "lock"));
    // Recreated from its image: it gets the forward sync, and nothing here goes.
    web.recreate();
    write_file(d.src / "marker.txt", "m");
    BOOST_TEST(wait_outcome(wait_until([&] { return web.read("/app/marker.txt") == "m"; }, kWait),
                            [&] { return d.log_text(); }));
    BOOST_TEST(holds(d.src / "gen/a.sql", "a\n"));
    BOOST_TEST(holds(d.src / "package-lock.json", "lock"));
    BOOST_TEST(holds(d.src / "main.js", "main"));
}

BOOST_AUTO_TEST_CASE(a_hostile_container_writes_nothing_outside_local_path_and_does_not_stall_forward_saves) {
    const Replica web(project_name(), 1);
    UpDaemon d;
    start_syncing_back(d, objects_for(web.project()), {&web});
    // A symlink to /etc's passwd, a FIFO, a folder symlinked to /etc, a file
    // past the 64 MiB limit: each under a name that comes back. The big file
    // is written aside and renamed in: written in place, a pause of dd under
    // load shows the agent a smaller file, which may come back as it was then.
    web.exec(
        "ln -s /etc/passwd /app/package-lock.json; mkdir -p /app/gen; mkfifo /app/gen/fifo;"
        " ln -s /etc /app/gen/etc; dd if=/dev/zero of=/big bs=1M count=65 2>/dev/null; mv /big /app/gen/big");
    BOOST_TEST(wait_outcome(wait_until([&] { return logged(d, "gen/big: not brought back"); }, kWait),
                            [&] { return d.log_text(); }));
    // A forward save meanwhile goes through, and a later file still comes back.
    write_file(d.src / "saved.txt", "saved");
    BOOST_TEST(wait_outcome(wait_until([&] { return web.read("/app/saved.txt") == "saved"; }, kWait),
                            [&] { return d.log_text(); }));
    web.exec("echo after > /app/gen/after.sql");
    BOOST_TEST(wait_outcome(wait_until([&] { return holds(d.src / "gen/after.sql", "after\n"); }, kWait),
                            [&] { return d.log_text(); }));
    BOOST_TEST(!has(d.src / "package-lock.json"));
    BOOST_TEST(!has(d.src / "gen/fifo"));
    BOOST_TEST(!has(d.src / "gen/etc"));
    BOOST_TEST(!has(d.src / "gen/big"), d.log_text());
    BOOST_TEST(logged(d, "package-lock.json and "), d.log_text());  // the symlink: a conflict, not a regular file
}

BOOST_AUTO_TEST_CASE(each_replica_s_files_come_back_and_different_bytes_from_two_are_a_conflict) {
    const std::string project = project_name();
    const Replica one(project, 1);
    const Replica two(project, 2);
    UpDaemon d;
    start_syncing_back(d, objects_for(project), {&one, &two});
    one.exec("mkdir -p /app/gen; echo one > /app/gen/one.sql");
    two.exec("mkdir -p /app/gen; echo two > /app/gen/two.sql");
    BOOST_TEST(wait_outcome(wait_until([&] { return holds(d.src / "gen/one.sql", "one\n"); }, kWait),
                            [&] { return d.log_text(); }));
    BOOST_TEST(wait_outcome(wait_until([&] { return holds(d.src / "gen/two.sql", "two\n"); }, kWait),
                            [&] { return d.log_text(); }));
    one.exec("printf 'from one' > /app/package-lock.json");
    BOOST_TEST_REQUIRE(wait_outcome(wait_until([&] { return holds(d.src / "package-lock.json", "from one"); }, kWait),
                                    [&] { return d.log_text(); }));
    two.exec("printf 'from two' > /app/package-lock.json");
    BOOST_TEST_REQUIRE(
        wait_outcome(wait_until([&] { return conflicts_of(d).size() == 1u; }, kWait), [&] { return d.log_text(); }));
    const json::object conflict = conflicts_of(d).at(0).as_object();
    BOOST_TEST(conflict.at("container").as_string().find(two.name()) != std::string::npos, json::serialize(conflict));
    BOOST_TEST(holds(d.src / "package-lock.json", "from one"));
    BOOST_TEST(two.read("/app/package-lock.json") == "from two");
}

// lu-agent killed in the container while it sends a large file: the local
// side has the whole file or none of it (never a cut one, nor a temporary
// file left), and once the sync back started again the next change comes
// back.
BOOST_AUTO_TEST_CASE(an_agent_killed_mid_file_leaves_no_half_file_locally) {
    const Replica web(project_name(), 1);
    UpDaemon d;
    start_syncing_back(d, objects_for(web.project()), {&web});
    // Written aside, then renamed in and its agents killed at once, while the agent reads and sends it.
    web.exec("mkdir -p /app/gen /big; dd if=/dev/urandom of=/big/big bs=1M count=48 2>/dev/null");
    web.exec("mv /big/big /app/gen/big");
    BOOST_TEST_REQUIRE(kill_agents(web) > 0);
    BOOST_TEST_REQUIRE(
        wait_outcome(wait_until([&] { return logged(d, "the container's changes stopped coming"); }, kWait),
                     [&] { return d.log_text(); }));
    const std::string in_container = sh_ok("docker exec " + web.name() + " sha256sum /app/gen/big | cut -d' ' -f1");
    const auto local_digest = [&] {
        return sh_ok("sha256sum " + lu_test::shell_quote((d.src / "gen/big").string()) + " | cut -d' ' -f1");
    };
    BOOST_TEST((!has(d.src / "gen/big") || local_digest() == in_container), d.log_text());
    BOOST_TEST_MESSAGE("gen/big here when the agent was killed: " << has(d.src / "gen/big"));
    const auto temporaries = [&] {
        return sh("find " + lu_test::shell_quote(d.src.string()) + " -name '.lu-sync-back-*'").output;
    };
    BOOST_TEST(temporaries().empty());
    // A forward save still goes through; the sync back started again by itself.
    write_file(d.src / "saved.txt", "saved");
    BOOST_TEST_REQUIRE(wait_outcome(wait_until([&] { return web.read("/app/saved.txt") == "saved"; }, kWait),
                                    [&] { return d.log_text(); }));
    BOOST_TEST_REQUIRE(wait_outcome(wait_until([&] { return sync_backs_started(d.log_text()) >= 2u; }, kWait),
                                    [&] { return d.log_text(); }));
    web.exec("echo after > /app/gen/after.sql");
    BOOST_TEST(wait_outcome(wait_until([&] { return holds(d.src / "gen/after.sql", "after\n"); }, kWait),
                            [&] { return d.log_text(); }));
    BOOST_TEST((!has(d.src / "gen/big") || local_digest() == in_container), d.log_text());
    BOOST_TEST(temporaries().empty());
}

// A watch starts from what both sides last agreed on: what the app wrote
// before the first one, and what it wrote or deleted while none ran (its
// agents killed), comes back once it starts again.
BOOST_AUTO_TEST_CASE(what_the_app_changed_while_no_watch_ran_comes_back_when_it_starts_again) {
    const Replica web(project_name(), 1);
    web.exec("mkdir -p /app/gen; echo early > /app/gen/early.txt");
    UpDaemon d;
    start_syncing_back(d, objects_for(web.project()), {&web});
    BOOST_TEST(wait_outcome(wait_until([&] { return holds(d.src / "gen/early.txt", "early\n"); }, kWait),
                            [&] { return d.log_text(); }));
    web.exec("echo kept > /app/gen/kept.txt; echo one > /app/gen/rewritten.txt; echo doomed > /app/gen/deleted.txt");
    BOOST_TEST_REQUIRE(wait_until(
        [&] {
            return holds(d.src / "gen/kept.txt", "kept\n") && holds(d.src / "gen/rewritten.txt", "one\n") &&
                   holds(d.src / "gen/deleted.txt", "doomed\n");
        },
        kWait));
    // Changed at once after the kill, well before the watch's first try again (1 s).
    BOOST_TEST_REQUIRE(kill_agents(web) > 0);
    web.exec("echo two > /app/gen/rewritten.txt; rm /app/gen/deleted.txt; echo new > /app/gen/new.txt");
    BOOST_TEST_REQUIRE(
        wait_outcome(wait_until([&] { return logged(d, "the container's changes stopped coming"); }, kWait),
                     [&] { return d.log_text(); }));
    BOOST_TEST_REQUIRE(wait_outcome(wait_until([&] { return sync_backs_started(d.log_text()) >= 2u; }, kWait),
                                    [&] { return d.log_text(); }));
    BOOST_TEST(wait_outcome(wait_until([&] { return holds(d.src / "gen/rewritten.txt", "two\n"); }, kWait),
                            [&] { return d.log_text(); }));
    BOOST_TEST(
        wait_outcome(wait_until([&] { return !has(d.src / "gen/deleted.txt"); }, kWait), [&] { return d.log_text(); }));
    BOOST_TEST(wait_outcome(wait_until([&] { return holds(d.src / "gen/new.txt", "new\n"); }, kWait),
                            [&] { return d.log_text(); }));
    BOOST_TEST(holds(d.src / "gen/kept.txt", "kept\n"));
    BOOST_TEST(conflicts_of(d).empty(), d.log_text());
}

// The watch's lu-agent killed and nothing saved locally: no reconcile comes,
// yet the sync back starts again on its own timer, said once, and a file
// the container writes then comes back.
BOOST_AUTO_TEST_CASE(a_broken_watch_starts_again_without_a_local_change) {
    const Replica web(project_name(), 1);
    UpDaemon d;
    start_syncing_back(d, objects_for(web.project()), {&web});
    BOOST_TEST_REQUIRE(kill_agents(web) > 0);
    BOOST_TEST_REQUIRE(
        wait_outcome(wait_until([&] { return logged(d, "the container's changes stopped coming"); }, kWait),
                     [&] { return d.log_text(); }));
    BOOST_TEST(logged(d, "; tried again in 1 s"), d.log_text());
    BOOST_TEST_REQUIRE(wait_outcome(wait_until([&] { return sync_backs_started(d.log_text()) >= 2u; }, kWait),
                                    [&] { return d.log_text(); }));
    web.exec("mkdir -p /app/gen; echo by-itself > /app/gen/after-break.sql");
    BOOST_TEST(wait_outcome(wait_until([&] { return holds(d.src / "gen/after-break.sql", "by-itself\n"); }, kWait),
                            [&] { return d.log_text(); }));
    BOOST_TEST(times_logged(d, "the container's changes stopped coming") == 1u, d.log_text());
}

// Conflicts are the running watch's: its agent killed, the next watch starts
// from the agreements, so the files in conflict come again and are judged
// again. Each conflict shows while the watch is down and after it started
// again, is said once (not again when found again), and neither side of
// either is overwritten.
BOOST_AUTO_TEST_CASE(open_conflicts_show_again_after_the_watch_started_again) {
    const Replica web(project_name(), 1);
    UpDaemon d;
    Objects o = objects_for(web.project());
    // Both belong to the container: a local edit is not sent forward, so each conflict stays.
    auto &ignored = o.file_watch["spec"].as_object()["ignores"].as_array()[0].as_object()["patterns"].as_array();
    ignored.emplace_back("package-lock.json");
    ignored.emplace_back("gen");
    start_syncing_back(d, o, {&web});
    web.exec("printf '{\"lock\": 1}' > /app/package-lock.json; mkdir -p /app/gen; echo a > /app/gen/a.sql");
    BOOST_TEST_REQUIRE(wait_outcome(
        wait_until(
            [&] { return holds(d.src / "package-lock.json", "{\"lock\": 1}") && holds(d.src / "gen/a.sql", "a\n"); },
            kWait),
        [&] { return d.log_text(); }));
    write_file(d.src / "package-lock.json", "{\"lock\": \"local\"}");
    write_file(d.src / "gen/a.sql", "local a\n");
    web.exec("printf '{\"lock\": \"container\"}' > /app/package-lock.json; rm /app/gen/a.sql");
    const auto kinds = [&] {
        std::map<std::string, std::string> out;
        for (const json::value &c : conflicts_of(d))
            out[std::string(c.as_object().at("path").as_string())] = c.as_object().at("kind").as_string();
        return out;
    };
    const std::map<std::string, std::string> expected{{"/app/gen/a.sql", "LocalModifiedContainerDeleted"},
                                                      {"/app/package-lock.json", "BothModified"}};
    BOOST_TEST_REQUIRE(
        wait_outcome(wait_until([&] { return kinds() == expected; }, kWait), [&] { return d.log_text(); }));
    BOOST_TEST_REQUIRE(kill_agents(web) > 0);
    BOOST_TEST_REQUIRE(
        wait_outcome(wait_until([&] { return logged(d, "the container's changes stopped coming"); }, kWait),
                     [&] { return d.log_text(); }));
    BOOST_TEST(kinds() == expected, d.log_text());  // down: the last ones known still show
    BOOST_TEST_REQUIRE(wait_outcome(wait_until([&] { return sync_backs_started(d.log_text()) >= 2u; }, kWait),
                                    [&] { return d.log_text(); }));
    BOOST_TEST(wait_outcome(wait_until([&] { return kinds() == expected; }, kWait), [&] { return d.log_text(); }));
    // Given time to judge again: still both, and nothing written on either side.
    std::this_thread::sleep_for(std::chrono::seconds(1));
    BOOST_TEST(kinds() == expected, d.log_text());
    // Found again, not opened again: each said once.
    BOOST_TEST(times_logged(d, "conflict: both sides modified") == 1u, d.log_text());
    BOOST_TEST(times_logged(d, "conflict: modified locally, deleted in the container") == 1u, d.log_text());
    const std::string table = d.cli("get liveupdates");
    BOOST_TEST(column_of(table, "lu", 4) == "2", table);
    BOOST_TEST(holds(d.src / "package-lock.json", "{\"lock\": \"local\"}"));
    BOOST_TEST(holds(d.src / "gen/a.sql", "local a\n"));
    BOOST_TEST(web.read("/app/package-lock.json") == "{\"lock\": \"container\"}");
    BOOST_TEST(web.exec("test -e /app/gen/a.sql || echo gone") == "gone\n");
    // Resolved while judged by the new watch: the container agrees with the local side.
    web.exec("printf '{\"lock\": \"local\"}' > /app/package-lock.json");
    BOOST_TEST(wait_outcome(wait_until([&] { return kinds().size() == 1u; }, kWait), [&] { return d.log_text(); }));
}

// The project folder full while a file comes back: no half file nor
// temporary file is left, the error is said once, and once there is room
// again the file comes back without the container writing it again. The
// project folder is a small tmpfs (root only: skipped otherwise).
BOOST_AUTO_TEST_CASE(a_file_that_came_back_to_a_full_disk_comes_once_there_is_room) {
    const Replica web(project_name(), 1);
    UpDaemon d;
    if (!sh("mount -t tmpfs -o size=1m tmpfs " + lu_test::shell_quote(d.src.string())).output.empty() ||
        !sh("mountpoint -q " + lu_test::shell_quote(d.src.string()) + " && echo yes").output.starts_with("yes")) {
        BOOST_TEST_MESSAGE("skipped: cannot mount a tmpfs (not root)");
        return;
    }
    struct Unmount {
        fs::path at;
        ~Unmount() { sh("umount -l " + lu_test::shell_quote(at.string())); }
    } unmount{d.src};
    start_syncing_back(d, objects_for(web.project()), {&web});
    // Filled up, outside the watched tree's interest: the filler is ignored by the FileWatch.
    sh("dd if=/dev/zero of=" + lu_test::shell_quote((d.src / "filler.ignored").string()) + " bs=64k 2>/dev/null");
    web.exec("mkdir -p /app/gen; dd if=/dev/urandom of=/big bs=64k count=4 2>/dev/null; mv /big /app/gen/big.bin");
    const std::string in_container = sh_ok("docker exec " + web.name() + " sha256sum /app/gen/big.bin | cut -d' ' -f1");
    BOOST_TEST_REQUIRE(wait_outcome(wait_until([&] { return logged(d, "gen/big.bin: not written"); }, kWait),
                                    [&] { return d.log_text(); }));
    BOOST_TEST(!has(d.src / "gen/big.bin"));
    BOOST_TEST(sh("find " + lu_test::shell_quote(d.src.string()) + " -name '.lu-sync-back-*'").output.empty());
    fs::remove(d.src / "filler.ignored");
    BOOST_TEST(
        wait_outcome(wait_until([&] { return has(d.src / "gen/big.bin"); }, kWait), [&] { return d.log_text(); }));
    BOOST_TEST(sh_ok("sha256sum " + lu_test::shell_quote((d.src / "gen/big.bin").string()) + " | cut -d' ' -f1") ==
               in_container);
    BOOST_TEST(times_logged(d, "gen/big.bin: not written") == 1u, d.log_text());
}

namespace {

enum class Ending { sigkill, sigterm };

// While no daemon runs, the app rewrites, deletes and creates files that
// come back, and the developer edits one the container left alone and one
// the container rewrote too. The restarted daemon's initial sync and its
// check of a container synced into before overwrite none of the
// container's changes: they come back, the local edit goes forward, and the
// file changed on both sides is a conflict that keeps both.
void restart_overwrites_no_change_of_the_app(Ending ending) {
    const Replica web(project_name(), 1);
    UpDaemon d;
    Objects o = objects_for(web.project());
    o.lu_spec()["initialSync"] = json::object{};
    start_syncing_back(d, o, {&web});
    web.exec(
        "mkdir -p /app/gen; printf one > /app/package-lock.json; echo one > /app/gen/rewritten.txt;"
        " echo doomed > /app/gen/deleted.txt; echo agreed > /app/gen/local.txt; echo agreed > /app/gen/both.txt");
    BOOST_TEST_REQUIRE(wait_outcome(wait_until(
                                        [&] {
                                            return holds(d.src / "package-lock.json", "one") &&
                                                   holds(d.src / "gen/rewritten.txt", "one\n") &&
                                                   holds(d.src / "gen/deleted.txt", "doomed\n") &&
                                                   holds(d.src / "gen/local.txt", "agreed\n") &&
                                                   holds(d.src / "gen/both.txt", "agreed\n");
                                        },
                                        kWait),
                                    [&] { return d.log_text(); }));
    // Agreed on: their lines are in the synced journal only once the flusher
    // made the files durable (a kill before that leaves them unagreed, judged
    // again as conflicts, not what this test is about).
    if (ending == Ending::sigkill) {
        BOOST_TEST_REQUIRE(wait_outcome(
            wait_until(
                [&] {
                    const std::string journals = journal_text(d);
                    for (const char *path : {"/app/package-lock.json", "/app/gen/rewritten.txt", "/app/gen/deleted.txt",
                                             "/app/gen/local.txt", "/app/gen/both.txt"})
                        if (journals.find(std::string("=[\"") + path + "\",") == std::string::npos) return false;
                    return true;
                },
                kWait),
            [&] { return journal_text(d); }));
        d.kill_hard();
    } else {
        BOOST_TEST_REQUIRE(d.stop() == 0);
    }
    web.exec(
        "printf two > /app/package-lock.json; echo two > /app/gen/rewritten.txt; rm /app/gen/deleted.txt;"
        " echo new > /app/gen/new.txt; echo container > /app/gen/both.txt");
    write_file(d.src / "gen/local.txt", "local edit\n");
    write_file(d.src / "gen/both.txt", "local\n");
    BOOST_TEST_REQUIRE(d.start(o));
    BOOST_TEST(wait_outcome(wait_until([&] { return web.read("/app/gen/local.txt") == "local edit\n"; }, kWait),
                            [&] { return d.log_text(); }));
    BOOST_TEST(wait_outcome(wait_until([&] { return holds(d.src / "package-lock.json", "two"); }, kWait),
                            [&] { return d.log_text(); }));
    BOOST_TEST(wait_outcome(wait_until([&] { return holds(d.src / "gen/rewritten.txt", "two\n"); }, kWait),
                            [&] { return d.log_text(); }));
    BOOST_TEST(
        wait_outcome(wait_until([&] { return !has(d.src / "gen/deleted.txt"); }, kWait), [&] { return d.log_text(); }));
    BOOST_TEST(wait_outcome(wait_until([&] { return holds(d.src / "gen/new.txt", "new\n"); }, kWait),
                            [&] { return d.log_text(); }));
    BOOST_TEST_REQUIRE(
        wait_outcome(wait_until([&] { return conflicts_of(d).size() == 1u; }, kWait), [&] { return d.log_text(); }));
    const json::object conflict = conflicts_of(d).at(0).as_object();
    BOOST_TEST(conflict.at("path").as_string() == "/app/gen/both.txt");
    BOOST_TEST(conflict.at("kind").as_string() == "BothModified");
    // The check of a container synced into before (it finds the conflict) has run: it repaired nothing of the
    // app's.
    BOOST_TEST(wait_until([&] { return logged(d, "verify (daemon start"); }, kWait), d.log_text());
    BOOST_TEST(holds(d.src / "gen/both.txt", "local\n"));
    BOOST_TEST(web.read("/app/gen/both.txt") == "container\n", d.log_text());
    BOOST_TEST(web.read("/app/package-lock.json") == "two");
    BOOST_TEST(web.read("/app/gen/rewritten.txt") == "two\n");
    BOOST_TEST(web.exec("test -e /app/gen/deleted.txt && echo there").empty());
    BOOST_TEST(web.read("/app/gen/new.txt") == "new\n");
    BOOST_TEST(holds(d.src / "gen/local.txt", "local edit\n"));
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_daemon_killed_and_started_again_overwrites_no_change_of_the_app) {
    restart_overwrites_no_change_of_the_app(Ending::sigkill);
}

BOOST_AUTO_TEST_CASE(a_daemon_stopped_and_started_again_overwrites_no_change_of_the_app) {
    restart_overwrites_no_change_of_the_app(Ending::sigterm);
}

// Started again into the container recreated from its image meanwhile: the
// sync root holds nothing of the app's, nothing is deleted locally, and the
// initial sync brings it everything.
BOOST_AUTO_TEST_CASE(a_daemon_started_again_into_a_recreated_container_deletes_nothing_locally) {
    const Replica web(project_name(), 1);
    UpDaemon d;
    Objects o = objects_for(web.project());
    o.lu_spec()["initialSync"] = json::object{};
    start_syncing_back(d, o, {&web});
    web.exec("mkdir -p /app/gen; echo a > /app/gen/a.sql; printf lock > /app/package-lock.json");
    BOOST_TEST_REQUIRE(wait_until(
        [&] { return holds(d.src / "gen/a.sql", "a\n") && holds(d.src / "package-lock.json", "lock"); }, kWait));
    BOOST_TEST_REQUIRE(d.stop() == 0);
    web.recreate();
    BOOST_TEST_REQUIRE(d.start(o));
    BOOST_TEST(wait_outcome(wait_until([&] { return web.read("/app/gen/a.sql") == "a\n"; }, kWait),
                            [&] { return d.log_text(); }));
    BOOST_TEST(wait_outcome(wait_until([&] { return web.read("/app/package-lock.json") == "lock"; }, kWait),
                            [&] { return d.log_text(); }));
    BOOST_TEST(holds(d.src / "gen/a.sql", "a\n"));
    BOOST_TEST(holds(d.src / "package-lock.json", "lock"));
    BOOST_TEST(holds(d.src / "main.js", "main"));
    BOOST_TEST(conflicts_of(d).empty(), d.log_text());
}
