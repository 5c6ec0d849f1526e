#include "tests/agent/pipe_agent_stream.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "common/agent_protocol/messages.hpp"

namespace lu_agent_test {

using liveupdate::agent_client::AgentSessionBroken;
namespace agent_protocol = liveupdate::agent_protocol;

PipeAgentStream::PipeAgentStream(const std::vector<std::string> &argv) {
    // A killed agent's pipe must fail a write, not end the test.
    ::signal(SIGPIPE, SIG_IGN);
    int to[2], from[2];
    if (::pipe2(to, O_CLOEXEC) != 0 || ::pipe2(from, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
    pid_ = ::fork();
    if (pid_ == 0) {
        ::dup2(to[0], 0);
        ::dup2(from[1], 1);
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
    ::fcntl(in_, F_SETFL, O_NONBLOCK);
}

PipeAgentStream::~PipeAgentStream() {
    if (in_ >= 0) ::close(in_);
    if (out_ >= 0) ::close(out_);
    if (pid_ > 0) {
        int status = 0;
        ::waitpid(pid_, &status, 0);
    }
}

void PipeAgentStream::kill_now() {
    if (pid_ > 0) ::kill(pid_, SIGKILL);
}

void PipeAgentStream::broken(const std::string &why) { throw AgentSessionBroken("test agent session: " + why); }

bool PipeAgentStream::read_some(int timeout_ms) {
    pollfd p{out_, POLLIN, 0};
    const int ready = ::poll(&p, 1, timeout_ms);
    if (ready <= 0) return false;
    char buffer[65536];
    const auto got = ::read(out_, buffer, sizeof buffer);
    if (got <= 0) broken("the agent's output ended");
    decoder_.feed(std::string_view(buffer, static_cast<std::size_t>(got)));
    bytes_received_ += static_cast<std::uint64_t>(got);
    return true;
}

void PipeAgentStream::send(std::string_view frames, Clock::time_point deadline) {
    while (!frames.empty()) {
        if (Clock::now() > deadline) broken("sending timed out");
        pollfd p[2] = {{in_, POLLOUT, 0}, {out_, POLLIN, 0}};
        if (::poll(p, 2, 100) < 0 && errno != EINTR) broken(std::strerror(errno));
        // Answers are read meanwhile, so a long pipeline never blocks both sides.
        if (p[1].revents & (POLLIN | POLLHUP)) read_some(0);
        if (p[0].revents & (POLLERR | POLLHUP)) broken("the agent's input closed");
        if (!(p[0].revents & POLLOUT)) continue;
        const auto wrote = ::write(in_, frames.data(), frames.size());
        if (wrote < 0) {
            if (errno == EAGAIN || errno == EINTR) continue;
            broken(std::string("write: ") + std::strerror(errno));
        }
        frames.remove_prefix(static_cast<std::size_t>(wrote));
        bytes_sent_ += static_cast<std::uint64_t>(wrote);
    }
}

agent_protocol::Frame PipeAgentStream::receive(Clock::time_point deadline) {
    for (;;) {
        if (auto frame = decoder_.next()) {
            if (frame->type == agent_protocol::MessageType::fatal)
                broken("fatal: " + agent_protocol::decode<agent_protocol::Fatal>(*frame).message);
            return *frame;
        }
        if (Clock::now() > deadline) broken("no answer in time");
        read_some(100);
    }
}

std::string tar_of(const std::vector<std::pair<std::string, std::string>> &files) {
    std::string out;
    std::unique_ptr<archive, decltype(&archive_write_free)> writer(archive_write_new(), &archive_write_free);
    archive_write_set_format_pax_restricted(writer.get());
    archive_write_set_bytes_in_last_block(writer.get(), 1);
    archive_write_open(
        writer.get(), &out, nullptr,
        [](archive *, void *user, const void *data, std::size_t size) -> la_ssize_t {
            static_cast<std::string *>(user)->append(static_cast<const char *>(data), size);
            return static_cast<la_ssize_t>(size);
        },
        nullptr);
    for (const auto &[path, content] : files) {
        std::unique_ptr<archive_entry, decltype(&archive_entry_free)> entry(archive_entry_new(), &archive_entry_free);
        archive_entry_set_pathname(entry.get(), path.c_str());
        archive_entry_set_filetype(entry.get(), AE_IFREG);
        archive_entry_set_perm(entry.get(), 0644);
        archive_entry_set_size(entry.get(), static_cast<la_int64_t>(content.size()));
        archive_write_header(writer.get(), entry.get());
        archive_write_data(writer.get(), content.data(), content.size());
    }
    archive_write_close(writer.get());
    return out;
}

liveupdate::common::ArchiveReadFn reader_of(const std::string &bytes, const std::function<void(std::size_t)> &on_read) {
    auto offset = std::make_shared<std::size_t>(0);
    return [&bytes, offset, on_read](void *buffer, std::size_t capacity) -> std::int64_t {
        if (on_read) on_read(*offset);
        const auto n = std::min(capacity, bytes.size() - *offset);
        std::memcpy(buffer, bytes.data() + *offset, n);
        *offset += n;
        return static_cast<std::int64_t>(n);
    };
}

}  // namespace lu_agent_test
