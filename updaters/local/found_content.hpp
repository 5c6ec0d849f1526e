// What a forward write or delete finds at a container path before it replaces
// it (docs/sync-back.md, "Forward writes over a container change"): read
// beneath a local container's root without following any symlink, and
// judged against what the update's forward guard expects there.
#pragma once

#include <cstdint>
#include <string>

#include "common/unique_fd.hpp"
#include "liveupdate/updater.hpp"

namespace liveupdate::local {

struct FoundContent {
    enum class Kind { absent, file, other };
    Kind kind = Kind::absent;
    std::uint64_t digest = 0;  // Kind::file: XXH3-64 of its content
    std::string what;          // Kind::other: what is there ("a folder", "a symlink on the way", why unreadable)
};

// relative: a checked path beneath root (container_path_relative); root canonical.
FoundContent found_beneath(const std::string &root, const std::string &relative);

// "" when found is what expected allows, else what was found, for kept().
std::string unexpected_content(const updater::ExpectedContent &expected, const FoundContent &found);

// The folder holding relative's last segment, opened (O_PATH) beneath root
// without following a symlink; on failure fd < 0 and error says why.
common::UniqueFd parent_beneath(const std::string &root, const std::string &relative, std::string &error);

}  // namespace liveupdate::local
