#include "common/agent_client/agent_stream.hpp"

#include "common/agent_protocol/messages.hpp"

namespace liveupdate::agent::client {

std::string handshake(AgentStream &stream, AgentStream::Clock::time_point deadline) {
    stream.send(encode(Hello{}), deadline);
    const auto answer = stream.receive(deadline);
    try {
        const auto reply = decode<HelloReply>(answer);
        if (reply.version != kProtocolVersion)
            throw AgentSessionBroken("the agent speaks protocol version " + std::to_string(reply.version) + ", not " +
                                     std::to_string(kProtocolVersion));
        return reply.agent;
    } catch (const ProtocolError &e) {
        throw AgentSessionBroken(std::string("the agent's handshake: ") + e.what());
    }
}

}  // namespace liveupdate::agent::client
