// The docker updater through lu-agent, against the real engine: every step in
// lu-busybox and in lu-notar (no tar, no shell), a killed agent, a restarted
// and a re-created container, the fallback in a read-only container (and the
// agent it was started with mounted, used without a copy), and with
// the agent's folder on a noexec mount, a paused container (exec refused),
// a stream of 1,000 files, and agent starts that fail once (refused until a
// restart or a few updates later; killed: not refused). Containers are named lut13-*.
#define BOOST_TEST_MODULE docker_agent
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>

#include "common/agent_client/agent_refusals.hpp"
#include "tests/docker/docker_test_support.hpp"
#include "tests/docker/tcp_unix_proxy.hpp"
#include "tests/support/temp_dir.hpp"

using namespace lu_test;
namespace fs = std::filesystem;

namespace {

const std::string kBusybox = "lu-busybox:latest";
const std::string kNoTar = "lu-notar:2";

std::string command_for(const std::string &image) { return image == kNoTar ? "/sleep 100000" : "sleep 100000"; }

class Container {
public:
    Container(const std::string &image, const std::string &extra = "") : image_(image) {
        static int counter = 0;
        name_ = "lut13-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
        start(extra);
    }
    ~Container() { sh("docker rm -f " + name_ + " >/dev/null 2>&1"); }
    Container(const Container &) = delete;
    Container &operator=(const Container &) = delete;

    void start(const std::string &extra = "") {
        id_ = sh_ok("docker run -d --network none --name " + name_ + " " + extra + " " + image_ + " " +
                    command_for(image_));
    }
    void recreate() {
        sh_ok("docker rm -f " + name_);
        start();
    }
    const std::string &id() const { return id_; }
    const std::string &name() const { return name_; }
    // A file's content, read through the archive API (works without a shell).
    std::string read(const std::string &path) const {
        const auto r = sh("docker cp " + name_ + ":" + path + " - 2>/dev/null | tar -xO 2>/dev/null");
        return r.output;
    }
    bool exists(const std::string &path) const {
        return sh("docker cp " + name_ + ":" + path + " - >/dev/null 2>&1").exit_code == 0;
    }
    // "uid/gid" and the type letter of a path, from the archive API's listing.
    std::string listing(const std::string &path) const {
        return sh_ok("docker cp " + name_ + ":" + path +
                     " - | tar -tv --numeric-owner | head -1 | awk '{print substr($1,1,1) \" \" $2}'");
    }
    // The host pids of the container's lu-agent processes.
    std::vector<std::string> agent_pids() const {
        const auto out = sh_ok("docker top " + name_ + " -eo pid,args | awk '/\\.lu-agent\\/lu-agent/ {print $1}'");
        std::vector<std::string> pids;
        std::size_t start = 0;
        while (start < out.size()) {
            const auto end = std::min(out.find('\n', start), out.size());
            if (end > start) pids.push_back(out.substr(start, end - start));
            start = end + 1;
        }
        return pids;
    }
    void kill_agents() const {
        for (const auto &pid : agent_pids()) ::kill(std::stoi(pid), SIGKILL);
    }

private:
    std::string image_;
    std::string name_;
    std::string id_;
};

using liveupdate::test::TempDir;

Update copy_of(const std::string &archive, const std::vector<std::string> &container_paths) {
    Update u;
    u.archive = archive;
    for (const auto &p : container_paths) u.copies.push_back({"/nowhere" + p, p});
    return u;
}

// A folder becoming a file and back (a git checkout), a late delete beneath a
// former folder, and symlinks in the container below the sync's path /app: each
// ends as the archive says, and /outside, reached by those symlinks, is never
// written or deleted through. With a restart (the agent's too) after the setup.
void check_kinds_and_container_symlinks(DockerUpdater &updater, Container &c, bool restart) {
    const auto update = [&](const std::string &archive, const std::vector<std::string> &copies,
                            const std::vector<std::string> &deletes) {
        Update u = copy_of(archive, copies);
        u.deletes = deletes;
        u.sync_roots = {"/app", "/srv/linked"};
        const auto outcome = updater.update(c.id(), c.name(), u);
        BOOST_TEST(outcome.kind == LU_OUTCOME_OK, outcome.message);
    };
    Update setup = copy_of(TarBuilder()
                               .file("app/y/sub/old", "o")
                               .file("app/f", "f")
                               .file("outside/keep", "k")
                               .symlink("app/link", "/outside")
                               .symlink("app/link2", "/outside")
                               .dir("srv/real")
                               .symlink("srv/linked", "real")
                               .finish(),
                           {"/app", "/outside", "/srv"});
    setup.sync_roots = {"/"};
    BOOST_TEST_REQUIRE(updater.update(c.id(), c.name(), setup).kind == LU_OUTCOME_OK);
    if (restart) sh_ok("docker restart -t 0 " + c.name());
    update(TarBuilder().file("app/y", "x").finish(), {"/app/y"}, {"/app/y/sub/old"});
    BOOST_TEST(c.read("/app/y") == "x");
    update(TarBuilder().file("app/f/g", "g").finish(), {"/app/f/g"}, {});
    BOOST_TEST(c.read("/app/f/g") == "g");
    update("", {}, {"/app/y/sub/old", "/app/y/sub"});
    BOOST_TEST(c.read("/app/y") == "x");
    update(TarBuilder().file("app/link/victim", "v").finish(), {"/app/link/victim"}, {"/app/link2/keep"});
    BOOST_TEST(c.read("/app/link/victim") == "v");
    BOOST_TEST(c.listing("/app/link").front() == 'd');
    BOOST_TEST(c.listing("/app/link2").front() == 'l');
    BOOST_TEST(!c.exists("/outside/victim"));
    BOOST_TEST(c.read("/outside/keep") == "k");
    // The sync's own path is followed, as tar -C follows its folder.
    update(TarBuilder().file("srv/linked/x", "x").finish(), {"/srv/linked/x"}, {});
    BOOST_TEST(c.read("/srv/real/x") == "x");
    BOOST_TEST(c.listing("/srv/linked").front() == 'l');
}

}  // namespace

