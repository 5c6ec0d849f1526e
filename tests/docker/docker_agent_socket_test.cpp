// The docker updater's lu-agent sessions on the agent's unix socket, against
// the real engine: with the local engine the session moves there (the exec
// stays for the agent's lifetime) and leaves no socket behind; where the
// agent cannot listen (a user who may not write its folder) or the engine is
// reached over TCP, the session stays on the exec stream and updates go on.
// Containers are named lut28-*.
#define BOOST_TEST_MODULE docker_agent_socket
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/docker/docker_test_support.hpp"
#include "tests/docker/tcp_unix_proxy.hpp"

using namespace lu_test;
namespace fs = std::filesystem;

namespace {

class Container {
public:
    Container() {
        static int counter = 0;
        name_ = "lut28-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
        id_ = sh_ok("docker run -d --network none --name " + name_ + " lu-busybox:latest sleep 100000");
    }
    ~Container() { sh("docker rm -f " + name_ + " >/dev/null 2>&1"); }
    Container(const Container &) = delete;
    Container &operator=(const Container &) = delete;
    const std::string &id() const { return id_; }
    const std::string &name() const { return name_; }
    std::string read(const std::string &path) const {
        return sh("docker cp " + name_ + ":" + path + " - 2>/dev/null | tar -xO 2>/dev/null").output;
    }
    // What the container's lu-agent has open: "pipe:[..]", "socket:[..]", ...
    std::vector<std::string> agent_descriptors() const {
        const auto pid =
            sh_ok("docker top " + name_ + " -eo pid,args | awk '/\\.lu-agent\\/lu-agent/ {print $1}' | head -1");
        std::vector<std::string> open;
        for (const auto &entry : fs::directory_iterator("/proc/" + pid + "/fd"))
            open.push_back(fs::read_symlink(entry.path()).string());
        return open;
    }
    // Sockets anywhere in the agent's folder.
    std::string sockets_left() const { return sh("docker exec " + name_ + " find /.lu-agent -type s").output; }

private:
    std::string name_;
    std::string id_;
};

Outcome save(DockerUpdater &updater, const Container &c, const std::string &name) {
    Update u;
    u.archive = TarBuilder().file("app/" + name, name).finish();
    u.copies.push_back({"/nowhere/app/" + name, "/app/" + name});
    return updater.update(c.id(), c.name(), u);
}

bool has_socket(const std::vector<std::string> &descriptors) {
    for (const auto &d : descriptors)
        if (d.starts_with("socket:")) return true;
    return false;
}

}  // namespace

BOOST_AUTO_TEST_CASE(with_the_local_engine_the_session_moves_to_the_agents_socket) {
    Container c;
    DockerUpdater updater;
    const auto first = save(updater, c, "s0");
    BOOST_TEST_REQUIRE(first.kind == LU_OUTCOME_OK, first.message);
    BOOST_TEST(first.logged("on its socket in container " + c.name()));
    for (const std::string file : {"s1", "s2", "s3"}) {
        const auto saved = save(updater, c, file);
        BOOST_TEST_REQUIRE(saved.kind == LU_OUTCOME_OK, saved.message);
        BOOST_TEST(c.read("/app/" + file) == file);
    }
    BOOST_TEST(has_socket(c.agent_descriptors()));
    BOOST_TEST(c.sockets_left() == "");
}

BOOST_AUTO_TEST_CASE(an_agent_that_cannot_listen_keeps_the_session_on_the_exec_stream) {
    Container c;
    sh_ok("docker exec " + c.name() + " sh -c 'mkdir -p /app && chown 65534 /app'");
    DockerUpdater updater(R"({"user": "nobody"})");
    const auto first = save(updater, c, "s0");
    BOOST_TEST_REQUIRE(first.kind == LU_OUTCOME_OK, first.message);
    BOOST_TEST(first.logged("stays on its exec stream"));
    BOOST_TEST(!first.logged("on its socket in"));
    const auto second = save(updater, c, "s1");
    BOOST_TEST_REQUIRE(second.kind == LU_OUTCOME_OK, second.message);
    BOOST_TEST(c.read("/app/s1") == "s1");
    BOOST_TEST(!has_socket(c.agent_descriptors()));
}

BOOST_AUTO_TEST_CASE(an_engine_over_tcp_keeps_the_session_on_the_exec_stream) {
    Container c;
    TcpUnixProxy proxy("/var/run/docker.sock");
    DockerUpdater updater(R"({"host": "tcp://127.0.0.1:)" + std::to_string(proxy.port()) + R"("})");
    const auto first = save(updater, c, "s0");
    BOOST_TEST_REQUIRE(first.kind == LU_OUTCOME_OK, first.message);
    BOOST_TEST(first.logged("Started lu-agent"));
    BOOST_TEST(!first.logged("on its socket"));
    BOOST_TEST(c.read("/app/s0") == "s0");
    BOOST_TEST(!has_socket(c.agent_descriptors()));
}
