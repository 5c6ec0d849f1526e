// Tests' lu-agent sessions over pipes: the agent (or `docker exec -i` of it)
// started as a child process, spoken to through common/agent_client as the
// updaters do, counting the bytes sent; and tar archives made in memory.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "common/agent_client/agent_apply.hpp"
#include "common/agent_client/agent_stream.hpp"

namespace lu_agent_test {

class PipeAgentStream : public liveupdate::agent_client::AgentStream {
public:
    explicit PipeAgentStream(const std::vector<std::string> &argv);
    ~PipeAgentStream() override;
    PipeAgentStream(const PipeAgentStream &) = delete;
    PipeAgentStream &operator=(const PipeAgentStream &) = delete;

    void send(std::string_view frames, Clock::time_point deadline) override;
    liveupdate::agent_protocol::Frame receive(Clock::time_point deadline) override;

    std::uint64_t bytes_sent() const { return bytes_sent_; }
    std::uint64_t bytes_received() const { return bytes_received_; }
    void kill_now();

private:
    bool read_some(int timeout_ms);
    [[noreturn]] void broken(const std::string &why);
    pid_t pid_ = -1;
    int in_ = -1;
    int out_ = -1;
    std::uint64_t bytes_sent_ = 0;
    std::uint64_t bytes_received_ = 0;
    liveupdate::agent_protocol::FrameDecoder decoder_;
};

// A tar archive of regular files (path relative to "/", content), mode 0644.
std::string tar_of(const std::vector<std::pair<std::string, std::string>> &files);

// Reads `bytes` in order; each call passes the count read so far to on_read first.
liveupdate::common::ArchiveReadFn reader_of(const std::string &bytes,
                                            const std::function<void(std::size_t)> &on_read = {});

}  // namespace lu_agent_test