BOOST_AUTO_TEST_CASE(copies_deletes_symlinks_and_runs_work_in_both_images) {
    for (const auto &image : {kBusybox, kNoTar}) {
        BOOST_TEST_CONTEXT(image) {
            Container c(image);
            DockerUpdater updater(R"({"runTimeoutSeconds": 2})");
            auto u = copy_of(TarBuilder()
                                 .dir("app/src")
                                 .file("app/src/a/b/c.txt", "nested\n", 0640)
                                 .file("app/src/top.txt", "top\n")
                                 .symlink("app/src/link", "a/b/c.txt")
                                 .finish(),
                             {"/app/src/a/b/c.txt", "/app/src/top.txt", "/app/src/link"});
            const auto copied = updater.update(c.id(), c.name(), u);
            BOOST_TEST_REQUIRE(copied.kind == LU_OUTCOME_OK, copied.message);
            BOOST_TEST(!copied.logged("cannot run"));
            BOOST_TEST(c.read("/app/src/a/b/c.txt") == "nested\n");
            BOOST_TEST(c.read("/app/src/top.txt") == "top\n");
            BOOST_TEST(c.listing("/app/src/link").substr(0, 1) == "l");
            BOOST_TEST(sh_ok("docker cp " + c.name() + ":/app/src/a/b/c.txt - | tar -tv | awk '{print $1}'") ==
                       "-rw-r-----");

            // A delete of a folder holding a symlink, and of the symlink alone.
            Update del;
            del.deletes = {"/app/src/link", "/app/src/a"};
            const auto deleted = updater.update(c.id(), c.name(), del);
            BOOST_TEST_REQUIRE(deleted.kind == LU_OUTCOME_OK, deleted.message);
            BOOST_TEST(!c.exists("/app/src/a"));
            BOOST_TEST(!c.exists("/app/src/link"));
            BOOST_TEST(c.exists("/app/src/top.txt"));

            // Runs of a binary the image has: output logged, exit code kept.
            const std::string sleep = image == kNoTar ? "/sleep" : "sleep";
            Update ok;
            ok.runs = {{{sleep, "0"}, false}};
            const auto ran = updater.update(c.id(), c.name(), ok);
            BOOST_TEST(ran.kind == LU_OUTCOME_OK, ran.message);
            BOOST_TEST(ran.logged("[CMD 1/1] " + sleep + " 0"));
            Update bad;
            bad.runs = {{{sleep, "not-a-number"}, false}};
            const auto failed = updater.update(c.id(), c.name(), bad);
            BOOST_TEST(failed.kind == LU_OUTCOME_RUN_FAILURE, failed.message);
            BOOST_TEST(failed.exit_code == 1);
            BOOST_TEST(failed.logged("invalid"), "sleep's complaint is in the log");

            // Past its limit the command is killed, not left running.
            Update slow;
            slow.runs = {{{sleep, "30"}, false}};
            const auto start = std::chrono::steady_clock::now();
            const auto limited = updater.update(c.id(), c.name(), slow);
            BOOST_TEST(limited.kind == LU_OUTCOME_INFRA_FAILURE);
            BOOST_TEST(limited.message.find("the limit is 2s; lu-agent killed") != std::string::npos, limited.message);
            BOOST_TEST((std::chrono::steady_clock::now() - start < std::chrono::seconds(10)));
            BOOST_TEST(sh_ok("docker top " + c.name() + " -eo pid,args | grep -c 'sleep 30' || true") == "0");

            // The same session served every update.
            BOOST_TEST(c.agent_pids().size() == 1u);
        }
    }
}

