// Putting a new entry in place of a path, as every write of lu-agent over a
// path that is taken does: a temporary entry beside it, then a rename, so a
// reader sees the old entry or the new one, never a part. Temporary entries are named as
// common/agent_protocol/temporary_names.hpp says; those of an agent that died
// (killed mid-file) are found by that name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "agent/fs_place.hpp"
#include "common/agent_protocol/messages.hpp"

namespace liveupdate::agent {

// A failed request's answer: what failed on which path, and why.
agent_protocol::Result failure(int error, const std::string &what, const std::string &path);
agent_protocol::Result failure(const PlaceResult &resolved, const std::string &path);

// A name in the same folder for a replacement, unique within this agent.
std::string temporary_name();

// Deletes the regular files in `dir` named as temporary entries of an agent
// no longer running (or of this one: none of its own is open when this runs).
void remove_stale_temporaries(int dir);

int write_all(int fd, std::string_view content);

// The request's mode and owner on an open file (mode again after the owner,
// which may clear set-id bits); 0 or errno.
int set_mode_and_owner(int fd, std::uint32_t mode, std::int64_t uid, std::int64_t gid);

int set_owner(int fd, std::int64_t uid, std::int64_t gid);

// Puts the temporary entry in place of the leaf, whatever the leaf was (a
// folder gives way); the temporary entry is removed on failure. 0 or errno.
int replace_with(const Place &place, const std::string &temporary);

// replace_with for a large file: over a regular file the two are exchanged
// and the old one removed, since ext4 writes back a file renamed over another
// at once (auto_da_alloc: about 130 ms for 200 MiB) but not an exchanged one.
// Readers see the old file or the new one all the same.
int replace_large_with(const Place &place, const std::string &temporary);

}  // namespace liveupdate::agent
