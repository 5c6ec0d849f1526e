// The docker updater's way to lu-agent: the agent started by one exec whose
// hijacked stream stays open; its stdin takes the frames, its stdout and
// stderr come back multiplexed (docker_engine::FrameDemuxer).
#pragma once

#include <string>

#include "common/agent_client/agent_transport.hpp"
#include "common/docker_engine/engine_client.hpp"
#include "common/docker_engine/exec_session.hpp"
#include "common/docker_engine/frame_demuxer.hpp"
#include "common/wake_fd.hpp"

namespace liveupdate::docker {

class ExecAgentTransport final : public agent_client::AgentTransport {
public:
    // Starts the exec; throws EngineError when the daemon refuses it.
    ExecAgentTransport(docker_engine::EngineClient &client, const docker_engine::ExecSpec &spec);

    Progress write(std::string_view data, Clock::time_point deadline, Sink &sink) override;
    Progress read(Clock::time_point deadline, Sink &sink) override;
    bool idle(Sink &sink) override;
    End end() override;
    int readable_fd() const override { return connection_.fd(); }
    bool interruptible() const override { return true; }
    void interrupt() override { interrupted_.wake(); }

private:
    ExecAgentTransport(docker_engine::EngineClient &client, docker_engine::OpenExec exec);
    // Hands the bytes that came with the exec's start to sink, once.
    bool take_first_bytes(Sink &sink);
    // Reads what is there without blocking; sets ended_ at EOF.
    void drain();
    void fail(std::string why);

    docker_engine::EngineClient &client_;
    std::string exec_id_;
    docker_engine::RawConnection connection_;
    std::string first_bytes_;
    Sink *sink_ = nullptr;  // the caller's, for the call in progress
    docker_engine::FrameDemuxer demuxer_;
    bool ended_ = false;
    std::string failure_;
    common::WakeFd interrupted_;
};

}  // namespace liveupdate::docker
