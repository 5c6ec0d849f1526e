#include "agent/file_writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "agent/content_guard.hpp"
#include "agent/fs_replace.hpp"

namespace liveupdate::agent {
namespace {

// The key of a path's folder: the path up to its last slash.
std::string folder_of(const std::string &path) { return path.substr(0, path.find_last_of('/') + 1); }

// The XXH3-64 of what a write carries, for the guard's look at a file that is not the expected one.
WrittenHash written_hash(const agent_protocol::WriteFile &request) {
    return [&request] { return XXH3_64bits(request.content.data(), request.content.size()); };
}

// What an O_TMPFILE open fails with where the kernel or the filesystem has none.
bool lacks_unnamed_files(int error) { return error == EOPNOTSUPP || error == EISDIR || error == EINVAL; }

// An open file given a name in `dir`. linkat(AT_EMPTY_PATH) is a third
// cheaper than through the file's /proc name, but before Linux 6.10 it needs
// CAP_DAC_READ_SEARCH (containers lack it) even for a file of our own: once
// refused (ENOENT) where the /proc name works, that is used from then on.
int link_in(int file, int dir, const std::string &name, bool &empty_path_works) {
    if (empty_path_works) {
        if (::linkat(file, "", dir, name.c_str(), AT_EMPTY_PATH) == 0) return 0;
        if (errno != ENOENT && errno != EPERM) return errno;
    }
    const std::string open_file = "/proc/self/fd/" + std::to_string(file);
    if (::linkat(AT_FDCWD, open_file.c_str(), dir, name.c_str(), AT_SYMLINK_FOLLOW) != 0) return errno;
    empty_path_works = false;
    return 0;
}

int write_content(int dir, const std::string &temporary, const agent_protocol::WriteFile &request) {
    const int fd = ::openat(dir, temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return errno;
    int error = write_all(fd, request.content);
    if (error == 0) error = set_mode_and_owner(fd, request.mode, request.uid, request.gid);
    if (::close(fd) != 0 && error == 0) error = errno;
    if (error != 0) ::unlinkat(dir, temporary.c_str(), 0);
    return error;
}

}  // namespace

agent_protocol::Result FileWriter::write(const agent_protocol::WriteFile &request,
                                         const agent_protocol::ExpectContent *expected) {
    agent_protocol::Result result = write_once(request, expected);
    // The space of what the reserve holds is given back before a full disk fails a write.
    if (result.error == ENOSPC && reserve_.give_back()) result = write_once(request, expected);
    return result;
}

agent_protocol::Result FileWriter::write_once(const agent_protocol::WriteFile &request,
                                              const agent_protocol::ExpectContent *expected) {
    const std::string &path = request.path;
    const bool reused = folder_ && folder_->root == request.root && folder_->path == folder_of(path);
    if (!reused) {
        folder_.reset();
        auto resolved = open_place(request.root, path, true);
        if (!resolved.place) return failure(resolved, path);
        if (resolved.place->leaf_is_root) return write_through_rename(*resolved.place, request, UniqueFd(), expected);
        folder_ = OpenFolder{request.root, folder_of(path), std::move(*resolved.place)};
        reserve_.note_folder(folder_->place.parent.get());
    }
    Place &place = folder_->place;
    place.leaf = path_names(path).back();
    if (!unnamed_files_) return write_through_rename(place, request, UniqueFd(), expected);
    // A file expected there replaces it: only the rename way compares before
    // it replaces. It takes the spare as any replacement does: a new inode
    // and the write back at its rename are what the spare keeps off a save.
    const bool replaces_expected =
        expected != nullptr && expected->kind == static_cast<std::uint8_t>(agent_protocol::ExpectedKind::digest);
    if (folder_->rewritten || replaces_expected)
        return write_through_rename(place, request, filled_spare(place, request), expected);
    const Unnamed unnamed = write_unnamed(place, request);
    if (unnamed.error == 0) return {};
    if (unnamed.error == EEXIST) {
        folder_->rewritten = true;
        // Nothing was to be there: the link that found a name is the compare (gone again since: compared again).
        if (expected != nullptr)
            if (const std::string found = unexpected_content(place, *expected, written_hash(request)); !found.empty())
                return not_as_expected(found);
        return write_through_rename(place, request, unnamed.file, expected);
    }
    // The kept folder may have been removed meanwhile, by a process of the
    // container (ENOENT, or EPERM for O_TMPFILE): found again from the root.
    if (reused) {
        folder_.reset();
        return write_once(request, expected);
    }
    // Written again the other way, which says what fails, if anything does.
    return write_through_rename(place, request, UniqueFd(), expected);
}

FileWriter::Unnamed FileWriter::write_unnamed(const Place &place, const agent_protocol::WriteFile &request) {
    Unnamed out;
    out.file = filled_spare(place, request);
    if (out.file.get() < 0) {
        out.file = UniqueFd(::openat(place.parent.get(), ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600));
        if (out.file.get() < 0) {
            out.error = errno;
            if (lacks_unnamed_files(out.error)) unnamed_files_ = false;
            return out;
        }
        out.error = write_all(out.file.get(), request.content);
        if (out.error == 0) out.error = set_mode_and_owner(out.file.get(), request.mode, request.uid, request.gid);
        if (out.error != 0) return out;
    }
    out.error = link_in(out.file.get(), place.parent.get(), place.leaf, empty_path_links_);
    if (out.error == ENOENT && ::access("/proc/self/fd", X_OK) != 0) unnamed_files_ = false;
    if (out.error == 0 && ::close(out.file.release()) != 0) out.error = errno;
    return out;
}

UniqueFd FileWriter::filled_spare(const Place &place, const agent_protocol::WriteFile &request) {
    UniqueFd spare = reserve_.take_spare(place.parent.get());
    // A spare that takes no content is dropped: the write makes its file anew and says what fails.
    if (spare.get() >= 0 && (write_all(spare.get(), request.content) != 0 ||
                             set_mode_and_owner(spare.get(), request.mode, request.uid, request.gid) != 0))
        return UniqueFd();
    return spare;
}

agent_protocol::Result FileWriter::write_through_rename(const Place &place, const agent_protocol::WriteFile &request,
                                                        const UniqueFd &written,
                                                        const agent_protocol::ExpectContent *expected) {
    const std::string temporary = temporary_name();
    int error = written.get() >= 0 ? link_in(written.get(), place.parent.get(), temporary, empty_path_links_) : -1;
    if (error != 0) error = write_content(place.parent.get(), temporary, request);
    if (error != 0) return failure(error, "writing a temporary file for", request.path);
    // Compared last, so that only the rename's microseconds are left for a change to be replaced.
    if (expected != nullptr)
        if (const std::string found = unexpected_content(place, *expected, written_hash(request)); !found.empty()) {
            ::unlinkat(place.parent.get(), temporary.c_str(), 0);
            return not_as_expected(found);
        }
    reserve_.hold_replaced(place.parent.get(), place.leaf);
    if (const int replaced = replace_with(place, temporary); replaced != 0)
        return failure(replaced, "writing", request.path);
    return {};
}

}  // namespace liveupdate::agent
