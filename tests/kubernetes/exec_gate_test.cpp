// updaters/kubernetes/exec_gate: what an update over per-update exec writes
// waits in the container until the pod was looked at, and is sent only when
// the container is the one meant. The "container" here is this machine: the
// stand-in exec runs the command with a local sh, and the look is a function
// that records when it was asked.
#define BOOST_TEST_MODULE exec_gate
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/subprocess/run_process.hpp"
#include "tests/docker/docker_test_support.hpp"
#include "updaters/kubernetes/exec_gate.hpp"
#include "updaters/kubernetes/kubectl_updater.hpp"

namespace fs = std::filesystem;
namespace k8s = liveupdate::kubernetes;
namespace lu = liveupdate::updater;
using liveupdate::kube::ExecStdinFn;
using liveupdate::kube::PodExecTarget;

namespace {

struct Logged {
    std::vector<std::string> lines;
    static void add(void *ctx, std::int32_t, lu_str line) {
        static_cast<Logged *>(ctx)->lines.emplace_back(line.data, line.size);
    }
};

// A folder under /tmp the archive's entries land in (tar -C /).
struct Folder {
    fs::path path = fs::temp_directory_path() / ("h3-exec-gate-" + std::to_string(::getpid()));
    Folder() {
        fs::remove_all(path);
        fs::create_directories(path);
        std::ofstream(path / "keep") << "mine\n";
    }
    ~Folder() { fs::remove_all(path); }
};

std::string read(const fs::path &path) {
    std::ifstream in(path);
    return {std::istreambuf_iterator<char>(in), {}};
}

struct Pod {
    Folder folder;
    Logged logged;
    std::vector<std::string> events;  // "exec" when a command starts, "look" when the pod is looked at
    std::string tar;
    std::size_t at = 0;

    k8s::PodExecFn exec() {
        return [this](const PodExecTarget &, const std::vector<std::string> &command, const ExecStdinFn *input,
                      std::chrono::seconds timeout, const lu::UpdateLog &log) {
            events.push_back("exec");
            k8s::OutputLines lines(log);
            liveupdate::subprocess::RunOptions run{
                .argv = command,
                .on_output = [&](bool is_stderr, std::string_view data) { lines.add(is_stderr, data); },
                .timeout = std::chrono::duration_cast<std::chrono::milliseconds>(timeout)};
            if (input != nullptr)
                run.feed_stdin = [input](const liveupdate::subprocess::WriteFn &write) { (*input)(write); };
            const auto result = liveupdate::subprocess::run_process(run);
            lines.flush();
            k8s::ExecOutcome outcome;
            outcome.exit_code = result.exit_code;
            outcome.timed_out = result.timed_out;
            outcome.output = lines.tail();
            return outcome;
        };
    }

    lu::Request request() {
        const std::string dir = folder.path.string().substr(1);
        tar = lu_test::TarBuilder().file(dir + "/sent.txt", "sent\n").finish();
        lu::Request r;
        r.container = {"new-id", "main", "pod", "ns", ""};
        r.copies = {{"/src/sent.txt", "/" + dir + "/sent.txt"}};
        r.archive = [this](void *buffer, std::size_t capacity) -> std::int64_t {
            const std::size_t n = std::min(capacity, tar.size() - at);
            std::memcpy(buffer, tar.data() + at, n);
            at += n;
            return static_cast<std::int64_t>(n);
        };
        r.delete_paths = {folder.path.string() + "/keep"};
        r.sync_roots = {folder.path.string()};
        r.log = lu::UpdateLog(&Logged::add, &logged);
        return r;
    }

    k8s::GoneReasonFn look(const std::string &answer) {
        return [this, answer] {
            events.push_back("look");
            return answer;
        };
    }
};

}  // namespace

// The pod made again under its name before the exec reached it: the look,
// made once the command runs, finds another container; nothing is written.
BOOST_FIXTURE_TEST_CASE(a_container_not_the_one_meant_is_sent_nothing, Pod) {
    const lu::Outcome outcome = k8s::update_pod_container(
        exec(), k8s::KubectlConfig{}, request(),
        look("container main of pod ns/pod was started again since (container ID 0123456789ab)"));
    BOOST_TEST((outcome.kind == lu::Outcome::Kind::container_not_running), outcome.message);
    BOOST_TEST(outcome.message.find("was started again since") != std::string::npos, outcome.message);
    BOOST_TEST(read(folder.path / "keep") == "mine\n");  // its delete did not run
    BOOST_TEST(!fs::exists(folder.path / "sent.txt"));
    // The look came after the command started, not before: that is what proves where it runs.
    BOOST_TEST(events == (std::vector<std::string>{"exec", "look"}), "events: " << events.size());
}

// The container meant: the deletes, the room made and the copy go through
// that one command; one look, after it started; no word of the gate logged.
BOOST_FIXTURE_TEST_CASE(the_container_meant_gets_the_update_from_one_command, Pod) {
    lu::Request r = request();
    r.runs = {lu::RunStep{.argv = {"sh", "-c", "echo ran"}}};
    const lu::Outcome outcome = k8s::update_pod_container(exec(), k8s::KubectlConfig{}, r, look(""));
    BOOST_TEST((outcome.kind == lu::Outcome::Kind::ok), outcome.message);
    BOOST_TEST(!fs::exists(folder.path / "keep"));
    BOOST_TEST(read(folder.path / "sent.txt") == "sent\n");
    BOOST_TEST(events == (std::vector<std::string>{"exec", "look", "exec"}), "events: " << events.size());
    BOOST_TEST((std::find(logged.lines.begin(), logged.lines.end(), "ran") != logged.lines.end()));
    for (const auto &line : logged.lines) BOOST_TEST(line.find("lu-exec-gate") == std::string::npos, line);
}

// A command that ends before it says it runs (exit 127: the image has no
// sh) is never asked about, and the feeder does not wait for it.
BOOST_FIXTURE_TEST_CASE(a_command_that_never_starts_is_not_waited_for, Pod) {
    const k8s::PodExecFn no_shell = [this](const PodExecTarget &target, const std::vector<std::string> &,
                                           const ExecStdinFn *input, std::chrono::seconds timeout,
                                           const lu::UpdateLog &log) {
        return exec()(target, {"sh", "-c", "exit 127"}, input, timeout, log);
    };
    const auto gated = k8s::run_gated(no_shell, {"ns", "pod", "main"}, {"true"}, nullptr, std::chrono::seconds(20),
                                      lu::UpdateLog(&Logged::add, &logged), look(""));
    BOOST_TEST((gated.kind == k8s::GatedOutcome::Kind::no_shell));  // not timed out waiting
    BOOST_TEST(std::count(events.begin(), events.end(), "look") == 0);
}
