#include "agent/session.hpp"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#include <string>

#include "agent/block_signatures.hpp"
#include "agent/change_watcher.hpp"
#include "agent/digest.hpp"
#include "agent/file_transfer.hpp"
#include "agent/file_writer.hpp"
#include "agent/frame_output.hpp"
#include "agent/fs_ops.hpp"
#include "agent/runner.hpp"
#include "agent/socket_channel.hpp"
#include "agent/supervisor_link.hpp"
#include "common/agent_protocol/messages.hpp"

namespace liveupdate::agent {
namespace {

std::string describe_self() {
    return "lu-agent " + std::to_string(agent_protocol::kProtocolVersion) + " (pid " + std::to_string(::getpid()) +
           ", uid " + std::to_string(::getuid()) + ")";
}

template <class M>
const std::string &checked_path(const M &request) {
    if (const auto problem = agent_protocol::path_problem(request.path); !problem.empty())
        throw agent_protocol::ProtocolError(std::string(agent_protocol::type_name(M::type)) + " request: " + problem);
    return request.path;
}

// A write or delete also names the root it stays within.
template <class M>
void checked_place(const M &request) {
    checked_path(request);
    const std::string what = std::string(agent_protocol::type_name(M::type)) + " request: root: ";
    if (const auto problem = agent_protocol::path_problem(request.root); !problem.empty())
        throw agent_protocol::ProtocolError(what + problem);
    if (!agent_protocol::is_within(request.root, request.path))
        throw agent_protocol::ProtocolError(what + "'" + request.path + "' is not within '" + request.root + "'");
}

// The ExpectContent held for this request, taken (null: none was sent); one
// for another path is the host's mistake, not a guard to drop.
template <class M>
const agent_protocol::ExpectContent *expectation_for(const M &request,
                                                     std::optional<agent_protocol::ExpectContent> &held) {
    if (!held) return nullptr;
    if (held->path != request.path)
        throw agent_protocol::ProtocolError("an expect content request for " + held->path + " followed by a " +
                                            agent_protocol::type_name(M::type) + " request of " + request.path);
    return &*held;
}

// Answers one request (a file's begin and parts get no answer); false when the host is gone.
// host_present: whether the host is still there, for a request that takes long. expected:
// the ExpectContent that came right before (version 8), used by this request and let go.
bool answer(const agent_protocol::Frame &frame, FrameOutput &out, FileTransfer &transfer, FileWriter &files,
            SignatureCache &signatures, const std::function<bool()> &host_present,
            std::optional<agent_protocol::ExpectContent> &expected) {
    const auto taken = [&expected] { expected.reset(); };
    // A request of another kind may change the folders a write keeps open.
    if (frame.type != agent_protocol::MessageType::write_file) files.forget();
    switch (frame.type) {
    case agent_protocol::MessageType::file_begin: {
        const auto request = agent_protocol::decode<agent_protocol::FileBegin>(frame);
        checked_place(request);
        transfer.begin(request, expectation_for(request, expected));
        taken();
        return true;
    }
    case agent_protocol::MessageType::file_part:
        transfer.part(agent_protocol::decode<agent_protocol::FilePart>(frame));
        return true;
    case agent_protocol::MessageType::file_commit:
        return out.send(
            agent_protocol::encode(transfer.commit(agent_protocol::decode<agent_protocol::FileCommit>(frame))));
    case agent_protocol::MessageType::block_signatures: {
        const auto request = agent_protocol::decode<agent_protocol::BlockSignatures>(frame);
        checked_place(request);
        return out.send(agent_protocol::encode(block_signatures(request, signatures)));
    }
    case agent_protocol::MessageType::write_file: {
        const auto request = agent_protocol::decode<agent_protocol::WriteFile>(frame);
        checked_place(request);
        const auto result = files.write(request, expectation_for(request, expected));
        taken();
        return out.send(agent_protocol::encode(result));
    }
    case agent_protocol::MessageType::make_dir: {
        const auto request = agent_protocol::decode<agent_protocol::MakeDir>(frame);
        checked_place(request);
        return out.send(agent_protocol::encode(make_dir(request)));
    }
    case agent_protocol::MessageType::symlink: {
        const auto request = agent_protocol::decode<agent_protocol::Symlink>(frame);
        checked_place(request);
        return out.send(agent_protocol::encode(make_symlink(request)));
    }
    case agent_protocol::MessageType::remove: {
        const auto request = agent_protocol::decode<agent_protocol::Remove>(frame);
        checked_place(request);
        const auto result = remove_path(request, expectation_for(request, expected));
        taken();
        return out.send(agent_protocol::encode(result));
    }
    case agent_protocol::MessageType::run: {
        const auto request = agent_protocol::decode<agent_protocol::Run>(frame);
        if (!request.cwd.empty())
            if (const auto problem = agent_protocol::path_problem(request.cwd); !problem.empty())
                throw agent_protocol::ProtocolError("run request: working directory: " + problem);
        return out.send(agent_protocol::encode(run_command(request, out)));
    }
    case agent_protocol::MessageType::digest: {
        const auto request = agent_protocol::decode<agent_protocol::Digest>(frame);
        checked_path(request);
        return out.send(agent_protocol::encode(digest_tree(request, out, host_present)));
    }
    case agent_protocol::MessageType::restart_process:
        return out.send(agent_protocol::encode(
            restart_supervised(agent_protocol::decode<agent_protocol::RestartProcess>(frame).grace_ms)));
    default:
        throw agent_protocol::ProtocolError(std::string("a ") + agent_protocol::type_name(frame.type) +
                                            " frame is not a request");
    }
}

// The requests an ExpectContent may come before.
bool is_guarded_kind(agent_protocol::MessageType type) {
    return type == agent_protocol::MessageType::write_file || type == agent_protocol::MessageType::file_begin ||
           type == agent_protocol::MessageType::remove;
}

// An ExpectContent request, checked: held for the request after it (unanswered).
agent_protocol::ExpectContent expectation(const agent_protocol::Frame &frame, std::uint32_t version,
                                          const std::optional<agent_protocol::ExpectContent> &held) {
    if (version < agent_protocol::kForwardGuardVersion)
        throw agent_protocol::ProtocolError("an expect content request in protocol version " + std::to_string(version));
    auto request = agent_protocol::decode<agent_protocol::ExpectContent>(frame);
    checked_path(request);
    if (held)
        throw agent_protocol::ProtocolError("an expect content request for " + request.path + " while one for " +
                                            held->path + " waits for its write");
    if (request.kind != static_cast<std::uint8_t>(agent_protocol::ExpectedKind::absent) &&
        request.kind != static_cast<std::uint8_t>(agent_protocol::ExpectedKind::digest))
        throw agent_protocol::ProtocolError("an expect content request for " + request.path + " of unknown kind " +
                                            std::to_string(request.kind));
    return request;
}

// Where requests come from and answers go: stdin and stdout, until the
// session moves to its socket (then stdin only tells the host is gone).
struct Channel {
    int in;
    FrameOutput out;
    agent_protocol::FrameDecoder decoder;
    UniqueFd socket;
};

using Clock = std::chrono::steady_clock;

// What the wait for requests ended with: bytes of requests, a wake-up with
// none (the watcher's events, a change due, the quiet moment), or the end.
enum class Input { more, woken, ended, failed };

// False once the host closed the session: the requests' end (or stdin, which
// ends a session moved to its socket) hung up, or nobody reads the answers.
bool host_present(const Channel &channel, int stdin_fd) {
    pollfd fds[3] = {{channel.in, POLLRDHUP, 0}, {channel.out.fd(), 0, 0}, {stdin_fd, POLLRDHUP, 0}};
    const nfds_t count = channel.socket.get() >= 0 ? 3 : 2;
    if (::poll(fds, count, 0) <= 0) return true;
    for (nfds_t i = 0; i < count; ++i)
        if ((fds[i].revents & (POLLHUP | POLLERR | POLLRDHUP)) != 0) return false;
    return true;
}

// How long the requests pause before the writer does what it left for a
// quiet moment: longer than the gaps of one change's requests, so that it
// never competes with their answers (nor with other containers' agents, which
// answer the same change on the same cores).
constexpr auto kQuiet = std::chrono::milliseconds(20);

// How long the wait for requests may last: until a change is due, or the
// writer's quiet moment comes (-1: until something is read).
int wait_ms(const ChangeWatcher &changes, const FileWriter &files, Clock::time_point quiet_at) {
    int wait = changes.wait_ms();
    if (!files.has_idle_work()) return wait;
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(quiet_at - Clock::now()).count();
    const int quiet = static_cast<int>(std::max<decltype(left)>(left, 0));
    return wait < 0 ? quiet : std::min(wait, quiet);
}

// Whether a request waits to be read: forward updates go before sync back.
bool request_waiting(const Channel &channel, int stdin_fd) {
    pollfd fds[2] = {{channel.in, POLLIN, 0}, {stdin_fd, POLLIN, 0}};
    return ::poll(fds, channel.socket.get() >= 0 ? 2 : 1, 0) > 0;
}

// Takes the container's changes the kernel reported and sends those due, a
// batch at a time while no request waits; false when the host is gone.
bool serve_changes(Channel &channel, int stdin_fd, ChangeWatcher &changes) {
    if (!changes.active()) return true;
    changes.read_events();
    while (changes.has_due() && !request_waiting(channel, stdin_fd))
        if (!changes.send_due(channel.out)) return false;
    return channel.out.flush();
}

// Waits for the next bytes of the channel's requests and feeds them to its
// decoder; `woken` when the watcher has events, or wait_ms passed first.
Input read_more(Channel &channel, int stdin_fd, const ChangeWatcher &changes, int wait_ms, char *buffer,
                std::size_t size) {
    for (;;) {
        if (channel.socket.get() >= 0 || changes.active() || wait_ms >= 0) {
            pollfd fds[3] = {{channel.in, POLLIN, 0}, {changes.fd(), POLLIN, 0}, {stdin_fd, POLLIN, 0}};
            const nfds_t count = channel.socket.get() >= 0 ? 3 : 2;
            const int ready = ::poll(fds, count, wait_ms);
            if (ready < 0) {
                if (errno == EINTR) continue;
                std::fprintf(stderr, "lu-agent: waiting for requests: %s\n", std::strerror(errno));
                return Input::failed;
            }
            if (count == 3 && fds[2].revents != 0) {
                const auto got = ::read(stdin_fd, buffer, size);
                if (got < 0 && errno == EINTR) continue;
                if (got <= 0) return Input::ended;
                throw agent_protocol::ProtocolError("a request on stdin after the session moved to its socket");
            }
            if (fds[0].revents == 0) return Input::woken;
        }
        const auto got = ::read(channel.in, buffer, size);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            std::fprintf(stderr, "lu-agent: reading requests: %s\n", std::strerror(errno));
            return Input::failed;
        }
        if (got == 0) {
            if (!channel.decoder.pending()) return Input::ended;
            throw agent_protocol::ProtocolError("the requests ended inside a frame");
        }
        channel.decoder.feed(std::string_view(buffer, static_cast<std::size_t>(got)));
        return Input::more;
    }
}

// Moves the session to the socket OpenSocket asked for, when the host came there.
void move_to_socket(Channel &channel, const agent_protocol::Frame &frame, int stdin_fd) {
    if (channel.socket.get() >= 0)
        throw agent_protocol::ProtocolError("an open socket request on the session's socket");
    UniqueFd socket = open_socket(agent_protocol::decode<agent_protocol::OpenSocket>(frame), stdin_fd, channel.out);
    if (socket.get() < 0) return;
    if (channel.decoder.pending() || channel.decoder.next())
        throw agent_protocol::ProtocolError("a request on stdin after the session moved to its socket");
    channel.in = socket.get();
    channel.out = FrameOutput(socket.get());
    channel.decoder = agent_protocol::FrameDecoder();
    channel.socket = std::move(socket);
}

}  // namespace

