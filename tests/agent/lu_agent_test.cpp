// The lu-agent executable served over pipes on this machine: every request
// against a scratch folder, and malformed input ending the session cleanly.
#define BOOST_TEST_MODULE lu_agent
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <vector>

#include "tests/agent/agent_process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace liveupdate::agent_protocol;
namespace fs = std::filesystem;

using namespace lu_agent_test;
using liveupdate::test::TempDir;

BOOST_AUTO_TEST_CASE(writes_folders_symlinks_and_deletes_apply_in_order) {
    TempDir dir{"lu-agent-test"};
    Agent agent;
    agent.greet();
    BOOST_TEST(
        agent.ask_for<Result>(encode(WriteFile{dir / "a/b/c.txt", dir.path(), 0750, kKeepOwner, kKeepOwner, "hello"}))
            .error == 0);
    BOOST_TEST(read_file(dir / "a/b/c.txt") == "hello");
    BOOST_TEST(mode_of(dir / "a/b/c.txt") == 0750);
    BOOST_TEST(agent.ask_for<Result>(encode(MakeDir{dir / "d/e", dir.path(), 0700})).error == 0);
    BOOST_TEST(mode_of(dir / "d/e") == 0700);
    BOOST_TEST(agent.ask_for<Result>(encode(Symlink{dir / "link", dir.path(), "a/b"})).error == 0);
    BOOST_TEST(fs::read_symlink(dir / "link") == "a/b");
    // A write through a symlinked root lands in the target folder, the link stays.
    BOOST_TEST(
        agent.ask_for<Result>(encode(WriteFile{dir / "link/via.txt", dir / "link", 0644, kKeepOwner, kKeepOwner, "v"}))
            .error == 0);
    BOOST_TEST(read_file(dir / "a/b/via.txt") == "v");
    BOOST_TEST(fs::is_symlink(dir / "link"));
    // A delete of the symlink never touches what it points at.
    BOOST_TEST(agent.ask_for<Result>(encode(Remove{dir / "link", dir.path()})).error == 0);
    BOOST_TEST(!fs::exists(fs::symlink_status(dir / "link")));
    BOOST_TEST(fs::exists(dir / "a/b/c.txt"));
    // A folder holding a symlink to outside: removed, the outside kept.
    fs::create_directories(dir / "outside");
    std::ofstream(dir / "outside/keep") << "k";
    fs::create_directory_symlink(dir / "outside", dir / "a/b/out");
    BOOST_TEST(agent.ask_for<Result>(encode(Remove{dir / "a", dir.path()})).error == 0);
    BOOST_TEST(!fs::exists(dir / "a"));
    BOOST_TEST(read_file(dir / "outside/keep") == "k");
    BOOST_TEST(agent.ask_for<Result>(encode(Remove{dir / "never-was", dir.path()})).error == 0);
    // No temporary file is left behind.
    for (const auto &entry : fs::recursive_directory_iterator(dir.path()))
        BOOST_TEST(entry.path().filename().string().find(".lu-agent-") == std::string::npos, entry.path());
    BOOST_TEST(agent.finish() == 0);
}

BOOST_AUTO_TEST_CASE(a_failed_write_says_which_path_and_why) {
    TempDir dir{"lu-agent-test"};
    std::ofstream(dir / "file") << "x";
    Agent agent;
    agent.greet();
    // Above the root nothing is replaced: a file there is in the way.
    const auto result = agent.ask_for<Result>(
        encode(WriteFile{dir / "file/inside", dir / "file/inside", 0644, kKeepOwner, kKeepOwner, "x"}));
    BOOST_TEST(result.error == ENOTDIR);
    BOOST_TEST(result.message.find(dir / "file/inside") != std::string::npos, result.message);
}

