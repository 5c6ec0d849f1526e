// An agent started as a child process (lu-agent itself, `docker exec -i C
// lu-agent`, or a script playing one) as the AgentTransport an
// AgentSession speaks over: its stdin and stdout as pipes, stderr dropped.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/agent_client/agent_transport.hpp"

namespace lu_agent_test {

class ProcessTransport final : public liveupdate::agent_client::AgentTransport {
public:
    explicit ProcessTransport(const std::vector<std::string> &argv) {
        int to[2], from[2];
        if (::pipe2(to, O_CLOEXEC) != 0 || ::pipe2(from, O_CLOEXEC) != 0) return;
        pid_ = ::fork();
        if (pid_ == 0) {
            ::dup2(to[0], 0);
            ::dup2(from[1], 1);
            const int null = ::open("/dev/null", O_WRONLY);
            ::dup2(null, 2);
            std::vector<char *> args;
            args.reserve(argv.size() + 1);
            for (const auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
            args.push_back(nullptr);
            ::execvp(args[0], args.data());
            ::_exit(127);
        }
        ::close(to[0]);
        ::close(from[1]);
        in_ = to[1];
        out_ = from[0];
    }
    ~ProcessTransport() override {
        if (in_ >= 0) ::close(in_);
        if (out_ >= 0) ::close(out_);
        if (pid_ > 0) {
            ::kill(pid_, SIGTERM);
            ::waitpid(pid_, nullptr, 0);
        }
    }
    ProcessTransport(const ProcessTransport &) = delete;
    ProcessTransport &operator=(const ProcessTransport &) = delete;

    Progress write(std::string_view data, Clock::time_point deadline, Sink &sink) override {
        while (!data.empty()) {
            pollfd p[2] = {{in_, POLLOUT, 0}, {out_, POLLIN, 0}};
            if (::poll(p, 2, left_ms(deadline)) == 0) return Progress::timed_out;
            if (p[1].revents != 0 && !hand_over(sink)) return Progress::ended;
            if (p[0].revents & (POLLERR | POLLHUP)) return Progress::ended;
            if (!(p[0].revents & POLLOUT)) continue;
            const auto wrote = ::write(in_, data.data(), data.size());
            if (wrote < 0) return Progress::ended;
            data.remove_prefix(static_cast<std::size_t>(wrote));
        }
        return Progress::done;
    }
    Progress read(Clock::time_point deadline, Sink &sink) override {
        pollfd p{out_, POLLIN, 0};
        if (::poll(&p, 1, left_ms(deadline)) == 0) return Progress::timed_out;
        return hand_over(sink) ? Progress::done : Progress::ended;
    }
    bool idle(Sink &sink) override {
        pollfd p{out_, POLLIN, 0};
        return ::poll(&p, 1, 0) == 0 || hand_over(sink);
    }
    End end() override { return {}; }
    int readable_fd() const override { return out_; }

private:
    static int left_ms(Clock::time_point deadline) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        return static_cast<int>(std::max<long long>(left, 0));
    }
    bool hand_over(Sink &sink) {
        char buffer[65536];
        const auto got = ::read(out_, buffer, sizeof buffer);
        if (got <= 0) return false;
        sink.stdout_bytes(std::string_view(buffer, static_cast<std::size_t>(got)));
        return true;
    }
    pid_t pid_ = -1;
    int in_ = -1;
    int out_ = -1;
};

}  // namespace lu_agent_test