BOOST_AUTO_TEST_CASE(the_user_setting_owns_writes_and_runs_in_both_images) {
    TempDir local;
    fs::create_directories(local.path() / "owned");
    for (const auto &[image, user, expected] : std::vector<std::tuple<std::string, std::string, std::string>>{
             {kBusybox, "nobody", "65534/65534"}, {kNoTar, "app", "1500/1600"}}) {
        BOOST_TEST_CONTEXT(image << " as " << user) {
            Container c(image);
            // A folder the user owns, made through the archive API (no shell needed).
            const auto uid_gid = expected;
            sh_ok("tar -c --numeric-owner --owner=" + uid_gid.substr(0, uid_gid.find('/')) +
                  " --group=" + uid_gid.substr(uid_gid.find('/') + 1) + " -C " + local.path().string() +
                  " owned | docker cp - " + c.name() + ":/app/");
            DockerUpdater updater(R"({"user": ")" + user + R"("})");
            const auto copied =
                updater.update(c.id(), c.name(),
                               copy_of(TarBuilder().file("app/owned/f.txt", "mine\n").finish(), {"/app/owned/f.txt"}));
            BOOST_TEST_REQUIRE(copied.kind == LU_OUTCOME_OK, copied.message);
            BOOST_TEST(c.listing("/app/owned/f.txt") == "- " + expected);
            // Where the user may not write, the write is refused and the message says who.
            const auto denied = updater.update(
                c.id(), c.name(), copy_of(TarBuilder().file("app/root.txt", "x\n").finish(), {"/app/root.txt"}));
            BOOST_TEST(denied.kind == LU_OUTCOME_INFRA_FAILURE);
            BOOST_TEST(denied.message.find("refused the write") != std::string::npos, denied.message);
            BOOST_TEST(denied.message.find("user '" + user + "'") != std::string::npos, denied.message);
            BOOST_TEST(!c.exists("/app/root.txt"));
        }
    }
    // Runs go as the user too.
    Container c(kBusybox);
    sh_ok("docker exec " + c.name() + " sh -c 'mkdir -p /t && chown 65534 /t'");
    DockerUpdater updater(R"({"user": "nobody"})");
    Update run;
    run.runs = {{{"sh", "-c", "id -u > /t/uid"}, false}};
    BOOST_TEST_REQUIRE(updater.update(c.id(), c.name(), run).kind == LU_OUTCOME_OK);
    BOOST_TEST(c.read("/t/uid") == "65534\n");
}

BOOST_AUTO_TEST_CASE(a_killed_agent_is_replaced_without_losing_or_repeating_an_update) {
    Container c(kBusybox);
    DockerUpdater updater;
    const auto first =
        updater.update(c.id(), c.name(), copy_of(TarBuilder().file("k/1.txt", "1\n").finish(), {"/k/1.txt"}));
    BOOST_TEST_REQUIRE(first.kind == LU_OUTCOME_OK, first.message);
    const auto before = c.agent_pids();
    BOOST_TEST_REQUIRE(before.size() == 1u);

    // Killed between updates: the next one goes through a new session.
    c.kill_agents();
    const auto second =
        updater.update(c.id(), c.name(), copy_of(TarBuilder().file("k/2.txt", "2\n").finish(), {"/k/2.txt"}));
    BOOST_TEST_REQUIRE(second.kind == LU_OUTCOME_OK, second.message);
    BOOST_TEST(c.read("/k/2.txt") == "2\n");
    BOOST_TEST((second.logged("ended; starting a new one") || second.logged("sending the update again")));
    const auto after = c.agent_pids();
    BOOST_TEST_REQUIRE(after.size() == 1u);
    BOOST_TEST(after != before);

    // Killed during a run: the update fails and is not sent again (the run may have had effects).
    Update run;
    run.runs = {{{"sh", "-c", "echo ran >> /k/runs; kill -9 $PPID; sleep 5"}, false}};
    const auto killed = updater.update(c.id(), c.name(), run);
    BOOST_TEST(killed.kind == LU_OUTCOME_INFRA_FAILURE);
    BOOST_TEST(killed.message.find("during a run: not sent again") != std::string::npos, killed.message);
    BOOST_TEST(c.read("/k/runs") == "ran\n");
    // And the following update works again.
    const auto third =
        updater.update(c.id(), c.name(), copy_of(TarBuilder().file("k/3.txt", "3\n").finish(), {"/k/3.txt"}));
    BOOST_TEST(third.kind == LU_OUTCOME_OK, third.message);
    BOOST_TEST(c.read("/k/3.txt") == "3\n");
}

