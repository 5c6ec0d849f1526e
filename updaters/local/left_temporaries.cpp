#include "updaters/local/left_temporaries.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <fstream>
#include <random>
#include <string_view>

#include "updaters/local/container_paths.hpp"

namespace liveupdate::local {
namespace {

std::uint32_t drawn_nonce() {
    std::random_device random;
    return static_cast<std::uint32_t>(random());
}

// EPERM: it runs, as another user.
bool process_runs(long pid) { return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM; }

std::string first_line(const char *path) {
    std::string line;
    std::getline(std::ifstream(path), line);
    return line;
}

// This host's key: what a container does not see of it (the host's machine-id,
// unless mounted in), what changes at each boot, and the user.
const std::string &host_key() {
    static const std::string key = first_line("/etc/machine-id") + "/" + first_line("/proc/sys/kernel/random/boot_id") +
                                   "/" + std::to_string(::getuid());
    return key;
}

// FNV-1a, 64 bits: the same on every build, so an lu-host of another build knows its predecessor's.
std::uint64_t fnv1a(std::string_view bytes) {
    std::uint64_t hash = 14695981039346656037ull;
    for (const char c : bytes) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 1099511628211ull;
    }
    return hash;
}

}  // namespace

std::uint64_t sealed_token(const TemporaryWriter &writer) {
    const std::uint64_t seal =
        fnv1a(host_key() + "/" + std::to_string(writer.pid) + "/" + std::to_string(writer.nonce));
    return (static_cast<std::uint64_t>(writer.nonce) << 32) | (seal & 0xffffffffu);
}

TemporaryWriter this_writer() {
    static const std::uint32_t nonce = drawn_nonce();
    return {::getpid(), nonce};
}

std::string temporary_name(const TemporaryWriter &writer, unsigned long n) {
    return agent_protocol::temporary_name(writer.pid, n, sealed_token(writer));
}

std::string temporary_name() {
    static std::atomic<unsigned long> next{0};
    return temporary_name(this_writer(), next++);
}

bool left_behind(const agent_protocol::TemporaryName &name, const TemporaryWriter &self, bool owner_runs) {
    const TemporaryWriter writer{name.owner, static_cast<std::uint32_t>(name.token >> 32)};
    if (sealed_token(writer) != name.token) return false;  // not written by a writer of ours on this host
    if (name.owner == self.pid) return writer.nonce != self.nonce;
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
