// The forward guard's compare (agent_protocol::ExpectContent): whether what
// is at a write's or delete's path now is what the host said it may replace.
// The caller compares right before its rename or unlink; between the two, a
// change of the app's can still be replaced: that window is the syscalls'
// microseconds, not the host's round trip.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "agent/fs_place.hpp"
#include "common/agent_protocol/messages.hpp"

namespace liveupdate::agent {

// The XXH3-64 of the content a request writes, asked only when the path
// holds another regular file than expected.
using WrittenHash = std::function<std::uint64_t()>;

// "" when the place's leaf (not followed) is what `expected` says, or a
// regular file with the content being written (`written`; null for a
// delete): a request sent again after a broken session finds its own
// write. Else what it holds instead, for the refusal: "holds other content
// (12 bytes)", "holds a symlink", "holds a file where none was agreed",
// "holds nothing (deleted)".
std::string unexpected_content(const Place &place, const agent_protocol::ExpectContent &expected,
                               const WrittenHash &written = {});

// The XXH3-64 of the content of the regular file `name` in `dir` (0 when it cannot be read).
std::uint64_t content_hash_at(int dir, const std::string &name);

// The refusal's answer: kNotAsExpected with what the path holds.
agent_protocol::Result not_as_expected(const std::string &found);

}  // namespace liveupdate::agent
