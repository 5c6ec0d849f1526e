// One `docker exec` through the Engine API: create the exec, start it on a
// connection taken over from curl (HTTP upgrade, answered by 101), stream
// stdin while reading the multiplexed output, half-close for EOF, then read
// the exit code.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/docker_engine/engine_client.hpp"
#include "common/docker_engine/frame_demuxer.hpp"

namespace liveupdate::docker_engine {

struct ExecSpec {
    std::string container_id;
    std::vector<std::string> argv;
    std::string user;                // empty: the container's default user
    std::string working_dir{};       // empty: the container's
    std::vector<std::string> env{};  // "KEY=VALUE", added
    bool privileged = false;
};

struct ExecTimeouts {
    std::chrono::milliseconds stall;  // no byte accepted by the daemon for this long while sending stdin
    std::chrono::milliseconds total;  // the whole exec, from start to exit
};

// Where stdin bytes go; write() blocks until all bytes are taken.
class StdinSink {
public:
    virtual ~StdinSink() = default;
    virtual void write(const char *data, std::size_t size) = 0;
};

// Feeds stdin through the sink and returns at its end.
using StdinProducer = std::function<void(StdinSink &)>;
using OutputHandler = std::function<void(OutputStream, std::string_view)>;

struct ExecResult {
    int exit_code = 0;
};

// Throws EngineError when the daemon refuses, breaks the stream or times out;
// a non-zero exit is a result, not an error. Exceptions thrown by the producer
// pass through unchanged.
ExecResult run_exec(EngineClient &client, const ExecSpec &spec, const StdinProducer *stdin_producer,
                    const OutputHandler &on_output, const ExecTimeouts &timeouts);

// A started exec whose hijacked stream stays open for the caller: the raw
// multiplexed stream (see FrameDemuxer), with the bytes that came along with
// the daemon's 101 answer.
struct OpenExec {
    std::string exec_id;
    RawConnection connection;
    std::string first_bytes;
};

// Throws EngineError when the daemon refuses the exec or its start.
OpenExec open_exec(EngineClient &client, const ExecSpec &spec);

// The exit code of an exec whose output ended (the daemon may lag a little).
int exec_exit_code(EngineClient &client, const std::string &exec_id);

}  // namespace liveupdate::docker_engine
