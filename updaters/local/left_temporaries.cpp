#include "updaters/local/left_temporaries.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <random>

#include "updaters/local/container_paths.hpp"

namespace liveupdate::local {
namespace {

std::uint64_t drawn_token() {
    std::random_device random;
    return (static_cast<std::uint64_t>(random()) << 32) | random();
}

// EPERM: it runs, as another user.
bool process_runs(long pid) { return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM; }

}  // namespace

TemporaryWriter this_writer() {
    static const std::uint64_t token = drawn_token();
    return {::getpid(), token};
}

std::string temporary_name() {
    static std::atomic<unsigned long> next{0};
    const TemporaryWriter self = this_writer();
    return agent_protocol::temporary_name(self.pid, next++, self.token);
}

bool left_behind(const agent_protocol::TemporaryName &name, const TemporaryWriter &self, bool owner_runs) {
    if (name.owner == self.pid) return name.token != self.token;
    return !owner_runs;
}

common::LeftFiles remove_left_temporaries(const std::string &root, const std::vector<std::string> &sync_roots) {
    const TemporaryWriter self = this_writer();
    const common::LeftFileRule rule{
        .named = [](std::string_view name) { return agent_protocol::parse_temporary_name(name).has_value(); },
        .left =
            [&self](std::string_view name, const struct stat &) {
                const auto parts = agent_protocol::parse_temporary_name(name);
                return parts && left_behind(*parts, self, parts->owner != self.pid && process_runs(parts->owner));
            }};
    common::LeftFiles out;
    for (const std::string &sync_root : sync_roots) {
        const RelativePath rel = container_path_relative(sync_root);
        if (!rel.refusal.empty()) continue;  // not a container path: nothing of ours beneath it
        common::LeftFiles found = common::remove_left_files(root, rel.path, rule);
        out.removed.insert(out.removed.end(), found.removed.begin(), found.removed.end());
        out.errors.insert(out.errors.end(), found.errors.begin(), found.errors.end());
    }
    return out;
}

std::vector<std::string> SweptFolders::to_sweep(const std::string &root, const std::vector<std::string> &sync_roots,
                                                bool whole_sync) {
    std::vector<std::string> due;
    common::MutexLock lock(mutex_);
    for (const std::string &sync_root : sync_roots)
        if (swept_.emplace(root, sync_root).second || whole_sync) due.push_back(sync_root);
    return due;
}

}  // namespace liveupdate::local
