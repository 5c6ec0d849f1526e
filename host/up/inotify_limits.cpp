#include "host/up/inotify_limits.hpp"

#include <sys/resource.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace liveupdate::host::up {

std::string describe_inotify_limit(const std::string &name, std::optional<long> value) {
    return "fs.inotify." + name + (value ? " = " + std::to_string(*value) : std::string(" (unreadable)"));
}

std::string inotify_init_failure(int err, std::optional<long> max_user_instances, long open_files,
                                 long open_file_limit) {
    std::string what = std::string("cannot watch files: inotify_init1: ") + std::strerror(err);
    if (err != EMFILE) return what;
    // inotify_init1 says EMFILE for both; a process short of one fd is out of open files.
    if (open_file_limit > 0 && open_files + 1 >= open_file_limit)
        return what + ": this process has used up its open files (ulimit -n = " + std::to_string(open_file_limit) +
               "): raise that limit";
    return what + ": this user's inotify instances are used up (" +
           describe_inotify_limit("max_user_instances", max_user_instances) +
           ", shared by every program the user runs): raise it with sysctl, or stop programs that hold some";
}

std::optional<long> read_inotify_limit(const std::string &name) {
    std::ifstream in("/proc/sys/fs/inotify/" + name);
    long value = 0;
    if (!(in >> value)) return std::nullopt;
    return value;
}

std::string inotify_init_failure_here(int err) {
    long open_files = 0;
    std::error_code ec;
    for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end; it.increment(ec))
        ++open_files;
    rlimit limit{};
    const long open_file_limit = ::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY
                                     ? static_cast<long>(limit.rlim_cur)
                                     : 0;
    return inotify_init_failure(err, read_inotify_limit("max_user_instances"), open_files, open_file_limit);
}

}  // namespace liveupdate::host::up