BOOST_AUTO_TEST_CASE(a_new_kind_replaces_the_old_one_as_tar_does) {
    TempDir dir{"lu-agent-test"};
    const std::string app = dir / "app";
    fs::create_directories(app + "/y/sub");
    std::ofstream(app + "/y/sub/old") << "o";
    std::ofstream(app + "/f") << "f";
    fs::create_directories(app + "/l/deep");
    Agent agent;
    agent.greet();
    // A folder gives way to a file (rm -rf y; echo x > y), and to a symlink.
    BOOST_TEST(agent.ask_for<Result>(encode(WriteFile{app + "/y", app, 0644, kKeepOwner, kKeepOwner, "x"})).error == 0);
    BOOST_TEST(read_file(app + "/y") == "x");
    BOOST_TEST(agent.ask_for<Result>(encode(Symlink{app + "/l", app, "y"})).error == 0);
    BOOST_TEST(fs::read_symlink(app + "/l") == "y");
    // A file gives way to a folder: as a parent, and as a folder entry of its own.
    BOOST_TEST(agent.ask_for<Result>(encode(WriteFile{app + "/y/z", app, 0644, kKeepOwner, kKeepOwner, "z"})).error ==
               0);
    BOOST_TEST(read_file(app + "/y/z") == "z");
    BOOST_TEST(agent.ask_for<Result>(encode(MakeDir{app + "/f", app, 0755})).error == 0);
    BOOST_TEST(fs::is_directory(fs::symlink_status(app + "/f")));
    // The sync's own path changes kind too.
    BOOST_TEST(
        agent.ask_for<Result>(encode(WriteFile{app + "/y", app + "/y", 0644, kKeepOwner, kKeepOwner, "r"})).error == 0);
    BOOST_TEST(read_file(app + "/y") == "r");
    BOOST_TEST(
        agent.ask_for<Result>(encode(WriteFile{app + "/y/w", app + "/y", 0644, kKeepOwner, kKeepOwner, "w"})).error ==
        0);
    BOOST_TEST(read_file(app + "/y/w") == "w");
    BOOST_TEST(agent.finish() == 0);
}

BOOST_AUTO_TEST_CASE(a_delete_beneath_a_file_is_already_done) {
    TempDir dir{"lu-agent-test"};
    const std::string app = dir / "app";
    fs::create_directories(app);
    std::ofstream(app + "/y") << "now a file";
    Agent agent;
    agent.greet();
    BOOST_TEST(agent.ask_for<Result>(encode(Remove{app + "/y/z", app})).error == 0);
    BOOST_TEST(agent.ask_for<Result>(encode(Remove{app + "/y/z/deeper", app})).error == 0);
    BOOST_TEST(read_file(app + "/y") == "now a file");
    BOOST_TEST(agent.finish() == 0);
}

BOOST_AUTO_TEST_CASE(symlinks_below_the_root_are_never_followed) {
    TempDir dir{"lu-agent-test"};
    const std::string app = dir / "app";
    const std::string outside = dir / "outside";
    fs::create_directories(app);
    fs::create_directories(outside);
    std::ofstream(outside + "/keep") << "k";
    for (const char *link : {"/w", "/d", "/m", "/s"}) fs::create_directory_symlink(outside, app + link);
    Agent agent;
    agent.greet();
    // A write beneath a symlink replaces the symlink by a folder (tar's default).
    BOOST_TEST(
        agent.ask_for<Result>(encode(WriteFile{app + "/w/victim", app, 0644, kKeepOwner, kKeepOwner, "v"})).error == 0);
    BOOST_TEST(!fs::is_symlink(app + "/w"));
    BOOST_TEST(read_file(app + "/w/victim") == "v");
    BOOST_TEST(agent.ask_for<Result>(encode(MakeDir{app + "/m", app, 0755})).error == 0);
    BOOST_TEST(fs::is_directory(fs::symlink_status(app + "/m")));
    BOOST_TEST(agent.ask_for<Result>(encode(Symlink{app + "/s/x", app, "t"})).error == 0);
    BOOST_TEST(fs::read_symlink(app + "/s/x") == "t");
    // A delete beneath one has nothing to delete.
    BOOST_TEST(agent.ask_for<Result>(encode(Remove{app + "/d/keep", app})).error == 0);
    BOOST_TEST(fs::is_symlink(app + "/d"));
    BOOST_TEST(read_file(outside + "/keep") == "k");
    std::size_t outside_entries = 0;
    for ([[maybe_unused]] const auto &entry : fs::directory_iterator(outside)) ++outside_entries;
    BOOST_TEST(outside_entries == 1u);
    BOOST_TEST(agent.finish() == 0);
}

