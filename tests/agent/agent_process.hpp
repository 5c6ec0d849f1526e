// The lu-agent executable as a child process over pipes, and reading back
// what the agent wrote: what the lu-agent suites share.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "common/agent_protocol/messages.hpp"

namespace lu_agent_test {

namespace fs = std::filesystem;
using namespace liveupdate::agent_protocol;

// What the agent's starter may leave to it; its run steps must not inherit it.
struct InheritedSignals {
    std::vector<int> ignored;
    std::vector<int> blocked;
};

// Frames on a descriptor, as a test speaks them.
class Wire {
public:
    explicit Wire(int fd) : fd_(fd) {}
    void send(const std::string &bytes) {
        BOOST_REQUIRE(::write(fd_, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
    }
    // The next frame, or nullopt at the end of the stream.
    std::optional<Frame> next() {
        for (;;) {
            if (auto f = decoder_.next()) return f;
            char buffer[65536];
            const auto got = ::read(fd_, buffer, sizeof buffer);
            if (got <= 0) return std::nullopt;
            decoder_.feed(std::string_view(buffer, static_cast<std::size_t>(got)));
        }
    }
    template <class M>
    M ask(const std::string &request) {
        send(request);
        auto f = next();
        BOOST_REQUIRE(f.has_value());
        return decode<M>(*f);
    }

private:
    int fd_;
    FrameDecoder decoder_;
};

// lu-agent as a child process; its stdin and stdout as this process's pipes.
class Agent {
public:
    explicit Agent(const InheritedSignals &inherited = {}) {
        int to[2], from[2];
        BOOST_REQUIRE(::pipe2(to, O_CLOEXEC) == 0 && ::pipe2(from, O_CLOEXEC) == 0);
        pid_ = ::fork();
        if (pid_ == 0) {
            for (const int sig : inherited.ignored) ::signal(sig, SIG_IGN);
            sigset_t mask;
            sigemptyset(&mask);
            for (const int sig : inherited.blocked) sigaddset(&mask, sig);
            ::sigprocmask(SIG_BLOCK, &mask, nullptr);
            ::dup2(to[0], 0);
            ::dup2(from[1], 1);
            ::execl(LU_AGENT_PATH, "lu-agent", nullptr);
            ::_exit(127);
        }
        ::close(to[0]);
        ::close(from[1]);
        in = to[1];
        out = from[0];
        from_ = Wire(out);
    }
    Agent(const Agent &) = delete;
    Agent &operator=(const Agent &) = delete;
    ~Agent() {
        close_stdin();
        ::close(out);
        if (pid_ > 0) ::waitpid(pid_, nullptr, 0);
    }
    void send(const std::string &bytes) { Wire(in).send(bytes); }
    std::optional<Frame> next() { return from_.next(); }
    template <class M>
    M ask_for(const std::string &request) {
        send(request);
        auto f = next();
        BOOST_REQUIRE(f.has_value());
        return decode<M>(*f);
    }
    void greet() { BOOST_TEST(ask_for<HelloReply>(encode(Hello{})).version == kProtocolVersion); }
    void close_stdin() {
        if (in >= 0) ::close(in);
        in = -1;
    }
    // Closes stdin and returns the agent's exit status.
    int finish() {
        close_stdin();
        int status = 0;
        ::waitpid(pid_, &status, 0);
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }

    pid_t pid() const { return pid_; }

    int in = -1;
    int out = -1;

private:
    pid_t pid_ = -1;
    Wire from_{-1};
};

inline std::string read_file(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

inline int mode_of(const std::string &path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 ? static_cast<int>(st.st_mode & 07777) : -1;
}

}  // namespace lu_agent_test
