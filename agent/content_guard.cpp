#include "agent/content_guard.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/file_hash/file_hash.hpp"
#include "common/unique_fd.hpp"

namespace liveupdate::agent {
namespace {

std::string kind_held(mode_t mode) {
    if (S_ISDIR(mode)) return "holds a folder";
    if (S_ISLNK(mode)) return "holds a symlink";
    if (S_ISREG(mode)) return "holds a file";
    return "holds a special file (FIFO, socket or device)";
}

// The XXH3-64 of an open file's content; false with errno when it cannot be read.
bool hash_content(int fd, std::uint64_t &hash) {
    // On the stack: a zeroed 256 KiB vector cost each guarded save of a small file more than its read.
    char buffer[64 * 1024];
    const file_hash::FdHash content = file_hash::hash_fd(fd, buffer);
    if (content.error != 0) {
        errno = content.error;
        return false;
    }
    hash = content.hash;
    return true;
}

}  // namespace

std::string unexpected_content(const Place &place, const agent_protocol::ExpectContent &expected,
                               const WrittenHash &written) {
    const int dir = place.parent.get();
    const char *leaf = place.leaf.c_str();
    struct stat st {};
    if (::fstatat(dir, leaf, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno != ENOENT) return std::string("cannot be looked at (") + std::strerror(errno) + ")";
        return expected.kind == static_cast<std::uint8_t>(agent_protocol::ExpectedKind::absent)
                   ? ""
                   : "holds nothing (deleted)";
    }
    const bool absent = expected.kind != static_cast<std::uint8_t>(agent_protocol::ExpectedKind::digest);
    if (!S_ISREG(st.st_mode)) return kind_held(st.st_mode) + (absent ? " where none was agreed" : "");
    if (absent && !written) return "holds a file where none was agreed";
    // Never blocks on what is not a regular file: one that became a FIFO since the look fails the open.
    common::UniqueFd file(::openat(dir, leaf, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    struct stat opened {};
    if (file.get() < 0 || ::fstat(file.get(), &opened) != 0)
        return std::string("cannot be read (") + std::strerror(errno) + ")";
    if (!S_ISREG(opened.st_mode)) return kind_held(opened.st_mode);
    std::uint64_t hash = 0;
    if (!hash_content(file.get(), hash)) return std::string("cannot be read (") + std::strerror(errno) + ")";
    if (!absent && hash == expected.hash) return {};
    if (written && hash == written()) return {};
    if (absent) return "holds a file where none was agreed";
    return "holds other content (" + std::to_string(opened.st_size) + " bytes)";
}

std::uint64_t content_hash_at(int dir, const std::string &name) {
    common::UniqueFd file(::openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    std::uint64_t hash = 0;
    if (file.get() < 0 || !hash_content(file.get(), hash)) return 0;
    return hash;
}

agent_protocol::Result not_as_expected(const std::string &found) { return {agent_protocol::kNotAsExpected, found}; }

}  // namespace liveupdate::agent