int serve(int in, int out_fd) {
    Channel channel{in, FrameOutput(out_fd), {}, UniqueFd()};
    SignatureCache signatures;
    FileTransfer transfer(signatures);
    FileWriter files;
    std::uint32_t version = 0;                              // the session's, once greeted
    std::optional<agent_protocol::ExpectContent> expected;  // for the next write or delete
    ChangeWatcher changes;
    char buffer[256 * 1024];
    const std::function<bool()> present = [&channel, in] { return host_present(channel, in); };
    // When the writer may do its idle work: kQuiet after the latest answers.
    Clock::time_point quiet_at = Clock::now();
    try {
        for (;;) {
            // One wait for requests, the watcher's events and both timers, so
            // that a change goes out once due, not after the writer's quiet moment.
            if (files.has_idle_work() && Clock::now() >= quiet_at && !request_waiting(channel, in)) {
                files.idle();
                quiet_at = Clock::now() + kQuiet;  // idle work that could not be done is tried again then
            }
            if (!serve_changes(channel, in, changes)) return 0;
            switch (read_more(channel, in, changes, wait_ms(changes, files, quiet_at), buffer, sizeof buffer)) {
            case Input::more: break;
            case Input::woken: continue;
            case Input::ended: return 0;
            case Input::failed: return 1;
            }
            while (auto frame = channel.decoder.next()) {
                if (version == 0) {
                    const auto hello = agent_protocol::decode<agent_protocol::Hello>(*frame);
                    if (hello.version < agent_protocol::kOldestProtocolVersion ||
                        hello.version > agent_protocol::kProtocolVersion)
                        throw agent_protocol::ProtocolError("the host speaks protocol version " +
                                                            std::to_string(hello.version) + ", this agent " +
                                                            std::to_string(agent_protocol::kOldestProtocolVersion) +
                                                            " to " + std::to_string(agent_protocol::kProtocolVersion));
                    // An older host is answered in its own version, and never asks what came after it.
                    version = hello.version;
                    if (!channel.out.send(agent_protocol::encode(agent_protocol::HelloReply{version, describe_self()})))
                        return 0;
                    continue;
                }
                if (frame->type == agent_protocol::MessageType::expect_content) {
                    expected = expectation(*frame, version, expected);
                    continue;
                }
                if (expected && !is_guarded_kind(frame->type))
                    throw agent_protocol::ProtocolError("an expect content request for " + expected->path +
                                                        " followed by a " + agent_protocol::type_name(frame->type) +
                                                        " request");
                if (frame->type == agent_protocol::MessageType::watch_changes) {
                    if (version < agent_protocol::kSyncBackVersion)
                        throw agent_protocol::ProtocolError("a watch changes request in protocol version " +
                                                            std::to_string(version));
                    files.forget();
                    if (!channel.out.send(agent_protocol::encode(
                            changes.watch(agent_protocol::decode<agent_protocol::WatchChanges>(*frame)))))
                        return 0;
                    continue;
                }
                if (frame->type == agent_protocol::MessageType::open_socket) {
                    move_to_socket(channel, *frame, in);
                    continue;
                }
                if (!answer(*frame, channel.out, transfer, files, signatures, present, expected)) return 0;
            }
            // Every complete request read so far is answered: send the answers before waiting for more.
            if (!channel.out.flush()) return 0;
            quiet_at = Clock::now() + kQuiet;
        }
    } catch (const agent_protocol::ProtocolError &e) {
        channel.out.send(agent_protocol::encode(agent_protocol::Fatal{e.what()}));
        channel.out.flush();
        std::fprintf(stderr, "lu-agent: %s\n", e.what());
        return 1;
    }
}

}  // namespace liveupdate::agent
