// Digests of a folder tree: each path's kind, permission bits, size and
// an XXH3-64 of its content (a symlink: of its target), symlinks never followed.
// One walk for both sides of a verify: lu-agent runs it in a container, the
// host and the local updater on this machine.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace liveupdate::tree_digest {

// The values of lu_digest_kind and of the agent's EntryType.
enum class EntryKind : std::uint8_t { file = 1, dir = 2, symlink = 3, other = 4 };

struct Entry {
    std::string path;  // relative to the digested root, "/"-separated; "" for the root itself
    EntryKind kind = EntryKind::other;
    std::uint32_t mode = 0;  // 07777 bits
    std::uint64_t size = 0;  // a file's length, a symlink's target length; else 0
    std::uint64_t hash = 0;  // XXH3-64 of a file's content or a symlink's target; else 0
    bool operator==(const Entry &) const = default;
};

using Digest = std::vector<Entry>;

struct WalkResult {
    bool found = true;     // false: nothing at the root (no entry was given)
    bool stopped = false;  // each asked to stop
    std::string error;     // the first path that could not be read, and why; the walk went on past it
    int error_code = 0;    // that failure's errno
};

// Given an absolute folder path, true to leave out what lies beneath it (the folder's own entry is given).
using PruneFn = std::function<bool(const std::string &absolute_dir)>;
// Takes one entry; false stops the walk.
using EachFn = std::function<bool(Entry &&entry)>;

// Walks root: its own entry first, then each folder's entries sorted by name
// before what lies beneath them (the order of lu_digest_entry_fn).
WalkResult walk_tree(const std::string &root, const PruneFn &prune, const EachFn &each);

// The whole tree in memory; throws std::runtime_error with the walk's error.
Digest digest_tree(const std::string &root, const PruneFn &prune, bool &found);

}  // namespace liveupdate::tree_digest
