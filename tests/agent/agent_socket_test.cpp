// An lu-agent session moving to the agent's unix socket (OpenSocket), with
// the real agent over pipes on this machine: the socket is private and goes
// once taken, a connection without the token is closed with the session
// left on stdin, a socket answering another token is not trusted, and a
// host that cannot connect keeps the session on its stream, and a wait on
// the socket ends when its owner interrupts it.
#define BOOST_TEST_MODULE agent_socket
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "common/agent_client/agent_session.hpp"
#include "common/agent_client/agent_socket.hpp"
#include "common/agent_protocol/messages.hpp"
#include "tests/agent/agent_process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace liveupdate::agent_protocol;
using liveupdate::agent_client::AgentSession;
using liveupdate::agent_client::AgentTransport;
using liveupdate::test::TempDir;
namespace fs = std::filesystem;
using lu_agent_test::Agent;
using lu_agent_test::Wire;

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kTimeout = std::chrono::seconds(10);

// The sockets in dir: a socket path the agent made and took back is gone.
std::size_t sockets_in(const TempDir &dir) {
    std::size_t n = 0;
    for (const auto &entry : fs::directory_iterator(dir.path())) n += entry.is_socket() ? 1 : 0;
    return n;
}

int connect_to(const std::string &path) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    BOOST_REQUIRE(fd >= 0);
    BOOST_REQUIRE(::connect(fd, reinterpret_cast<const sockaddr *>(&address), sizeof address) == 0);
    return fd;
}

// The agent's stdin and stdout as an AgentTransport, counting what goes out on stdin.
class PipeTransport final : public AgentTransport {
public:
    PipeTransport(int in, int out, std::size_t &stdin_bytes) : in_(in), out_(out), stdin_bytes_(stdin_bytes) {}
    Progress write(std::string_view data, Clock::time_point, Sink &) override {
        stdin_bytes_ += data.size();
        return ::write(in_, data.data(), data.size()) == static_cast<ssize_t>(data.size()) ? Progress::done
                                                                                           : Progress::ended;
    }
    Progress read(Clock::time_point deadline, Sink &sink) override {
        pollfd p{out_, POLLIN, 0};
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (::poll(&p, 1, static_cast<int>(std::max<long long>(left, 0))) == 0) return Progress::timed_out;
        return hand_over(sink) ? Progress::done : Progress::ended;
    }
    bool idle(Sink &sink) override {
        pollfd p{out_, POLLIN, 0};
        return ::poll(&p, 1, 0) == 0 || hand_over(sink);
    }
    End end() override { return {}; }
    int readable_fd() const override { return out_; }

private:
    bool hand_over(Sink &sink) {
        char buffer[65536];
        const auto got = ::read(out_, buffer, sizeof buffer);
        if (got <= 0) return false;
        sink.stdout_bytes(std::string_view(buffer, static_cast<std::size_t>(got)));
        return true;
    }
    int in_;
    int out_;
    std::size_t &stdin_bytes_;
};

std::unique_ptr<AgentSession> session_over(Agent &agent, std::size_t &stdin_bytes) {
    return AgentSession::start(std::make_unique<PipeTransport>(agent.in, agent.out, stdin_bytes), kTimeout,
                               [](std::string_view) {});
}

Result write_through(AgentSession &session, const std::string &path, const std::string &root) {
    session.send(encode(WriteFile{path, root, 0644, kKeepOwner, kKeepOwner, "content\n"}), Clock::now() + kTimeout);
    return decode<Result>(session.receive(Clock::now() + kTimeout));
}

std::string read_file(const fs::path &path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_session_moves_to_the_agents_socket_and_its_requests_go_there) {
    TempDir dir{"lu-agent-socket-test"};
    Agent agent;
    std::size_t stdin_bytes = 0;
    auto session = session_over(agent, stdin_bytes);
    BOOST_TEST_REQUIRE(session->move_to_socket("", dir.path().string(), kTimeout) == "");
    BOOST_TEST(session->description().find("on its socket") != std::string::npos, session->description());
    const std::size_t before = stdin_bytes;
    const auto written = write_through(*session, dir.path().string() + "/f", dir.path().string());
    BOOST_TEST(written.error == 0, written.message);
    BOOST_TEST(read_file(dir.path() / "f") == "content\n");
    BOOST_TEST(stdin_bytes == before);  // the request went over the socket
    BOOST_TEST(sockets_in(dir) == 0u);  // its path went once the connection was taken
    BOOST_TEST(session->alive());
}