// Killed while a large file streams in: the update goes again through a new
// session, its archive started again by the host (rewindable) or, from an
// older host, replayed from the plugin's temporary file; never kept in memory.
BOOST_AUTO_TEST_CASE(an_agent_killed_while_a_large_file_streams_gets_it_sent_again) {
    std::string big(std::size_t{6} * 1024 * 1024, '\0');
    for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>('a' + (i * 7 + i / 4093) % 26);
    for (const bool rewindable : {true, false}) {
        BOOST_TEST_CONTEXT("rewindable " << rewindable) {
            Container c(kBusybox);
            DockerUpdater updater;
            const auto warm =
                updater.update(c.id(), c.name(), copy_of(TarBuilder().file("k/1.txt", "1\n").finish(), {"/k/1.txt"}));
            BOOST_TEST_REQUIRE(warm.kind == LU_OUTCOME_OK, warm.message);
            Update u = copy_of(TarBuilder().file("k/big.bin", big).finish(), {"/k/big.bin"});
            u.rewindable = rewindable;
            bool killed = false;
            u.after_read = [&](std::size_t handed) {
                if (killed || handed < std::size_t{1024} * 1024) return;
                killed = true;
                c.kill_agents();
            };
            const auto out = updater.update(c.id(), c.name(), u);
            BOOST_TEST_REQUIRE(out.kind == LU_OUTCOME_OK, out.message);
            BOOST_TEST(killed);
            BOOST_TEST(out.logged("sending the update again"));
            BOOST_TEST(out.archive_rewinds == (rewindable ? 1 : 0));
            BOOST_TEST((c.read("/k/big.bin") == big));
        }
    }
}

// C07: a container killed while a large file streams through its agent is
// not running, as one stopped before the update: never the update's failure.
BOOST_AUTO_TEST_CASE(a_container_killed_while_a_large_file_streams_counts_as_not_running) {
    const std::string big(std::size_t{6} * 1024 * 1024, 'k');
    Container c(kBusybox);
    DockerUpdater updater;
    const auto warm =
        updater.update(c.id(), c.name(), copy_of(TarBuilder().file("k/1.txt", "1\n").finish(), {"/k/1.txt"}));
    BOOST_TEST_REQUIRE(warm.kind == LU_OUTCOME_OK, warm.message);
    Update u = copy_of(TarBuilder().file("k/big.bin", big).finish(), {"/k/big.bin"});
    bool killed = false;
    u.after_read = [&](std::size_t handed) {
        if (killed || handed < std::size_t{1024} * 1024) return;
        killed = true;
        sh("docker kill " + c.name() + " >/dev/null");
    };
    const auto out = updater.update(c.id(), c.name(), u);
    BOOST_TEST(killed);
    BOOST_TEST(out.kind == LU_OUTCOME_CONTAINER_NOT_RUNNING, out.message);
    BOOST_TEST(out.message.find("stopped during the update") != std::string::npos, out.message);
}

BOOST_AUTO_TEST_CASE(kinds_swap_and_container_symlinks_stay_unfollowed_through_the_agent) {
    for (const auto &image : {kBusybox, kNoTar}) {
        BOOST_TEST_CONTEXT(image) {
            Container c(image);
            DockerUpdater updater;
            check_kinds_and_container_symlinks(updater, c, false);
            BOOST_TEST(c.agent_pids().size() == 1u);
        }
    }
}

BOOST_AUTO_TEST_CASE(kinds_swap_and_container_symlinks_stay_unfollowed_through_exec) {
    Container c(kBusybox);
    DockerUpdater updater(R"({"agent": false})");
    check_kinds_and_container_symlinks(updater, c, false);
    BOOST_TEST(c.agent_pids().empty());
}

BOOST_AUTO_TEST_CASE(kinds_swap_and_container_symlinks_stay_unfollowed_after_a_restart) {
    {
        Container c(kNoTar);
        DockerUpdater updater;
        check_kinds_and_container_symlinks(updater, c, true);
    }
    {
        Container c(kBusybox);
        DockerUpdater updater(R"({"agent": false})");
        check_kinds_and_container_symlinks(updater, c, true);
    }
}

