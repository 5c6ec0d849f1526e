// The forward guard's compare (agent_protocol::ExpectContent): whether what
// is at a write's or delete's path now is what the host said it may replace.
// The caller compares right before its rename or unlink; between the two, a
// change of the app's can still be replaced: that window is the syscalls'
// microseconds, not the host's round trip.
#pragma once

#include <string>

#include "agent/fs_place.hpp"
#include "common/agent_protocol/messages.hpp"

namespace liveupdate::agent {

// "" when the place's leaf (not followed) is what `expected` says; else what
// it holds instead, for the refusal: "holds other content (12 bytes)",
// "holds a symlink", "holds a file where none was agreed", "holds nothing".
std::string unexpected_content(const Place &place, const agent_protocol::ExpectContent &expected);

// The refusal's answer: kNotAsExpected with what the path holds.
agent_protocol::Result not_as_expected(const std::string &found);

}  // namespace liveupdate::agent
