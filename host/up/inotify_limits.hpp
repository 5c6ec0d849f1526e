// Messages for the kernel's inotify limits, naming the sysctl to raise and
// its value now (read from /proc/sys/fs/inotify/), since "Too many open
// files" or "No space left on device" alone points nowhere.
#pragma once

#include <optional>
#include <string>

namespace liveupdate::host::up {

// "fs.inotify.<name> = <value>" (or "... (unreadable)").
std::string describe_inotify_limit(const std::string &name, std::optional<long> value);

// Why inotify_init1 failed with err (EMFILE: the user's instances, or this
// process's open files when those are what ran out).
std::string inotify_init_failure(int err, std::optional<long> max_user_instances, long open_files,
                                 long open_file_limit);

// The value of /proc/sys/fs/inotify/<name>; nullopt when it cannot be read.
std::optional<long> read_inotify_limit(const std::string &name);

// inotify_init_failure with the values of this process and machine.
std::string inotify_init_failure_here(int err);

}  // namespace liveupdate::host::up