// Without a shell and without lu-agent the archive API is all there is, and the
// engine writes through a symlink it meets: the updater makes the archive
// replace what is not a real folder below the sync's path, and keeps the modes
// of the real folders on the way.
BOOST_AUTO_TEST_CASE(container_symlinks_stay_unfollowed_through_the_archive_api) {
    Container c(kNoTar);
    DockerUpdater updater(R"({"agent": false})");
    Update setup = copy_of(TarBuilder()
                               .dir("app/real", 0750)
                               .file("app/f", "f")
                               .file("outside/keep", "k")
                               .symlink("app/link", "/outside")
                               .symlink("app/real/deep", "/outside")
                               .dir("srv/real")
                               .symlink("srv/linked", "real")
                               .finish(),
                           {"/app", "/outside", "/srv"});
    setup.sync_roots = {"/"};
    BOOST_TEST_REQUIRE(updater.update(c.id(), c.name(), setup).kind == LU_OUTCOME_OK);

    Update u = copy_of(
        TarBuilder().file("app/link/victim", "v").file("app/real/deep/sub/victim2", "w").file("app/f/g", "g").finish(),
        {"/app/link/victim", "/app/real/deep/sub/victim2", "/app/f/g"});
    u.sync_roots = {"/app"};
    const auto outcome = updater.update(c.id(), c.name(), u);
    BOOST_TEST_REQUIRE(outcome.kind == LU_OUTCOME_OK, outcome.message);
    BOOST_TEST(c.read("/app/link/victim") == "v");
    BOOST_TEST(c.listing("/app/link").front() == 'd');
    BOOST_TEST(c.read("/app/real/deep/sub/victim2") == "w");
    BOOST_TEST(c.listing("/app/real/deep").front() == 'd');
    BOOST_TEST(c.read("/app/f/g") == "g");
    BOOST_TEST(sh_ok("docker cp " + c.name() + ":/app/real - | tar -tv | head -1 | awk '{print $1}'") == "drwxr-x---");
    BOOST_TEST(!c.exists("/outside/victim"));
    BOOST_TEST(!c.exists("/outside/sub"));
    BOOST_TEST(c.read("/outside/keep") == "k");
    // The sync's own path is followed, as tar -C follows its folder.
    Update linked = copy_of(TarBuilder().file("srv/linked/x", "x").finish(), {"/srv/linked/x"});
    linked.sync_roots = {"/srv/linked"};
    BOOST_TEST_REQUIRE(updater.update(c.id(), c.name(), linked).kind == LU_OUTCOME_OK);
    BOOST_TEST(c.read("/srv/real/x") == "x");
    BOOST_TEST(c.listing("/srv/linked").front() == 'l');
}

BOOST_AUTO_TEST_CASE(a_restarted_or_recreated_container_gets_a_new_session) {
    Container c(kNoTar);
    DockerUpdater updater;
    BOOST_TEST_REQUIRE(
        updater.update(c.id(), c.name(), copy_of(TarBuilder().file("app/r1", "1").finish(), {"/app/r1"})).kind ==
        LU_OUTCOME_OK);
    sh_ok("docker restart -t 0 " + c.name());
    const auto restarted =
        updater.update(c.id(), c.name(), copy_of(TarBuilder().file("app/r2", "2").finish(), {"/app/r2"}));
    BOOST_TEST_REQUIRE(restarted.kind == LU_OUTCOME_OK, restarted.message);
    BOOST_TEST(c.read("/app/r2") == "2");
    BOOST_TEST(c.agent_pids().size() == 1u);

    c.recreate();  // same name, new ID, fresh filesystem: the agent is copied in again
    const auto recreated =
        updater.update(c.id(), c.name(), copy_of(TarBuilder().file("app/r3", "3").finish(), {"/app/r3"}));
    BOOST_TEST_REQUIRE(recreated.kind == LU_OUTCOME_OK, recreated.message);
    BOOST_TEST(c.read("/app/r3") == "3");
    BOOST_TEST(!c.exists("/app/r1"));
}

BOOST_AUTO_TEST_CASE(a_read_only_container_falls_back_to_exec_and_says_why_once) {
    Container c(kBusybox, "--read-only --tmpfs /app");
    DockerUpdater updater;
    const auto first =
        updater.update(c.id(), c.name(), copy_of(TarBuilder().file("app/ro1", "1\n").finish(), {"/app/ro1"}));
    BOOST_TEST_REQUIRE(first.kind == LU_OUTCOME_OK, first.message);
    BOOST_TEST(first.logged("lu-agent cannot run in container " + c.name()));
    BOOST_TEST(first.logged("read-only"));
    BOOST_TEST(sh_ok("docker exec " + c.name() + " cat /app/ro1") == "1");  // docker cp cannot see a tmpfs
    const auto second =
        updater.update(c.id(), c.name(), copy_of(TarBuilder().file("app/ro2", "2\n").finish(), {"/app/ro2"}));
    BOOST_TEST_REQUIRE(second.kind == LU_OUTCOME_OK, second.message);
    BOOST_TEST(!second.logged("lu-agent cannot run"));
    BOOST_TEST(sh_ok("docker exec " + c.name() + " cat /app/ro2") == "2");
}

