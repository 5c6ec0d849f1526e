#include "host/cluster/operator_process.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "common/unique_fd.hpp"

namespace liveupdate::host::cluster {

namespace {

// errno (ENOENT: no such file) as well as the text, which ifstream does not promise.
std::optional<std::string> read_small_file(const std::string &path, int &error) {
    const common::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) {
        error = errno;
        return std::nullopt;
    }
    std::string text;
    char buffer[4096];
    while (true) {
        const ssize_t got = ::read(fd.get(), buffer, sizeof buffer);
        if (got == 0) return text;
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            error = errno;
            return std::nullopt;
        }
        text.append(buffer, static_cast<std::size_t>(got));
    }
}

std::string read_boot_id() {
    int error = 0;
    std::string text = read_small_file("/proc/sys/kernel/random/boot_id", error).value_or("");
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
}

std::uint64_t own_pid_namespace() {
    struct stat st {};
    if (stat("/proc/self/ns/pid", &st) != 0) return 0;
    return st.st_ino;
}

}  // namespace

OperatorProcess this_operator_process() {
    OperatorProcess me;
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    me.host = host;
    me.user = "uid-" + std::to_string(getuid());
    if (const passwd *pw = getpwuid(getuid()); pw != nullptr && pw->pw_name != nullptr) me.user = pw->pw_name;
    me.pid = getpid();
    me.boot_id = read_boot_id();
    // Without its own start time no one could tell it from a reused pid: an empty boot id makes it never taken over.
    const PidState self = read_pid_state(me.pid);
    if (self.kind == PidState::Kind::running)
        me.start_ticks = self.start_ticks;
    else
        me.boot_id.clear();
    me.pid_namespace = own_pid_namespace();
    return me;
}

PidState read_pid_state(int pid) {
    int error = 0;
    const std::optional<std::string> stat = read_small_file("/proc/" + std::to_string(pid) + "/stat", error);
    if (!stat) return {error == ENOENT ? PidState::Kind::absent : PidState::Kind::unreadable, 0};
    return parse_proc_stat(*stat);
}

}  // namespace liveupdate::host::cluster
