// lu-agent's BlockSignatures request: the rsync signature of the regular file
// at a path, the base of a delta the host may send next.
#pragma once

#include "common/agent_protocol/messages.hpp"

namespace liveupdate::agent {

agent_protocol::BlockSignaturesReply block_signatures(const agent_protocol::BlockSignatures &request);

}  // namespace liveupdate::agent