BOOST_AUTO_TEST_CASE(the_agents_socket_is_private_and_goes_when_the_host_stays_on_stdin) {
    TempDir dir{"lu-agent-socket-test"};
    Agent agent;
    Wire stdio_in(agent.in), stdio_out(agent.out);
    stdio_in.send(encode(Hello{}));
    BOOST_TEST_REQUIRE(stdio_out.next().has_value());
    stdio_in.send(encode(OpenSocket{dir.path().string(), "client", "agent", 10000}));
    const auto reply = decode<SocketReply>(*stdio_out.next());
    BOOST_TEST_REQUIRE(reply.error == 0, reply.message);
    BOOST_TEST(fs::path(reply.path).parent_path() == dir.path());
    struct stat st {};
    BOOST_TEST_REQUIRE(::stat(reply.path.c_str(), &st) == 0);
    BOOST_TEST(S_ISSOCK(st.st_mode));
    BOOST_TEST((st.st_mode & 0777) == 0600u);
    // More on stdin: the host did not come; the request is answered on stdout.
    stdio_in.send(
        encode(WriteFile{dir.path().string() + "/f", dir.path().string(), 0644, kKeepOwner, kKeepOwner, "x"}));
    BOOST_TEST(decode<Result>(*stdio_out.next()).error == 0);
    BOOST_TEST(!fs::exists(reply.path));
}

BOOST_AUTO_TEST_CASE(a_connection_without_the_token_is_closed_and_the_session_stays_on_stdin) {
    TempDir dir{"lu-agent-socket-test"};
    Agent agent;
    Wire stdio_in(agent.in), stdio_out(agent.out);
    stdio_in.send(encode(Hello{}));
    BOOST_TEST_REQUIRE(stdio_out.next().has_value());
    stdio_in.send(encode(OpenSocket{dir.path().string(), "client", "agent", 10000}));
    const auto reply = decode<SocketReply>(*stdio_out.next());
    BOOST_TEST_REQUIRE(reply.error == 0, reply.message);
    const int foreign = connect_to(reply.path);
    Wire intruder(foreign);
    intruder.send(encode(SocketHello{"guessed"}));
    BOOST_TEST(!intruder.next().has_value());  // closed, no welcome, no token
    ::close(foreign);
    stdio_in.send(
        encode(WriteFile{dir.path().string() + "/f", dir.path().string(), 0644, kKeepOwner, kKeepOwner, "x"}));
    BOOST_TEST(decode<Result>(*stdio_out.next()).error == 0);
    BOOST_TEST(!fs::exists(reply.path));
}

BOOST_AUTO_TEST_CASE(a_socket_that_answers_another_token_is_not_trusted) {
    TempDir dir{"lu-agent-socket-test"};
    const std::string path = dir.path().string() + "/impostor.sock";
    const int listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
    BOOST_REQUIRE(::bind(listener, reinterpret_cast<const sockaddr *>(&address), sizeof address) == 0);
    BOOST_REQUIRE(::listen(listener, 1) == 0);
    std::thread impostor([listener] {
        const int c = ::accept(listener, nullptr, nullptr);
        Wire wire(c);
        if (wire.next()) wire.send(encode(SocketWelcome{"not the agent's"}));
        ::close(c);
    });
    try {
        const int fd =
            liveupdate::agent_client::connect_agent_socket("/", path, "client", "agent", Clock::now() + kTimeout);
        ::close(fd);
        BOOST_ERROR("the impostor was trusted");
    } catch (const std::runtime_error &e) {
        BOOST_TEST(std::string(e.what()).find("is not the agent just started") != std::string::npos, e.what());
    }
    impostor.join();
    ::close(listener);
}

