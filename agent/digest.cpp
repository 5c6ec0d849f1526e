#include "agent/digest.hpp"

#include <cerrno>
#include <cstring>
#include <string>

#include "common/tree_digest/tree_digest.hpp"

namespace liveupdate::agent {

agent_protocol::Result digest_tree(const agent_protocol::Digest &request, FrameOutput &out) {
    const tree_digest::WalkResult walked =
        tree_digest::walk_tree(request.path, nullptr, [&out](tree_digest::Entry &&e) {
            return out.send(agent_protocol::encode(agent_protocol::DigestEntry{
                std::move(e.path), static_cast<std::uint8_t>(e.kind), e.mode, e.size, e.hash}));
        });
    // The client tells "nothing there" from a failed walk by ENOENT before any entry.
    if (!walked.found) return {ENOENT, "digesting " + request.path + ": " + std::strerror(ENOENT)};
    return {walked.error_code, walked.error};
}

}  // namespace liveupdate::agent
