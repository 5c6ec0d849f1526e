// Sync back, lu-agent's half: a small file written in an lu-busybox container
// (through /proc/PID/root, so no exec's start is timed) until the host's
// session (AgentSession over `docker exec -i`) has its change, p50/p99 over
// the rounds; the reference, in the same run and session, a forward small
// save (WriteFile to its Result). The agent's debounce is part of the figure.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/bench_support/stats.hpp"
#include "common/agent_client/agent_session.hpp"
#include "tests/agent/process_transport.hpp"
#include "tests/docker/docker_test_support.hpp"

namespace {

using lu_bench::Clock;
using lu_bench::ms_since;
using lu_bench::percentile;
namespace ap = liveupdate::agent_protocol;

const std::string kAgent = "/lu-sync-back-bench-agent";
constexpr std::chrono::seconds kTimeout{30};

int run(int rounds, std::uint32_t debounce_ms) {
    lu_test::TestContainer container("lu-busybox:latest", "sleep 100000");
    lu_test::sh_ok("docker cp " + lu_test::shell_quote(LU_AGENT_PATH) + " " + container.name() + ":" + kAgent);
    container.exec("mkdir -p /app");
    const std::string pid = lu_test::sh_ok("docker inspect -f '{{.State.Pid}}' " + container.name());
    const std::string app = "/proc/" + pid + "/root/app";
    auto session = liveupdate::agent_client::AgentSession::start(
        std::make_unique<lu_agent_test::ProcessTransport>(
            std::vector<std::string>{"docker", "exec", "-i", container.name(), kAgent}),
        kTimeout, [](std::string_view) {});
    const auto refused = session->watch_changes(
        ap::WatchChanges{1, "/app", {"back"}, 64u << 20, debounce_ms, 0, {}, {}}, Clock::now() + kTimeout, {});
    if (!refused.empty()) throw std::runtime_error("watch: " + refused);

    std::vector<double> back_ms, forward_ms;
    for (int i = 0; i < rounds + 3; ++i) {  // 3 rounds to warm up
        const std::string content = "lockfile round " + std::to_string(i) + "\n";
        auto start = Clock::now();
        session->send(ap::encode(ap::WriteFile{"/app/fwd.txt", "/app", 0644, ap::kKeepOwner, ap::kKeepOwner, content}),
                      Clock::now() + kTimeout);
        if (ap::decode<ap::Result>(session->receive(Clock::now() + kTimeout)).error != 0)
            throw std::runtime_error("a forward save failed");
        const double forward = ms_since(start);

        start = Clock::now();
        std::ofstream(app + "/back", std::ios::trunc) << content;
        bool arrived = false;
        while (!arrived) {
            if (ms_since(start) > 10'000)
                throw std::runtime_error("round " + std::to_string(i) + ": nothing came back");
            session->wait_for_changes(Clock::now() + kTimeout);
            for (const auto &c : session->take_changes())
                arrived = arrived || (c.path == "back" && c.content == content);
        }
        const double back = ms_since(start);
        if (i >= 3) {
            forward_ms.push_back(forward);
            back_ms.push_back(back);
        }
    }
    const double fwd50 = percentile(forward_ms, 0.5), back50 = percentile(back_ms, 0.5);
    const double back99 = percentile(back_ms, 0.99);
    std::printf("sync back, a file written in the container -> the client has it (%d rounds, debounce %u ms)\n", rounds,
                debounce_ms);
    std::printf("  container -> client   p50 %7.2f ms  p99 %7.2f ms\n", back50, back99);
    std::printf("  forward small save    p50 %7.2f ms  p99 %7.2f ms  (reference, same session)\n", fwd50,
                percentile(forward_ms, 0.99));
    std::printf("  ratio p50 back/forward %.2fx\n", fwd50 > 0 ? back50 / fwd50 : 0.0);
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc > 1 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
        std::puts(
            "Usage: sync_back_bench [rounds [debounce_ms]]\n"
            "A file written in an lu-busybox container until the host's lu-agent session has it, p50/p99,\n"
            "against a forward small save through the same session. Needs a Docker engine\n"
            "(scripts/dockerd.sh start) and lu-busybox:latest. Exit codes: 0 done, 1 failed.");
        return 0;
    }
    try {
        const int rounds = argc > 1 ? std::atoi(argv[1]) : 30;
        const auto debounce = static_cast<std::uint32_t>(argc > 2 ? std::atoi(argv[2]) : 5);
        return run(rounds > 0 ? rounds : 30, debounce);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "sync_back_bench: %s\n", e.what());
        return 1;
    }
}
