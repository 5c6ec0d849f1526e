// The exec path's (rm and tar in the container) answer to what lu-agent does
// itself: before `tar -x`, one `sh` per batch of paths makes the container
// ready, so that tar of any flavour (GNU, busybox) gives what the archive says:
// - a folder where a file or a symlink comes, and a file or a symlink where a
//   folder comes, give way (a `git checkout` swaps them);
// - below a sync's container path no symlink is followed: one where the
//   archive needs a folder is removed (tar then makes the folder), and a
//   delete beneath a symlink or a file is already done; the sync's container
//   path itself is followed, as `tar -C` follows its folder.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "updaters/shared/implied_dirs_filter.hpp"

namespace liveupdate::updaters {

enum class PathChange : char { remove = 'x', folder = 'd', other = 'f' };

struct PlannedPath {
    PathChange change;
    std::string path;  // absolute container path
};

// The most paths one `sh` is handed: its arguments stay far below ARG_MAX.
inline constexpr std::size_t kPathsPerPreparation = 2000;

// The command lines (argv: sh -c SCRIPT ...) that prepare the paths, in order,
// each path within the longest of sync_roots that holds it (agent_protocol::root_for).
std::vector<std::vector<std::string>> preparation_commands(const std::vector<PlannedPath> &paths,
                                                           const std::vector<std::string> &sync_roots);

// An update's archive in a temporary file, its implied folder entries left
// out (copy_without_implied_dirs), with the entries it holds.
class SpooledArchive {
public:
    // Throws std::runtime_error when the archive cannot be read or spooled.
    explicit SpooledArchive(const common::ArchiveReadFn &in);
    const std::vector<PlannedPath> &entries() const { return entries_; }
    // A reader from the start of the spooled archive.
    common::ArchiveReadFn reader() const;

private:
    std::shared_ptr<std::FILE> file_;
    std::vector<PlannedPath> entries_;
};

}  // namespace liveupdate::updaters
