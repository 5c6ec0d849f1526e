#include "common/bounded_child.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <new>
#include <system_error>

#include "common/subprocess/default_signals.hpp"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define LU_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define LU_SANITIZED 1
#endif
#endif

namespace liveupdate::common {
namespace {

constexpr int kFinished = 0;
constexpr int kOutOfMemory = 3;
constexpr auto kAbandonCheck = std::chrono::milliseconds(50);

// This process's data segment and private mappings, as RLIMIT_DATA counts them.
std::size_t data_bytes_now() {
    std::ifstream statm("/proc/self/statm");
    std::size_t size = 0, resident = 0, shared = 0, text = 0, lib = 0, data = 0;
    statm >> size >> resident >> shared >> text >> lib >> data;
    return data * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

[[noreturn]] void run_child(const std::function<void()> &work, rlim_t data_limit, pid_t parent) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(kFinished);  // the parent is already gone: nobody waits
    // A crash ends the child by its signal, not in a handler of the parent's
    // (a test framework's, a sanitizer's) that would report it as the parent's.
    subprocess::restore_default_signals();
    if (data_limit != RLIM_INFINITY) {
        const rlimit limit{data_limit, data_limit};
        ::setrlimit(RLIMIT_DATA, &limit);
    }
    int code = kFinished;
    try {
        work();
    } catch (const std::bad_alloc &) {
        code = kOutOfMemory;
    } catch (...) {  // the parent, redoing the work, meets the same exception
    }
    ::_exit(code);  // no atexit handlers, no flushing of the parent's buffers
}

// Waits for the child's end on its pidfd; false once it must be killed.
bool wait_for_end(int pidfd, std::chrono::steady_clock::time_point deadline, bool (*abandon)() noexcept,
                  ChildEnd &why) {
    for (;;) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            why = ChildEnd::timed_out;
            return false;
        }
        pollfd fd{pidfd, POLLIN, 0};
        const int ready = ::poll(&fd, 1, static_cast<int>(std::min(left, kAbandonCheck).count()) + 1);
        if (ready < 0 && errno != EINTR) throw std::system_error(errno, std::generic_category(), "poll on a pidfd");
        if (ready > 0) return true;
        if (abandon != nullptr && abandon()) {
            why = ChildEnd::abandoned;
            return false;
        }
    }
}

}  // namespace

bool child_memory_limit_applies() noexcept {
#ifdef LU_SANITIZED
    return false;
#else
    return true;
#endif
}

ChildOutcome run_in_bounded_child(const std::function<void()> &work, const ChildLimits &limits,
                                  bool (*abandon)() noexcept) {
    const rlim_t data_limit =
        child_memory_limit_applies() ? static_cast<rlim_t>(data_bytes_now() + limits.memory_bytes) : RLIM_INFINITY;
    const auto deadline = std::chrono::steady_clock::now() + limits.deadline;
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) throw std::system_error(errno, std::generic_category(), "fork for a bounded child");
    if (pid == 0) run_child(work, data_limit, parent);
    // The syscall: glibc 2.36's <sys/pidfd.h> lacks extern "C".
    const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    if (pidfd < 0) {
        const int error = errno;
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
        throw std::system_error(error, std::generic_category(), "pidfd_open of a bounded child");
    }
    ChildOutcome outcome;
    bool ended = false;
    try {
        ended = wait_for_end(pidfd, deadline, abandon, outcome.end);
    } catch (...) {
        ::close(pidfd);
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
        throw;
    }
    ::close(pidfd);
    if (!ended) ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!ended) return outcome;
    if (WIFSIGNALED(status)) return {ChildEnd::crashed, WTERMSIG(status)};
    if (WIFEXITED(status) && WEXITSTATUS(status) == kOutOfMemory) return {ChildEnd::out_of_memory, 0};
    return {ChildEnd::finished, 0};
}

}  // namespace liveupdate::common