// Issue 36: a container started with lu-agent mounted where `lu-host webhook`
// injects it (a read-only root filesystem here) live-updates through that
// agent: nothing is copied in, and its sessions last.
BOOST_AUTO_TEST_CASE(a_container_started_with_the_agent_mounted_uses_it_without_a_copy) {
    const std::string agent_folder = fs::path(LU_AGENT_PATH).parent_path().string();
    Container c(kBusybox, "--read-only --tmpfs /app -v " + agent_folder + ":/.lu-agent/injected:ro");
    DockerUpdater updater;
    const auto first =
        updater.update(c.id(), c.name(), copy_of(TarBuilder().file("app/in1", "1\n").finish(), {"/app/in1"}));
    BOOST_TEST_REQUIRE(first.kind == LU_OUTCOME_OK, first.message);
    BOOST_TEST(first.logged("in container " + c.name()), first.log_text());
    BOOST_TEST(first.logged("(injected at /.lu-agent/injected/lu-agent)"), first.log_text());
    BOOST_TEST(!first.logged("cannot run"));
    BOOST_TEST(sh_ok("docker exec " + c.name() + " cat /app/in1") == "1");
    BOOST_TEST(sh_ok("docker exec " + c.name() + " ls -A /.lu-agent") == "injected");
    const auto second =
        updater.update(c.id(), c.name(), copy_of(TarBuilder().file("app/in2", "2\n").finish(), {"/app/in2"}));
    BOOST_TEST_REQUIRE(second.kind == LU_OUTCOME_OK, second.message);
    BOOST_TEST(!second.logged("Started"));
    BOOST_TEST(sh_ok("docker exec " + c.name() + " cat /app/in2") == "2");
}

BOOST_AUTO_TEST_CASE(a_stream_of_1000_files_leaves_the_container_folder_equal_to_the_source) {
    TempDir source;
    Container c(kNoTar);
    DockerUpdater updater;
    std::map<std::string, std::string> expected;
    // Ten updates of 100 files each, later ones rewriting and deleting some of the earlier.
    for (int batch = 0; batch < 10; ++batch) {
        TarBuilder tar;
        Update u;
        for (int i = 0; i < 100; ++i) {
            const int n = batch * 90 + i;  // overlaps the previous batch by 10
            const std::string rel = "d" + std::to_string(n % 7) + "/f" + std::to_string(n) + ".txt";
            const std::string content = "batch " + std::to_string(batch) + " file " + std::to_string(n) + "\n";
            tar.file("app/s/" + rel, content);
            u.copies.push_back({(source.path() / rel).string(), "/app/s/" + rel});
            expected[rel] = content;
        }
        if (batch > 0) {
            const std::string gone =
                "d" + std::to_string((batch * 90 - 50) % 7) + "/f" + std::to_string(batch * 90 - 50) + ".txt";
            u.deletes.push_back("/app/s/" + gone);
            expected.erase(gone);
        }
        u.archive = tar.finish();
        const auto outcome = updater.update(c.id(), c.name(), u);
        BOOST_TEST_REQUIRE(outcome.kind == LU_OUTCOME_OK, outcome.message);
    }
    for (const auto &[rel, content] : expected) {
        fs::create_directories((source.path() / rel).parent_path());
        std::ofstream(source.path() / rel) << content;
    }
    TempDir copy;
    sh_ok("docker cp " + c.name() + ":/app/s - | tar -x -C " + copy.path().string());
    BOOST_TEST(sh("diff -r " + source.path().string() + " " + (copy.path() / "s").string()).exit_code == 0);
    BOOST_TEST(expected.size() == 901u);
}

BOOST_AUTO_TEST_CASE(a_noexec_agent_folder_falls_back_to_exec_and_says_why_once) {
    // A tmpfs volume mounted noexec where the agent goes: copied in, refused at its exec.
    const std::string volume = "lut13-noexec-" + std::to_string(::getpid());
    sh_ok("docker volume create --opt type=tmpfs --opt device=tmpfs --opt o=noexec,size=16m " + volume);
    {
        Container c(kBusybox, "-v " + volume + ":/.lu-agent");
        BOOST_TEST_REQUIRE(sh_ok("docker exec " + c.name() + " grep ' /.lu-agent ' /proc/mounts").find("noexec") !=
                           std::string::npos);
        DockerUpdater updater;
        const auto first =
            updater.update(c.id(), c.name(), copy_of(TarBuilder().file("app/ne1", "1\n").finish(), {"/app/ne1"}));
        BOOST_TEST_REQUIRE(first.kind == LU_OUTCOME_OK, first.message);
        BOOST_TEST(first.logged("lu-agent cannot run in container " + c.name()), first.log_text());
        BOOST_TEST(first.logged("noexec"), first.log_text());
        BOOST_TEST(c.read("/app/ne1") == "1\n");
        const auto second =
            updater.update(c.id(), c.name(), copy_of(TarBuilder().file("app/ne2", "2\n").finish(), {"/app/ne2"}));
        BOOST_TEST_REQUIRE(second.kind == LU_OUTCOME_OK, second.message);
        BOOST_TEST(!second.logged("lu-agent cannot run"));
        BOOST_TEST(c.read("/app/ne2") == "2\n");
        BOOST_TEST(c.agent_pids().empty());
    }
    sh("docker volume rm -f " + volume + " >/dev/null 2>&1");
}

