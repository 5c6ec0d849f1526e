// Digests of a folder tree: each path's kind, permission bits, size and
// an XXH3-64 of its content (a symlink: of its target), symlinks never followed.
// One walk for both sides of a verify: lu-agent runs it in a container, the
// host and the local updater on this machine. A walk is bounded: it reads no
// pseudo filesystem (procfs, sysfs, ...), hashes only the files it is asked
// to, and stops at its byte and time budget, so a target of `/` or a
// 3 TB sparse file of the app's costs seconds, not hours.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
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
    bool found = true;         // false: nothing at the root (no entry was given)
    bool stopped = false;      // each (or keep_going) asked to stop
    std::string error;         // the first path that could not be read, and why; the walk went on past it
    int error_code = 0;        // that failure's errno
    bool over_budget = false;  // the walk stopped at its budget: error says so (error_code ETIMEDOUT)
};

// Given an absolute folder path, true to leave out what lies beneath it (the folder's own entry is given).
using PruneFn = std::function<bool(const std::string &absolute_dir)>;
// Takes one entry; false stops the walk.
using EachFn = std::function<bool(Entry &&entry)>;

// What a verify reads at most per digest: past either, the digest is
// incomplete. Ten seconds is the longest a due check waits for quiet, so a
// digest never holds an update back for longer than that.
inline constexpr std::uint64_t kDefaultMaxBytes = std::uint64_t{4} << 30;
inline constexpr std::chrono::milliseconds kDefaultMaxTime{10'000};

struct WalkOptions {
    PruneFn prune;
    // Given a regular file's relative path, true to hash its content; empty:
    // every file's. A file not hashed has its kind, mode and size, hash 0.
    std::function<bool(const std::string &relative)> hash_content;
    std::uint64_t max_bytes = kDefaultMaxBytes;            // 0: no limit
    std::chrono::milliseconds max_time = kDefaultMaxTime;  // 0: no limit
    // Asked now and then (about every 100 ms of reading); false stops the
    // walk (lu-agent: its session is gone).
    std::function<bool()> keep_going;
};

// True for a filesystem that holds no files of anyone's (procfs, sysfs,
// cgroup, debugfs, ...), by statfs's f_type: a walk neither reads nor
// descends into one.
bool is_pseudo_filesystem(std::int64_t f_type);

// Why an entry's path, as a digest of a container gives it, is no path
// beneath the digested root, or "" when it is one: "" (the root) or
// "/"-separated names, none empty, "." or "..", without a NUL byte. A
// container is trusted less than the developer's files: a path that climbs
// out of its root must not reach a comparison, a repair or sync back.
std::string entry_path_problem(std::string_view path);

// Walks root: its own entry first, then each folder's entries sorted by name
// before what lies beneath them (the order of lu_digest_entry_fn).
WalkResult walk_tree(const std::string &root, const WalkOptions &options, const EachFn &each);

// The whole tree in memory; throws std::runtime_error with the walk's error.
Digest digest_tree(const std::string &root, const WalkOptions &options, bool &found);

}  // namespace liveupdate::tree_digest
