// Files beneath a folder, reached without ever following a symlink or
// leaving the folder (openat2 with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS):
// the I/O edge of sync back (docs/sync-back.md), for both the container's
// folder (untrusted: names, symlinks, FIFOs) and the developer's localPath.
// Every failure is returned as text naming the path and why, never thrown.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/sync_back/sync_back_rules.hpp"
#include "common/unique_fd.hpp"
#include "host/sync_back/written_file_systems.hpp"

namespace liveupdate::host::sync_back {

// Which local file a change was judged against: the target write_beneath
// may replace. A save in place changes its ctime, a save by rename its inode.
struct FileStamp {
    bool present = false;  // false: nothing was there
    dev_t device = 0;
    ino_t inode = 0;
    off_t size = 0;
    struct timespec mtime {};
    struct timespec ctime {};
    bool operator==(const FileStamp &other) const;
};

// One path's state beneath a root, and the file opened when it is one.
struct BeneathFile {
    liveupdate::sync_back::PathState state;  // digest: of the content
    common::UniqueFd fd;                     // state is a file: open for reading (unless in memory)
    // state is a file held in memory (what lu-agent sent), read instead of fd: valid while its change is judged.
    std::optional<std::string_view> bytes;
    // The folder holding it, reached beneath root without a symlink (O_PATH;
    // -1 when one on the way is missing): a write of the name judged goes there.
    common::UniqueFd parent;
    mode_t mode = 0;  // its permission bits
    std::uint64_t size = 0;
    FileStamp stamp;      // state is a file: the one read; absent: none
    bool folder = false;  // state is other: a folder reached without a symlink
    std::string error;    // non-empty: it could not be read (then state says nothing)
};

// The content digest sync back agrees on: XXH3-64 of the bytes, as verify's.
std::string content_digest(int fd, std::string &error);

// name: relative, already checked (sync_back::name_refusal). A symlink or a
// non-folder on the way, or anything but a regular file at the end, is
// PathState::other; nothing there is absent. A file larger than max_bytes
// is not read: its digest stays empty and error says so.
BeneathFile open_beneath(const std::string &root, const std::string &name, std::uint64_t max_bytes);

// Whether root/name is a folder reached without a symlink, and holds anything.
liveupdate::sync_back::ContainerRoot folder_beneath(const std::string &root, const std::string &name);

// Writes source's bytes (from offset 0) to root/name: into a temporary file
// beside it, with mode's permission bits, renamed into place; missing folders
// are made (0755). Refused when a symlink or a non-folder is on the way or
// the target is not a regular file, and abandoned when the bytes copied do
// not have expected_digest (the source changed meanwhile) or the target is
// no longer `replaces` (a developer's save, or a symlink, came meanwhile:
// local_changed). error "" on success; no_room: the local disk or quota
// was full (worth trying again once there is room). Not flushed: a
// written (when given) is told the folder renamed into, for one flush of a
// batch's writes. folder (when >= 0): the folder holding name, opened
// beneath root by the look that judged it (BeneathFile::parent), so the way
// is not looked up again.
struct WriteResult {
    std::string error;
    bool local_changed = false;
    bool no_room = false;
};
WriteResult write_beneath(const std::string &root, const std::string &name, int source, mode_t mode,
                          const std::string &expected_digest, const FileStamp &replaces,
                          WrittenFileSystems *written = nullptr, int folder = -1);
// The same, of bytes in memory: their digest checked alike, no file made to hold them.
WriteResult write_beneath(const std::string &root, const std::string &name, std::string_view source, mode_t mode,
                          const std::string &expected_digest, const FileStamp &replaces,
                          WrittenFileSystems *written = nullptr, int folder = -1);

// Deletes root/name when it is still a regular file with expected_digest;
// "" on success or when it is already gone. The file is first moved aside
// beside it and looked at again there: a developer's save that lands after
// the first look is put back (and said), one that lands later stays at the
// name. Only a write into the old file through a descriptor opened before
// the move can still be lost with it. Not flushed: written (when given) is
// told the folder of a file deleted.
std::string delete_beneath(const std::string &root, const std::string &name, const std::string &expected_digest,
                           WrittenFileSystems *written = nullptr);

}  // namespace liveupdate::host::sync_back