BOOST_AUTO_TEST_CASE(requests_with_a_path_outside_their_root_end_the_session) {
    Agent agent;
    agent.greet();
    const auto fatal = agent.ask_for<Fatal>(encode(Remove{"/tmp/x", "/srv"}));
    BOOST_TEST(fatal.message.find("is not within") != std::string::npos, fatal.message);
    BOOST_TEST(agent.finish() == 1);
}

BOOST_AUTO_TEST_CASE(runs_stream_output_and_return_the_exit_code) {
    TempDir dir{"lu-agent-test"};
    Agent agent;
    agent.greet();
    agent.send(encode(
        Run{{"sh", "-c", "echo out; echo err >&2; pwd; echo $LU_X; exit 3"}, dir.path().string(), {"LU_X=42"}, 0}));
    std::string out, err;
    ExitStatus status;
    for (;;) {
        const auto f = agent.next();
        BOOST_REQUIRE(f.has_value());
        if (f->type == MessageType::output) {
            const auto o = decode<Output>(*f);
            (o.stream == 1 ? out : err) += o.data;
            continue;
        }
        status = decode<ExitStatus>(*f);
        break;
    }
    BOOST_TEST(out == "out\n" + dir.path().string() + "\n42\n");
    BOOST_TEST(err == "err\n");
    BOOST_TEST(status.code == 3);
    BOOST_TEST(status.timed_out == 0);

    const auto missing = agent.ask_for<ExitStatus>(encode(Run{{"no-such-command-lu"}, "", {}, 0}));
    BOOST_TEST(missing.code == 127);
    BOOST_TEST(missing.message.find("no-such-command-lu") != std::string::npos, missing.message);
}

// Both streams of a run, and how it ended.
struct RunOutput {
    std::string out, err;
    ExitStatus status;
};

RunOutput run_to_end(Agent &agent, const Run &run) {
    agent.send(encode(run));
    RunOutput got;
    for (;;) {
        const auto f = agent.next();
        BOOST_REQUIRE(f.has_value());
        if (f->type != MessageType::output) {
            got.status = decode<ExitStatus>(*f);
            return got;
        }
        const auto o = decode<Output>(*f);
        (o.stream == 1 ? got.out : got.err) += o.data;
    }
}

BOOST_AUTO_TEST_CASE(runs_start_with_default_signals_and_none_blocked) {
    Agent agent({{SIGHUP}, {SIGUSR1, SIGTERM}});
    agent.greet();
    // With SIGPIPE ignored (as lu-agent has it), `yes` would write on.
    const auto pipeline = run_to_end(agent, Run{{"sh", "-c", "yes | head -1"}, "", {}, 0});
    BOOST_TEST(pipeline.status.code == 0, pipeline.status.message);
    BOOST_TEST(pipeline.status.timed_out == 0);
    BOOST_TEST(pipeline.out == "y\n");
    BOOST_TEST(pipeline.err == "");
    // Without a shell between: a shell could reset what it inherits.
    const auto seen = run_to_end(agent, Run{{"grep", "-E", "^Sig(Ign|Blk):", "/proc/self/status"}, "", {}, 0});
    BOOST_TEST(seen.status.code == 0, seen.status.message);
    BOOST_TEST(seen.out == "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n");
}

