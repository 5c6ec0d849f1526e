#include "host/sync_back/left_temporaries.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>

namespace liveupdate::host::sync_back {
namespace {

struct timespec realtime_now() {
    struct timespec now {};
    ::clock_gettime(CLOCK_REALTIME, &now);
    return now;
}

// Taken as the program loads, before any sync back writes.
const struct timespec process_start = realtime_now();

constexpr time_t kAbandonedAfterSeconds = 3600;
// A file's times come from a coarse clock, a little behind CLOCK_REALTIME.
constexpr time_t kClockSlackSeconds = 1;

bool before(const struct timespec &a, const struct timespec &b) {
    return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}

bool digits(std::string_view text, unsigned long long &value) {
    if (text.empty() || text.size() > 10) return false;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    return error == std::errc() && end == text.data() + text.size();
}

bool process_runs(pid_t pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

}  // namespace

std::optional<pid_t> temporary_owner(std::string_view name) {
    constexpr std::string_view prefix = ".lu-sync-back-", suffix = ".tmp";
    if (!name.starts_with(prefix) || !name.ends_with(suffix)) return std::nullopt;
    name.remove_prefix(prefix.size());
    name.remove_suffix(suffix.size());
    const std::size_t dash = name.find('-');
    unsigned long long pid = 0, count = 0;
    if (dash == std::string_view::npos || !digits(name.substr(0, dash), pid) || !digits(name.substr(dash + 1), count))
        return std::nullopt;
    if (pid == 0 || pid > 0x7fffffff) return std::nullopt;
    return static_cast<pid_t>(pid);
}

bool left_behind(const TemporaryLook &look) {
    struct timespec start = look.own_start;
    start.tv_sec -= kClockSlackSeconds;
    if (look.owner == look.own_pid) return before(look.modified, start);  // else maybe one of ours being written
    if (!look.owner_runs) return true;
    struct timespec abandoned = look.now;
    abandoned.tv_sec -= kAbandonedAfterSeconds;
    return before(look.modified, abandoned);
}

LeftTemporaries remove_left_temporaries(const std::string &local_root) {
    const common::LeftFileRule rule{.named = [](std::string_view name) { return temporary_owner(name).has_value(); },
                                    .left =
                                        [](std::string_view name, const struct stat &st) {
                                            const pid_t owner = *temporary_owner(name);
                                            return left_behind({.owner = owner,
                                                                .owner_runs = process_runs(owner),
                                                                .modified = st.st_mtim,
                                                                .own_pid = ::getpid(),
                                                                .own_start = process_start,
                                                                .now = realtime_now()});
                                        }};
    return common::remove_left_files(local_root, "", rule);
}

}  // namespace liveupdate::host::sync_back
