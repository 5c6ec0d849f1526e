// Temporary files an earlier run of sync back left in the developer's folder
// (docs/sync-back.md, "Writing locally"): write_beneath's
// ".lu-sync-back-PID-N.tmp", left when the process died between the write
// and its rename. Removed when a sync back starts, only where they are ours
// beyond doubt: the exact name, a regular file of this user with one link,
// reached beneath localPath without a symlink, and no live writer could own
// it. Nothing else is ever touched.
#pragma once

#include <sys/types.h>

#include <ctime>
#include <optional>
#include <string>
#include <string_view>

#include "common/left_files.hpp"

namespace liveupdate::host::sync_back {

// The process id in a name write_beneath gives its temporary files; none
// when name is not exactly one.
std::optional<pid_t> temporary_owner(std::string_view name);

// What is known of one such file, and of the process looking at it.
struct TemporaryLook {
    pid_t owner = 0;          // from its name
    bool owner_runs = false;  // a process with that id runs now
    struct timespec modified {};
    pid_t own_pid = 0;
    struct timespec own_start {};  // when this process started
    struct timespec now {};
};

// Whether the file was left by a writer that is gone: not this process's own
// (its id, made since it started), and its owner no longer runs, or it has
// not been written for an hour (an id used again by another process).
bool left_behind(const TemporaryLook &look);

using LeftTemporaries = common::LeftFiles;

// Removes the temporaries left behind beneath local_root (nothing when it is missing).
LeftTemporaries remove_left_temporaries(const std::string &local_root);

}  // namespace liveupdate::host::sync_back
