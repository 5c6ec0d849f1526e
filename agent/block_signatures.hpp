// lu-agent's BlockSignatures request: the rsync signature of the regular file
// at a path, the base of a delta the host may send next.
#pragma once

#include "agent/signature_cache.hpp"
#include "common/agent_protocol/messages.hpp"

namespace liveupdate::agent {

// Answered from `cache` while the file is unchanged since; what is read is remembered there.
agent_protocol::BlockSignaturesReply block_signatures(const agent_protocol::BlockSignatures &request,
                                                      SignatureCache &cache);

}  // namespace liveupdate::agent