BOOST_AUTO_TEST_CASE(a_paused_container_refuses_the_update_clearly_and_loses_nothing) {
    // The engine refuses exec into a paused container (409); the agent, frozen, answers nothing.
    Container c(kBusybox);
    DockerUpdater updater(R"({"timeoutSeconds": 2})");
    BOOST_TEST_REQUIRE(
        updater.update(c.id(), c.name(), copy_of(TarBuilder().file("app/p1", "1\n").finish(), {"/app/p1"})).kind ==
        LU_OUTCOME_OK);
    BOOST_TEST_REQUIRE(c.agent_pids().size() == 1u);
    const auto refused_exec = sh("docker pause " + c.name() + " >/dev/null && docker exec " + c.name() + " true 2>&1");
    BOOST_TEST(refused_exec.exit_code != 0);

    const auto start = std::chrono::steady_clock::now();
    const auto paused =
        updater.update(c.id(), c.name(), copy_of(TarBuilder().file("app/p2", "2\n").finish(), {"/app/p2"}));
    // Not a failure of the container's: the update is due again once it runs.
    BOOST_TEST(paused.kind == LU_OUTCOME_CONTAINER_NOT_RUNNING);
    BOOST_TEST(paused.message.find("is paused") != std::string::npos, paused.message);
    BOOST_TEST((std::chrono::steady_clock::now() - start < std::chrono::seconds(15)), "the update did not hang");

    // Unpaused, the same change goes in (the engine sends a failed update again).
    sh_ok("docker unpause " + c.name());
    const auto again =
        updater.update(c.id(), c.name(), copy_of(TarBuilder().file("app/p2", "2\n").finish(), {"/app/p2"}));
    BOOST_TEST_REQUIRE(again.kind == LU_OUTCOME_OK, again.message);
    BOOST_TEST(c.read("/app/p2") == "2\n");
    BOOST_TEST(c.read("/app/p1") == "1\n");
}

namespace {

// One file, /app/NAME holding NAME.
Outcome update_file(DockerUpdater &updater, const Container &c, const std::string &name) {
    return updater.update(c.id(), c.name(), copy_of(TarBuilder().file("app/" + name, name).finish(), {"/app/" + name}));
}

}  // namespace

