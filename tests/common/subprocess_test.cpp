// common/subprocess on real child processes: the environment they get, their
// folder, exit codes, pipes under load, deadlines, start failures and dying
// with their parent.
#define BOOST_TEST_MODULE subprocess
#include <boost/test/unit_test.hpp>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "common/subprocess/child_start.hpp"
#include "common/subprocess/environment.hpp"
#include "common/subprocess/run_process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace liveupdate::subprocess;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

struct Output {
    std::string out, err;
};

Output run_capturing(RunOptions options, ProcessResult &result) {
    Output o;
    options.on_output = [&o](bool is_stderr, std::string_view data) { (is_stderr ? o.err : o.out).append(data); };
    result = run_process(options);
    return o;
}

using liveupdate::test::TempDir;

// Alive and not a zombie waiting to be reaped.
bool process_alive(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return false;
    const auto after_name = line.rfind(')');
    return after_name != std::string::npos && line.size() > after_name + 2 && line[after_name + 2] != 'Z';
}

bool gone_within(pid_t pid, std::chrono::seconds limit) {
    const auto until = std::chrono::steady_clock::now() + limit;
    for (; process_alive(pid); std::this_thread::sleep_for(20ms))
        if (std::chrono::steady_clock::now() > until) return false;
    return true;
}

// Forks an intermediate process that starts `sleep 60` (with or without
// die_with_parent) and reports its pid; then SIGKILLs the intermediate.
// Returns the sleeper's pid.
pid_t grandchild_of_killed_parent(bool die_with_parent) {
    int report[2];
    BOOST_TEST_REQUIRE(::pipe(report) == 0);
    const pid_t intermediate = ::fork();
    BOOST_TEST_REQUIRE(intermediate >= 0);
    if (intermediate == 0) {
        ::close(report[0]);
        const StartedChild sleeper =
            start_child({.argv = {"sleep", "60"}, .env = environment_with({}), .die_with_parent = die_with_parent});
        [[maybe_unused]] const ssize_t written = ::write(report[1], &sleeper.pid, sizeof sleeper.pid);
        ::pause();
        ::_exit(0);
    }
    ::close(report[1]);
    pid_t sleeper = -1;
    const ssize_t n = ::read(report[0], &sleeper, sizeof sleeper);
    ::close(report[0]);
    ::kill(intermediate, SIGKILL);
    int status = 0;
    ::waitpid(intermediate, &status, 0);
    BOOST_TEST_REQUIRE(n == static_cast<ssize_t>(sizeof sleeper));
    BOOST_TEST_REQUIRE(sleeper > 0);
    return sleeper;
}

}  // namespace

BOOST_AUTO_TEST_CASE(extra_variables_replace_the_hosts_and_come_last_in_their_order) {
    ::setenv("LU_SUBPROCESS_TEST_REPLACED", "host", 1);
    ::setenv("LU_SUBPROCESS_TEST_KEPT", "host", 1);
    const std::vector<std::string> env = environment_with({{"LU_SUBPROCESS_TEST_REPLACED", "first"},
                                                           {"LU_SUBPROCESS_TEST_NEW", "new"},
                                                           {"LU_SUBPROCESS_TEST_REPLACED", "last"}});
    std::vector<std::string> expected;
    for (char **e = environ; *e != nullptr; ++e)
        if (std::string_view(*e).rfind("LU_SUBPROCESS_TEST_REPLACED=", 0) != 0) expected.emplace_back(*e);
    // A name given twice keeps its last value, at its last place.
    expected.emplace_back("LU_SUBPROCESS_TEST_NEW=new");
    expected.emplace_back("LU_SUBPROCESS_TEST_REPLACED=last");
    BOOST_TEST(env == expected, boost::test_tools::per_element());

    ProcessResult result;
    const Output o = run_capturing(
        {.argv = {"sh", "-c", "echo \"$LU_SUBPROCESS_TEST_REPLACED $LU_SUBPROCESS_TEST_KEPT $LU_SUBPROCESS_TEST_NEW\""},
         .extra_env = {{"LU_SUBPROCESS_TEST_REPLACED", "mine"}, {"LU_SUBPROCESS_TEST_NEW", "new"}}},
        result);
    BOOST_TEST(o.out == "mine host new\n");
    ::unsetenv("LU_SUBPROCESS_TEST_REPLACED");
    ::unsetenv("LU_SUBPROCESS_TEST_KEPT");
}

BOOST_AUTO_TEST_CASE(the_child_runs_in_the_given_folder) {
    const TempDir dir;
    ProcessResult result;
    const Output o = run_capturing({.argv = {"pwd", "-P"}, .cwd = dir.path().string()}, result);
    BOOST_TEST(result.exit_code == 0);
    BOOST_TEST(o.out == fs::canonical(dir.path()).string() + "\n");
}

BOOST_AUTO_TEST_CASE(exit_codes_and_signals_read_as_a_shell_shows_them) {
    ProcessResult result;
    run_capturing({.argv = {"sh", "-c", "exit 3"}}, result);
    BOOST_TEST(result.exit_code == 3);
    BOOST_TEST(!result.timed_out);
    run_capturing({.argv = {"sh", "-c", "kill -TERM $$"}}, result);
    BOOST_TEST(result.exit_code == 128 + SIGTERM);
}

