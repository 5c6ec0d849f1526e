// What a tree of files looked like at one scan: enough to tell, after an
// inotify overflow, which paths changed since.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace liveupdate::host::up {

struct FileStamp {
    std::uint64_t size = 0;
    std::int64_t mtime_ns = 0;
    std::uint32_t mode = 0;  // file type bits
    bool operator==(const FileStamp &) const = default;
};

using TreeSnapshot = std::map<std::string, FileStamp>;
// Called for a directory before descending: true skips it and everything beneath.
using SkipDir = std::function<bool(const std::string &dir)>;
using SkipPath = std::function<bool(const std::string &path)>;

// Every path under root (root included), without following symlinks.
// Unreadable directories are skipped silently: they may vanish mid-scan.
void scan_tree(const std::string &root, const SkipDir &skip_dir, const SkipPath &skip, TreeSnapshot &out);

// Paths that appeared, vanished, or whose size, mtime or type changed.
std::vector<std::string> diff_snapshots(const TreeSnapshot &before, const TreeSnapshot &after);

// The stamp of one path now (nullopt-like: false when it does not exist).
bool stamp_of(const std::string &path, FileStamp &out);

}  // namespace liveupdate::host::up