namespace {

// A socket that counts as reached when a connection waits in its backlog.
struct Listener {
    explicit Listener(const std::string &path) : fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
        BOOST_REQUIRE(::bind(fd, reinterpret_cast<const sockaddr *>(&address), sizeof address) == 0);
        BOOST_REQUIRE(::listen(fd, 4) == 0);
    }
    ~Listener() { ::close(fd); }
    bool reached() const {
        pollfd p{fd, POLLIN, 0};
        return ::poll(&p, 1, 0) == 1;
    }
    int fd;
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_socket_path_is_resolved_inside_the_containers_root) {
    // The container's files are not the host's: a link in them must not lead lu-host to a socket of the host's.
    TempDir host{"lu-agent-socket-test"}, root{"lu-agent-socket-test"};
    Listener host_socket(host.path().string() + "/host.sock");
    fs::create_symlink(host.path().string(), root.path() / "agent-dir");                 // absolute: the host's folder
    fs::create_symlink(host.path().string() + "/host.sock", root.path() / "link.sock");  // the name itself a link
    for (const char *in_container : {"/agent-dir/host.sock", "/link.sock"}) {
        try {
            ::close(liveupdate::agent_client::connect_agent_socket(root.path().string(), in_container, "client",
                                                                   "agent", Clock::now() + kTimeout));
            BOOST_ERROR("connected through " << in_container);
        } catch (const std::runtime_error &e) {
            BOOST_TEST(std::string(e.what()).find(in_container) != std::string::npos, e.what());
        }
        BOOST_TEST(!host_socket.reached(), in_container);
    }
}

BOOST_AUTO_TEST_CASE(a_host_that_cannot_reach_the_socket_keeps_the_session_on_its_stream) {
    TempDir dir{"lu-agent-socket-test"};
    Agent agent;
    std::size_t stdin_bytes = 0;
    auto session = session_over(agent, stdin_bytes);
    const std::string why = session->move_to_socket("/nonexistent-root", dir.path().string(), kTimeout);
    BOOST_TEST(why.find("connecting to /nonexistent-root") != std::string::npos, why);
    const std::size_t before = stdin_bytes;
    BOOST_TEST(write_through(*session, dir.path().string() + "/f", dir.path().string()).error == 0);
    BOOST_TEST(stdin_bytes > before);
    BOOST_TEST(sockets_in(dir) == 0u);
}

BOOST_AUTO_TEST_CASE(an_agent_that_cannot_listen_says_why_and_serves_on) {
    TempDir dir{"lu-agent-socket-test"};
    Agent agent;
    std::size_t stdin_bytes = 0;
    auto session = session_over(agent, stdin_bytes);
    const std::string why = session->move_to_socket("", dir.path().string() + "/missing", kTimeout);
    BOOST_TEST(why.find("binding a socket") != std::string::npos, why);
    BOOST_TEST(write_through(*session, dir.path().string() + "/f", dir.path().string()).error == 0);
}

BOOST_AUTO_TEST_CASE(the_session_ends_when_the_agent_does) {
    TempDir dir{"lu-agent-socket-test"};
    Agent agent;
    std::size_t stdin_bytes = 0;
    auto session = session_over(agent, stdin_bytes);
    BOOST_TEST_REQUIRE(session->move_to_socket("", dir.path().string(), kTimeout) == "");
    agent.close_stdin();  // the exec's end, as when the host lets the session go
    try {
        write_through(*session, dir.path().string() + "/f", dir.path().string());
        BOOST_ERROR("a request was answered after the agent ended");
    } catch (const liveupdate::agent_client::AgentSessionBroken &) {
    }
    BOOST_TEST(!session->alive());
}

// A sync back watch waits for the agent's changes with no step of its own
// (ChangeWatch): its owner's interrupt() must end that wait at once, from
// another thread, and every later one; over stdin (a transport that cannot
// be interrupted) the session says so, and its owner waits in steps.
BOOST_AUTO_TEST_CASE(an_interrupt_ends_a_wait_for_changes_on_the_socket) {
    TempDir dir{"lu-agent-socket-test"};
    Agent agent;
    std::size_t stdin_bytes = 0;
    auto session = session_over(agent, stdin_bytes);
    BOOST_TEST(!session->interruptible());
    BOOST_TEST_REQUIRE(session->move_to_socket("", dir.path().string(), kTimeout) == "");
    BOOST_TEST_REQUIRE(session->interruptible());

    const auto far = std::chrono::seconds(20);
    std::thread owner([&session] {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        session->interrupt();
    });
    const auto start = Clock::now();
    session->wait_for_changes(start + far);
    owner.join();
    const bool ended_early = Clock::now() - start < far / 2;
    BOOST_TEST(ended_early, "the wait ran to its deadline: the interrupt did not end it");
    const auto again = Clock::now();
    session->wait_for_changes(again + far);
    const bool at_once = Clock::now() - again < far / 2;
    BOOST_TEST(at_once, "a wait after the interrupt waited");
    BOOST_TEST(session->take_changes().empty());
}