BOOST_AUTO_TEST_CASE(stdin_is_fed_while_both_outputs_are_read) {
    // tee writes every byte to stdout and stderr as it reads stdin: far more
    // than a pipe holds, so a runner that does not read while it writes hangs
    // (and then hits the deadline).
    const std::string block(std::size_t{64} * 1024, 'x');
    constexpr int kBlocks = 64;
    ProcessResult result;
    const Output o = run_capturing({.argv = {"tee", "/dev/stderr"},
                                    .feed_stdin =
                                        [&block](const WriteFn &write) {
                                            for (int i = 0; i < kBlocks; ++i) write(block.data(), block.size());
                                        },
                                    .timeout = 60s},
                                   result);
    BOOST_TEST(!result.timed_out);
    BOOST_TEST(result.exit_code == 0);
    BOOST_TEST(o.out.size() == block.size() * kBlocks);
    BOOST_TEST(o.err.size() == block.size() * kBlocks);
    BOOST_TEST(o.out.find_first_not_of('x') == std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_child_that_stops_reading_stdin_ends_the_feeding) {
    const std::string block(std::size_t{64} * 1024, 'x');
    ProcessResult result;
    run_capturing({.argv = {"sh", "-c", "exec 0<&-; exit 4"},
                   .feed_stdin =
                       [&block](const WriteFn &write) {
                           for (int i = 0; i < 64; ++i) write(block.data(), block.size());
                       },
                   .timeout = 60s},
                  result);
    BOOST_TEST(result.exit_code == 4);
}

BOOST_AUTO_TEST_CASE(merged_output_keeps_the_childs_order) {
    ProcessResult result;
    std::vector<bool> streams;
    std::string merged;
    result = run_process({.argv = {"sh", "-c", "echo a; echo b >&2; echo c"},
                          .on_output =
                              [&](bool is_stderr, std::string_view data) {
                                  streams.push_back(is_stderr);
                                  merged.append(data);
                              },
                          .merge_output = true});
    BOOST_TEST(merged == "a\nb\nc\n");
    BOOST_TEST(!streams.empty());
    BOOST_TEST(std::none_of(streams.begin(), streams.end(), [](bool is_stderr) { return is_stderr; }));
}

BOOST_AUTO_TEST_CASE(the_deadline_kills_the_child) {
    ProcessResult result;
    const auto started = std::chrono::steady_clock::now();
    run_capturing({.argv = {"sleep", "30"}, .timeout = 200ms}, result);
    BOOST_TEST(result.timed_out);
    BOOST_TEST(result.exit_code == -1);
    // A child that closed its output but goes on running is killed too.
    run_capturing({.argv = {"sh", "-c", "exec >/dev/null 2>&1; sleep 30"}, .timeout = 200ms}, result);
    BOOST_TEST(result.timed_out);
    BOOST_TEST((std::chrono::steady_clock::now() - started < 20s));
}

BOOST_AUTO_TEST_CASE(a_program_that_cannot_start_says_what_where_and_why) {
    const auto message = [](const RunOptions &options) {
        try {
            run_process(options);
        } catch (const StartError &e) {
            return std::string(e.what());
        }
        return std::string("started");
    };
    BOOST_TEST(message({.argv = {"lu-subprocess-test-no-such-program"}}) ==
               "cannot run 'lu-subprocess-test-no-such-program': No such file or directory");
    BOOST_TEST(message({.argv = {"true"}, .cwd = "/nonexistent/lu-subprocess"}) ==
               "cannot run 'true' in /nonexistent/lu-subprocess: working directory: No such file or directory");

    // Found but not executable: the exec in the child fails, and says so through the pipe.
    const TempDir dir;
    const fs::path script = dir.path() / "not-executable";
    std::ofstream(script) << "#!/bin/sh\n";
    const StartedChild child = start_child({.argv = {script.string()}, .env = environment_with({})});
    BOOST_TEST(child.pid == -1);
    BOOST_TEST((child.failed_step == StartStep::exec));
    BOOST_TEST(child.error == EACCES);
}

BOOST_AUTO_TEST_CASE(a_child_can_lead_its_own_process_group) {
    int out[2];
    BOOST_TEST_REQUIRE(::pipe(out) == 0);
    const StartedChild child = start_child({.argv = {"sh", "-c", "ps -o pgid= -p $$"},
                                            .env = environment_with({}),
                                            .stdout_fd = out[1],
                                            .own_process_group = true});
    ::close(out[1]);
    BOOST_TEST_REQUIRE(child.pid > 0);
    char buffer[64] = {};
    const ssize_t n = ::read(out[0], buffer, sizeof buffer - 1);
    ::close(out[0]);
    int status = 0;
    ::waitpid(child.pid, &status, 0);
    BOOST_TEST_REQUIRE(n > 0);
    BOOST_TEST(std::atoi(buffer) == child.pid);
    BOOST_TEST(::getpgrp() != child.pid);
}

BOOST_AUTO_TEST_CASE(a_child_asked_to_die_with_its_parent_does) {
    const pid_t survivor = grandchild_of_killed_parent(false);
    // Without the request the grandchild outlives its parent: this test can see the difference.
    BOOST_TEST(!gone_within(survivor, 1s));
    ::kill(survivor, SIGKILL);

    const pid_t follower = grandchild_of_killed_parent(true);
    BOOST_TEST(gone_within(follower, 10s));
}