// Issue 23: a live session says the container runs, so a save through it asks
// the engine nothing (an inspect is a millisecond of every save).
BOOST_AUTO_TEST_CASE(a_save_through_a_live_session_inspects_nothing) {
    Container c(kBusybox);
    const std::string inspect = "/containers/" + c.id() + "/json";
    std::atomic<int> inspects{0};
    TcpUnixProxy proxy("/var/run/docker.sock", [&](std::string_view bytes) {
        if (bytes.starts_with("GET ") && bytes.find(inspect) != std::string_view::npos) ++inspects;
    });
    DockerUpdater updater(R"({"host": "tcp://127.0.0.1:)" + std::to_string(proxy.port()) + R"("})");
    BOOST_TEST_REQUIRE(update_file(updater, c, "s0").kind == LU_OUTCOME_OK);
    BOOST_TEST(inspects.load() >= 1);
    const int before = inspects.load();
    for (const std::string file : {"s1", "s2", "s3"}) {
        const auto saved = update_file(updater, c, file);
        BOOST_TEST_REQUIRE(saved.kind == LU_OUTCOME_OK, saved.message);
        BOOST_TEST(c.read("/app/" + file) == file);
    }
    BOOST_TEST(inspects.load() == before);
}

// Without an inspect per save, a pause shows as the live agent's answer being
// late: the engine is asked then, and says paused well before the stall
// allowance (5 s here) would call the session broken. The pause comes during
// a run, after anything the update asked the engine up front.
BOOST_AUTO_TEST_CASE(a_pause_under_a_live_session_is_told_by_the_late_answer) {
    Container c(kBusybox);
    DockerUpdater updater(R"({"timeoutSeconds": 5})");
    BOOST_TEST_REQUIRE(update_file(updater, c, "q1").kind == LU_OUTCOME_OK);
    Update save = copy_of(TarBuilder().file("app/q2", "q2").finish(), {"/app/q2"});
    save.runs = {{{"sh", "-c", "touch /app/running && sleep 2"}, false}};
    auto pending = std::async(std::launch::async, [&] { return updater.update(c.id(), c.name(), save); });
    while (sh("docker exec " + c.name() + " test -e /app/running").exit_code != 0)
        BOOST_TEST_REQUIRE((pending.wait_for(std::chrono::milliseconds(20)) == std::future_status::timeout),
                           "the update ended before its run began");
    sh_ok("docker pause " + c.name());
    const auto paused = pending.get();
    BOOST_TEST(paused.kind == LU_OUTCOME_CONTAINER_NOT_RUNNING, paused.message);
    BOOST_TEST(paused.message.find("is paused") != std::string::npos, paused.message);
    BOOST_TEST(!paused.logged("broke"), "the stall allowance was waited out");
    sh_ok("docker unpause " + c.name());
    const auto again = update_file(updater, c, "q3");
    BOOST_TEST_REQUIRE(again.kind == LU_OUTCOME_OK, again.message);
    BOOST_TEST(c.read("/app/q3") == "q3");
    BOOST_TEST(c.read("/app/q2") == "q2");
}

namespace {

// Puts a stand-in at the installed agent's path that removes itself and ends as
// `ending` says: the next agent start fails that way once, and the one after
// installs the real agent again.
void make_next_agent_start_fail(const Container &c, const std::string &ending) {
    c.kill_agents();
    const std::string installed = sh_ok("docker exec " + c.name() + " ls /.lu-agent");
    BOOST_TEST_REQUIRE(installed.find('\n') == std::string::npos, installed);
    TempDir dir;
    const fs::path fake = dir.path() / "fake-agent";
    std::ofstream(fake) << "#!/bin/sh\nrm -f \"$0\"\n" << ending << "\n";
    fs::permissions(fake, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
    sh_ok("docker cp " + fake.string() + " " + c.name() + ":/.lu-agent/" + installed);
}

Outcome update_one(DockerUpdater &updater, const Container &c, const std::string &file) {
    return updater.update(c.id(), c.name(), copy_of(TarBuilder().file("app/" + file, file).finish(), {"/app/" + file}));
}

}  // namespace

BOOST_AUTO_TEST_CASE(an_agent_refused_in_one_start_of_a_container_is_tried_again_after_a_restart) {
    Container c(kBusybox);
    {
        DockerUpdater installs;
        BOOST_TEST_REQUIRE(update_one(installs, c, "s0").kind == LU_OUTCOME_OK);
    }
    make_next_agent_start_fail(c, "exit 126");
    DockerUpdater updater;
    const auto refused = update_one(updater, c, "s1");
    BOOST_TEST_REQUIRE(refused.kind == LU_OUTCOME_OK, refused.message);
    BOOST_TEST_REQUIRE(refused.logged("lu-agent cannot run in container " + c.name()));
    BOOST_TEST(c.agent_pids().empty());

    sh_ok("docker restart -t 0 " + c.name());
    const auto restarted = update_one(updater, c, "s2");
    BOOST_TEST_REQUIRE(restarted.kind == LU_OUTCOME_OK, restarted.message);
    BOOST_TEST(c.read("/app/s2") == "s2");
    BOOST_TEST(c.agent_pids().size() == 1u);
}

BOOST_AUTO_TEST_CASE(an_agent_refused_is_tried_again_after_a_bounded_number_of_updates) {
    Container c(kBusybox);
    {
        DockerUpdater installs;
        BOOST_TEST_REQUIRE(update_one(installs, c, "b0").kind == LU_OUTCOME_OK);
    }
    make_next_agent_start_fail(c, "exit 126");
    DockerUpdater updater;
    BOOST_TEST_REQUIRE(update_one(updater, c, "b1").logged("lu-agent cannot run in container " + c.name()));
    for (int i = 0; i < liveupdate::agent_client::AgentRefusals::kUpdatesBeforeRetry; ++i)
        BOOST_TEST_REQUIRE(update_one(updater, c, "e" + std::to_string(i)).kind == LU_OUTCOME_OK);
    BOOST_TEST(c.agent_pids().empty());
    const auto retried = update_one(updater, c, "b2");
    BOOST_TEST_REQUIRE(retried.kind == LU_OUTCOME_OK, retried.message);
    BOOST_TEST(c.read("/app/b2") == "b2");
    BOOST_TEST(c.agent_pids().size() == 1u);
}

BOOST_AUTO_TEST_CASE(an_agent_killed_while_it_starts_is_not_refused) {
    // What a restart racing the agent's start does to it: SIGKILL, exit code 137.
    Container c(kBusybox);
    {
        DockerUpdater installs;
        BOOST_TEST_REQUIRE(update_one(installs, c, "k0").kind == LU_OUTCOME_OK);
    }
    make_next_agent_start_fail(c, "kill -9 $$");
    DockerUpdater updater;
    const auto killed = update_one(updater, c, "k1");
    BOOST_TEST_REQUIRE(killed.kind == LU_OUTCOME_OK, killed.message);
    BOOST_TEST(!killed.logged("lu-agent cannot run"));
    BOOST_TEST(killed.logged("the next one tries lu-agent again"));
    BOOST_TEST(c.read("/app/k1") == "k1");
    const auto next = update_one(updater, c, "k2");
    BOOST_TEST_REQUIRE(next.kind == LU_OUTCOME_OK, next.message);
    BOOST_TEST(c.read("/app/k2") == "k2");
    BOOST_TEST(c.agent_pids().size() == 1u);
}