BOOST_AUTO_TEST_CASE(a_run_past_its_limit_is_killed_with_its_children) {
    TempDir dir{"lu-agent-test"};
    Agent agent;
    agent.greet();
    const auto start = std::chrono::steady_clock::now();
    // The child sleep would keep the output open if only the shell were killed.
    const auto status = agent.ask_for<ExitStatus>(
        encode(Run{{"sh", "-c", "sleep 30 & echo $! > " + (dir / "pid").string() + "; wait"}, "", {}, 300}));
    const auto took = std::chrono::steady_clock::now() - start;
    BOOST_TEST(status.timed_out == 1);
    BOOST_TEST(status.code == 128 + SIGKILL);
    BOOST_TEST(took < std::chrono::seconds(10));
    const pid_t child = std::stoi(read_file(dir / "pid"));
    // Killed (or a zombie about to be reaped by init), not sleeping on.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const std::string state = read_file("/proc/" + std::to_string(child) + "/stat");
    BOOST_TEST((state.empty() || state.find(") Z") != std::string::npos), state);
}

BOOST_AUTO_TEST_CASE(a_digest_lists_type_mode_size_and_content_hash) {
    TempDir dir{"lu-agent-test"};
    fs::create_directories(dir / "t/sub");
    std::ofstream(dir / "t/sub/a") << "same";
    std::ofstream(dir / "t/b") << "same";
    fs::create_symlink("sub/a", dir / "t/l");
    Agent agent;
    agent.greet();
    agent.send(encode(Digest{dir / "t", {}, 1, 0, 0}));
    std::map<std::string, DigestEntry> entries;
    for (;;) {
        const auto f = agent.next();
        BOOST_REQUIRE(f.has_value());
        if (f->type != MessageType::digest_entry) {
            BOOST_TEST(decode<Result>(*f).error == 0);
            break;
        }
        auto e = decode<DigestEntry>(*f);
        entries[e.path] = e;
    }
    BOOST_TEST(entries.size() == 5u);  // "", sub, sub/a, b, l
    BOOST_TEST(entries[""].kind == static_cast<std::uint8_t>(EntryType::dir));
    BOOST_TEST(entries["sub/a"].kind == static_cast<std::uint8_t>(EntryType::file));
    BOOST_TEST(entries["sub/a"].size == 4u);
    BOOST_TEST(entries["sub/a"].hash == entries["b"].hash);
    BOOST_TEST(entries["sub/a"].hash != 0u);
    BOOST_TEST(entries["l"].kind == static_cast<std::uint8_t>(EntryType::symlink));
    BOOST_TEST(entries["l"].size == 5u);
}

BOOST_AUTO_TEST_CASE(a_digest_of_a_missing_folder_is_enoent_before_any_entry) {
    TempDir dir{"lu-agent-test"};
    Agent agent;
    agent.greet();
    const auto result = agent.ask_for<Result>(encode(Digest{dir / "absent", {}, 1, 0, 0}));
    BOOST_TEST(result.error == ENOENT);
    BOOST_TEST(result.message.find("absent") != std::string::npos, result.message);
}

