// A large regular file of the update's archive through lu-agent, streamed in
// parts (never whole in memory): by delta (rsync) when the container holds a
// regular file at its path and the file is large enough to be worth the
// signature round trip, else as data.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/agent_client/request_pipeline.hpp"

struct archive;

namespace liveupdate::agent_client {

// Files above this go in parts; the rest in one WriteFile frame.
inline constexpr std::uint64_t kWholeFrameLimit = std::uint64_t{1} << 20;
// Files of at least this size go by delta when the container has a version.
inline constexpr std::uint64_t kDeltaThreshold = agent_protocol::kDeltaMinSize;

struct LargeFile {
    std::string path;
    std::string root;
    std::uint32_t mode = 0644;
    std::uint64_t size = 0;  // as the archive's header says (0: unknown, no delta)
    // What the commit may replace (sent right before its FileBegin); none: anything.
    std::optional<agent_protocol::ExpectContent> expected;
};

// Sends the archive's current entry (its data read from `reader`); its answer
// is owed on the pipeline like any write's (a guarded one's under its path). Throws std::runtime_error when the
// archive cannot be read (the agent drops what it built), AgentSessionBroken.
void send_large_file(RequestPipeline &pipeline, archive *reader, const LargeFile &file);

}  // namespace liveupdate::agent_client
