#include "agent/digest.hpp"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <unordered_set>

#include "common/tree_digest/tree_digest.hpp"

namespace liveupdate::agent {

agent_protocol::Result digest_tree(const agent_protocol::Digest &request, FrameOutput &out,
                                   const std::function<bool()> &host_present) {
    const std::unordered_set<std::string> wanted(request.hash_paths.begin(), request.hash_paths.end());
    tree_digest::WalkOptions options;
    if (request.hash_all == 0)
        options.hash_content = [&wanted](const std::string &relative) { return wanted.count(relative) != 0; };
    options.max_bytes = request.max_bytes;
    options.max_time = std::chrono::milliseconds(request.max_ms);
    options.keep_going = host_present;
    const tree_digest::WalkResult walked =
        tree_digest::walk_tree(request.path, options, [&out](tree_digest::Entry &&e) {
            return out.send(agent_protocol::encode(agent_protocol::DigestEntry{
                std::move(e.path), static_cast<std::uint8_t>(e.kind), e.mode, e.size, e.hash}));
        });
    // The client tells "nothing there" from a failed walk by ENOENT before any entry.
    if (!walked.found) return {ENOENT, "digesting " + request.path + ": " + std::strerror(ENOENT)};
    if (walked.stopped && walked.error.empty())
        return {ECANCELED, "digesting " + request.path + ": stopped, the host is gone"};
    return {walked.error_code, walked.error};
}

}  // namespace liveupdate::agent
