// Large files through lu-agent in a container: the delta cases of
// tests/agent/delta_cases.hpp with the agent run by `docker exec -i` in an
// lu-busybox container (killed there for the broken transfer), and a large
// file edited twice through the docker updater itself (lu_test containers).
#define BOOST_TEST_MODULE agent_delta_docker
#include <signal.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <sstream>

#include "common/delta/signature.hpp"
#include "tests/agent/delta_cases.hpp"
#include "tests/docker/docker_test_support.hpp"

using namespace lu_agent_test;

namespace {

const std::string kAgentInContainer = "/lu-delta-agent";

class ContainerTarget : public DeltaTarget {
public:
    ContainerTarget() : container_("lu-busybox:latest", "sleep 100000") {
        lu_test::sh_ok("docker cp " + lu_test::shell_quote(LU_AGENT_PATH) + " " + container_.name() + ":" +
                       kAgentInContainer);
        container_.exec("mkdir -p /app");
    }
    std::vector<std::string> agent_argv() override {
        return {"docker", "exec", "-i", container_.name(), kAgentInContainer};
    }
    std::string root() override { return "/app"; }
    std::string read(const std::string &path) override {
        return lu_test::sh("docker cp " + container_.name() + ":" + path + " - 2>/dev/null | tar -xO 2>/dev/null")
            .output;
    }
    std::vector<std::string> names_in(const std::string &folder) override {
        std::istringstream listing(container_.exec("ls -a " + folder).output);
        std::vector<std::string> names;
        for (std::string name; std::getline(listing, name);) names.push_back(name);
        return names;
    }
    // The agent runs in the container: its process there is killed, not the docker client.
    void kill_agent(PipeAgentStream &) override {
        std::istringstream pids(lu_test::sh_ok("docker top " + container_.name() + " -eo pid,args | awk '/" +
                                               kAgentInContainer.substr(1) + "/ {print $1}'"));
        int killed = 0;
        for (std::string pid; std::getline(pids, pid);)
            if (!pid.empty() && ::kill(std::stoi(pid), SIGKILL) == 0) ++killed;
        BOOST_TEST_REQUIRE(killed == 1);
    }
    const lu_test::TestContainer &container() const { return container_; }

private:
    lu_test::TestContainer container_;
};

}  // namespace

BOOST_AUTO_TEST_CASE(files_that_grow_shrink_are_rewritten_moved_or_replaced_end_equal) {
    ContainerTarget t;
    a_file_that_grows(t);
    a_file_that_shrinks(t);
    a_file_rewritten_from_the_start(t);
    a_file_with_blocks_moved(t);
    a_file_replaced_by_another_of_the_same_size(t);
}

BOOST_AUTO_TEST_CASE(a_transfer_broken_by_a_killed_agent_completes_next_time) {
    ContainerTarget t;
    a_transfer_broken_mid_way(t);
}

BOOST_AUTO_TEST_CASE(a_large_file_edited_through_the_docker_updater_ends_equal) {
    lu_test::TestContainer c("lu-busybox:latest", "sleep 100000");
    lu_test::DockerUpdater updater;
    auto content = random_bytes(std::size_t{6} << 20, 21);
    for (int round = 0; round < 3; ++round) {
        if (round > 0) content[content.size() / 2 + static_cast<std::size_t>(round)] ^= 0x11;
        lu_test::Update u;
        u.archive = lu_test::TarBuilder().file("data/big.bin", content).finish();
        u.copies = {{"/nowhere/data/big.bin", "/data/big.bin"}};
        u.sync_roots = {"/data"};
        const auto outcome = updater.update(c.id(), c.name(), u);
        BOOST_TEST_REQUIRE(outcome.kind == LU_OUTCOME_OK, outcome.message);
        const auto there = lu_test::sh("docker cp " + c.name() + ":/data/big.bin - | tar -xO").output;
        BOOST_TEST((liveupdate::delta::strong_hash(there) == liveupdate::delta::strong_hash(content)),
                   "round " << round);
    }
    BOOST_TEST(c.exec("ls -a /data").output == ".\n..\nbig.bin\n");
}