// Issue 33 item 1: only the files named are read (an app's 3 TB sparse file is
// given by its kind and size), and a digest past its budget says it is incomplete.
BOOST_AUTO_TEST_CASE(a_digest_reads_only_the_files_it_names_within_its_budget) {
    TempDir dir{"lu-agent-test"};
    fs::create_directories(dir / "t");
    std::ofstream(dir / "t/synced") << "ours";
    std::ofstream(dir / "t/disk.img") << "";
    fs::resize_file(dir / "t/disk.img", std::uintmax_t{3} << 40);
    Agent agent;
    agent.greet();
    Digest scoped{dir / "t", {"synced"}, 0, 0, 0};
    agent.send(encode(scoped));
    std::map<std::string, DigestEntry> entries;
    for (;;) {
        const auto f = agent.next();
        BOOST_REQUIRE(f.has_value());
        if (f->type != MessageType::digest_entry) {
            BOOST_TEST(decode<Result>(*f).error == 0);
            break;
        }
        auto e = decode<DigestEntry>(*f);
        entries[e.path] = e;
    }
    BOOST_TEST(entries["disk.img"].size == std::uint64_t{3} << 40);
    BOOST_TEST(entries["disk.img"].hash == 0u);
    BOOST_TEST(entries["synced"].hash != 0u);

    Digest all{dir / "t", {}, 1, 0, 300};
    agent.send(encode(all));
    for (;;) {
        const auto f = agent.next();
        BOOST_REQUIRE(f.has_value());
        if (f->type == MessageType::digest_entry) continue;
        const auto result = decode<Result>(*f);
        BOOST_TEST(result.error == ETIMEDOUT);
        BOOST_TEST(result.message.find("is incomplete: it took more than 300 ms") != std::string::npos, result.message);
        break;
    }
    BOOST_TEST(agent.finish() == 0);
}

// The host gone in the middle of a digest (its session dropped): the agent
// stops reading and exits instead of hashing on.
BOOST_AUTO_TEST_CASE(an_agent_exits_when_its_host_leaves_in_the_middle_of_a_digest) {
    TempDir dir{"lu-agent-test"};
    fs::create_directories(dir / "t");
    std::ofstream(dir / "t/disk.img") << "";
    fs::resize_file(dir / "t/disk.img", std::uintmax_t{3} << 40);
    Agent agent;
    agent.greet();
    agent.send(encode(Digest{dir / "t", {}, 1, 0, 0}));  // every file, no budget: hours of reading
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    agent.close_stdin();
    ::close(agent.out);
    agent.out = -1;
    const pid_t pid = agent.pid();
    bool exited = false;
    for (int i = 0; i < 50 && !exited; ++i) {
        exited = ::waitpid(pid, nullptr, WNOHANG) == pid;
        if (!exited) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (!exited) ::kill(pid, SIGKILL);
    BOOST_TEST(exited, "lu-agent still hashing 5 s after its host left");
}

BOOST_AUTO_TEST_CASE(requests_before_the_handshake_or_with_bad_paths_end_the_session) {
    {
        Agent agent;
        const auto fatal = agent.ask_for<Fatal>(encode(Remove{"/tmp/x", "/tmp"}));
        BOOST_TEST(fatal.message.find("expected a hello frame") != std::string::npos, fatal.message);
        BOOST_TEST(agent.finish() == 1);
    }
    {
        Agent agent;
        BOOST_TEST(agent.ask_for<Fatal>(encode(Hello{kProtocolVersion + 1})).message.find("protocol version") !=
                   std::string::npos);
        BOOST_TEST(agent.finish() == 1);
    }
    {
        // An older host is answered in its version, and may not ask what came after it.
        Agent agent;
        BOOST_TEST(agent.ask_for<HelloReply>(encode(Hello{kOldestProtocolVersion})).version == kOldestProtocolVersion);
        const auto fatal = agent.ask_for<Fatal>(encode(WatchChanges{1, "/tmp", {"x"}, 1024, 0, 0, {}, {}}));
        BOOST_TEST(fatal.message.find("protocol version 6") != std::string::npos, fatal.message);
        BOOST_TEST(agent.finish() == 1);
    }
    {
        Agent agent;
        agent.greet();
        const auto fatal = agent.ask_for<Fatal>(encode(WriteFile{"/tmp/../etc/x", "/tmp", 0644, -1, -1, ""}));
        BOOST_TEST(fatal.message.find("contains '..'") != std::string::npos, fatal.message);
        BOOST_TEST(agent.finish() == 1);
    }
    {
        Agent agent;
        agent.greet();
        agent.send(std::string("\x03\0\0\0\x99zzz", 8));
        BOOST_TEST((agent.next()->type == MessageType::fatal));
        BOOST_TEST(agent.finish() == 1);
    }
}
