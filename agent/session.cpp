#include "agent/session.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "agent/digest.hpp"
#include "agent/frame_output.hpp"
#include "agent/fs_ops.hpp"
#include "common/agent_protocol/messages.hpp"
#include "agent/runner.hpp"

namespace liveupdate::agent {
namespace {

std::string describe_self() {
    return "lu-agent " + std::to_string(kProtocolVersion) + " (pid " + std::to_string(::getpid()) + ", uid " +
           std::to_string(::getuid()) + ")";
}

template <class M> const std::string &checked_path(const M &request) {
    if (const auto problem = path_problem(request.path); !problem.empty())
        throw ProtocolError(std::string(type_name(M::type)) + " request: " + problem);
    return request.path;
}

// Answers one request; false when the host is gone.
bool answer(const Frame &frame, FrameOutput &out) {
    switch (frame.type) {
    case MessageType::write_file: {
        const auto request = decode<WriteFile>(frame);
        checked_path(request);
        return out.send(encode(write_file(request)));
    }
    case MessageType::make_dir: {
        const auto request = decode<MakeDir>(frame);
        checked_path(request);
        return out.send(encode(make_dir(request)));
    }
    case MessageType::symlink: {
        const auto request = decode<Symlink>(frame);
        checked_path(request);
        return out.send(encode(make_symlink(request)));
    }
    case MessageType::remove: {
        const auto request = decode<Remove>(frame);
        checked_path(request);
        return out.send(encode(remove_path(request)));
    }
    case MessageType::run: {
        const auto request = decode<Run>(frame);
        if (!request.cwd.empty())
            if (const auto problem = path_problem(request.cwd); !problem.empty())
                throw ProtocolError("run request: working directory: " + problem);
        return out.send(encode(run_command(request, out)));
    }
    case MessageType::digest: {
        const auto request = decode<Digest>(frame);
        checked_path(request);
        return out.send(encode(digest_tree(request, out)));
    }
    default:
        throw ProtocolError(std::string("a ") + type_name(frame.type) + " frame is not a request");
    }
}

}  // namespace

int serve(int in, int out_fd) {
    FrameOutput out(out_fd);
    FrameDecoder decoder;
    bool greeted = false;
    char buffer[256 * 1024];
    try {
        for (;;) {
            const auto got = ::read(in, buffer, sizeof buffer);
            if (got < 0 && errno == EINTR) continue;
            if (got < 0) {
                std::fprintf(stderr, "lu-agent: reading stdin: %s\n", std::strerror(errno));
                return 1;
            }
            if (got == 0) {
                if (!decoder.pending()) return 0;
                throw ProtocolError("stdin ended inside a frame");
            }
            decoder.feed(std::string_view(buffer, static_cast<std::size_t>(got)));
            while (auto frame = decoder.next()) {
                if (!greeted) {
                    const auto hello = decode<Hello>(*frame);
                    if (hello.version != kProtocolVersion)
                        throw ProtocolError("the host speaks protocol version " + std::to_string(hello.version) +
                                            ", this agent " + std::to_string(kProtocolVersion));
                    greeted = true;
                    if (!out.send(encode(HelloReply{kProtocolVersion, describe_self()}))) return 0;
                    continue;
                }
                if (!answer(*frame, out)) return 0;
            }
            // Every complete request read so far is answered: send the answers before waiting for more.
            if (!out.flush()) return 0;
        }
    } catch (const ProtocolError &e) {
        out.send(encode(Fatal{e.what()}));
        out.flush();
        std::fprintf(stderr, "lu-agent: %s\n", e.what());
        return 1;
    }
}

}  // namespace liveupdate::agent
