#include "common/agent_client/agent_stream.hpp"

#include "common/agent_protocol/messages.hpp"

namespace liveupdate::agent_client {

std::string handshake(AgentStream &stream, AgentStream::Clock::time_point deadline, std::uint32_t *version) {
    stream.send(agent_protocol::encode(agent_protocol::Hello{}), deadline);
    const auto answer = stream.receive(deadline);
    try {
        const auto reply = agent_protocol::decode<agent_protocol::HelloReply>(answer);
        if (reply.version < agent_protocol::kOldestProtocolVersion || reply.version > agent_protocol::kProtocolVersion)
            throw AgentSessionBroken("the agent speaks protocol version " + std::to_string(reply.version) +
                                     ", not one of " + std::to_string(agent_protocol::kOldestProtocolVersion) + " to " +
                                     std::to_string(agent_protocol::kProtocolVersion));
        if (version != nullptr) *version = reply.version;
        return reply.agent;
    } catch (const agent_protocol::ProtocolError &e) {
        throw AgentSessionBroken(std::string("the agent's handshake: ") + e.what());
    }
}

}  // namespace liveupdate::agent_client
