// Tar archives of a container update (pax restricted, core/tar_header.hpp), built from the step's
// copy mappings and streamed: memory does not grow with the tree.
//
// - a regular file becomes one entry; a directory is walked recursively
//   (entries sorted by name), skipping what the filter ignores; a symlink stays
//   a symlink; modes are kept; owners are uid/gid 0 without names;
// - entry names are the container paths without the leading "/"; a file
//   mapped to a container path ending in "/" goes into that folder;
// - a local path that vanished since planning is skipped with a warning, and
//   so is a name met in a directory that is not valid UTF-8 (core/utf8.hpp);
// - a path that cannot be read (permissions, I/O error before its entry
//   begins) is left out with an error line and listed in the summary, and the
//   archive goes on: every readable file is still delivered, and the caller
//   fails the update naming what is missing (never a silent success);
// - a failure that leaves an entry half-written aborts the archive without
//   its end-of-archive marker, so no reader can take it for a complete one.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/archive_stream.hpp"
#include "common/ignore_patterns.hpp"
#include "common/mutex.hpp"
#include "host/core/kept_threads.hpp"
#include "host/core/log.hpp"
#include "liveupdate/updater.hpp"
#include "liveupdate/updater_plugin.h"

namespace liveupdate::host {

struct ArchiveSummary {
    std::uint64_t entries = 0;
    std::uint64_t bytes = 0;              // archive bytes written
    std::vector<std::string> unreadable;  // "PATH (why)" of each path left out
};

// Told each entry's container path ("/app/a.txt") before any of its bytes
// are written; throws to abort the archive (the synced journal, which must
// know a path before the container holds it).
using BeforeEntryFn = std::function<void(const std::string &container_path)>;

// Told a regular file's content digest (sync back's, common/sync_back/
// content_digest.hpp) once the archive holds all its bytes and before the
// last of them leave, so that the synced journal agrees on it before the
// container's watcher can see the file whole (docs/sync-back.md). Not told
// for a file that shrank while it was archived (its entry is padded with
// zeros). Throws to abort the archive.
using FileDigestFn = std::function<void(const std::string &container_path, const std::string &digest)>;

// What the writer tells about the entries it writes.
struct EntryHooks {
    BeforeEntryFn before_entry;
    FileDigestFn file_digest;
};

// Called before read() hands out bytes (on the reader's thread), after the
// BeforeEntryFn of every entry they hold: the synced journal makes its lines
// durable there, once per chunk. Throws to fail the read (-1).
using BeforeBytesLeaveFn = std::function<void()>;

// Writes the whole archive synchronously. Paths that cannot be read are left
// out and listed in the summary; throws HostError when the archive cannot be
// completed (a read error inside a file, the sink throwing).
ArchiveSummary write_archive(const std::vector<updater::CopyMapping> &copies, const common::IgnoreSet &filter,
                             const common::ArchiveWriteFn &write, const LogSinkFn &log);

// One archive built whole in memory, for every container of one change to
// read (the updates of a fan-out): the files are read and the tar written
// once, not once per replica, and no writer thread is woken per replica.
struct PrebuiltArchive {
    std::string bytes;
    std::vector<std::string> entries;                           // each entry's container path, in order
    std::vector<std::pair<std::string, std::string>> digests;   // each regular file's container path and digest
    std::vector<std::pair<common::LogLevel, std::string>> log;  // what building it logged
    ArchiveSummary summary;
};

// The archive of copies in memory, or null when it would be larger than
// max_bytes or cannot be completed (each update then streams its own and
// says why, as without it).
std::shared_ptr<const PrebuiltArchive> prebuild_archive(const std::vector<updater::CopyMapping> &copies,
                                                        const common::IgnoreSet &filter, std::size_t max_bytes);

class ArchiveSink;

// The archive as an lu_archive_stream: a writer on a kept thread fills the
// buffer of each read() (file contents read into it directly, no copy in between).
// Destroying the stream before the end stops the writer.
class ArchiveStream {
public:
    ArchiveStream(std::vector<updater::CopyMapping> copies, common::IgnoreSet filter, LogSinkFn log,
                  BeforeEntryFn before_entry = {}, BeforeBytesLeaveFn before_bytes_leave = {},
                  FileDigestFn file_digest = {});
    // The stream of a prebuilt archive: its log lines go to log at once; the
    // BeforeEntryFn and FileDigestFn are told every entry and file before the
    // first bytes leave. A rewind builds it again from copies, as the files are now.
    ArchiveStream(std::shared_ptr<const PrebuiltArchive> prebuilt, std::vector<updater::CopyMapping> copies,
                  common::IgnoreSet filter, LogSinkFn log, BeforeEntryFn before_entry = {},
                  BeforeBytesLeaveFn before_bytes_leave = {}, FileDigestFn file_digest = {});
    ArchiveStream(const ArchiveStream &) = delete;
    ArchiveStream &operator=(const ArchiveStream &) = delete;
    ~ArchiveStream();

    // lu_read_fn semantics: bytes read, 0 at the end, -1 when building failed.
    std::int64_t read(void *buffer, std::size_t capacity);
    lu_archive_stream c_stream() { return lu_archive_stream{this, &ArchiveStream::read_fn}; }

    // Stops the writer and builds the archive again from its first byte, from
    // the files as they are now (lu_rewind_fn semantics: 0, or -1 when the
    // writer cannot start again). Not during a read().
    int32_t rewind();
    static int32_t rewind_fn(void *ctx);

    // Why building failed, once read() returned -1 (or after the stream ended).
    std::optional<std::string> error() const;
    ArchiveSummary summary() const;

    // Once the updater is done: waits for the writer. drain reads what the
    // updater left unread (an updater that stops at the end-of-archive marker
    // leaves the padding), so the writer reaches its end; otherwise the writer
    // is stopped. Then says why the archive is not the complete one the update
    // asked for (building failed, or paths were left out), if it is not.
    std::optional<std::string> finish(bool drain);

private:
    class Handoff;

    static std::int64_t read_fn(void *ctx, void *buffer, std::size_t capacity);
    void run_writer();
    void start_writer();
    void stop_writer();
    void finish_writer();
    std::int64_t read_prebuilt(void *buffer, std::size_t capacity);

    std::vector<updater::CopyMapping> copies_;
    common::IgnoreSet filter_;
    LogSinkFn log_;
    EntryHooks hooks_;
    BeforeBytesLeaveFn before_bytes_leave_;
    std::shared_ptr<KeptTask> writer_ LU_GUARDED_BY(join_mutex_);
    std::shared_ptr<const PrebuiltArchive> prebuilt_;  // null: the writer builds it
    std::size_t prebuilt_read_ = 0;                    // how far the reader is in it
    mutable common::Mutex mutex_;
    std::condition_variable changed_;
    // The buffer of the read() waiting (null when none), and how much of it is filled.
    char *read_buffer_ LU_GUARDED_BY(mutex_) = nullptr;
    std::size_t read_capacity_ LU_GUARDED_BY(mutex_) = 0;
    std::size_t read_filled_ LU_GUARDED_BY(mutex_) = 0;
    bool reader_gone_ LU_GUARDED_BY(mutex_) = false;
    bool writer_done_ LU_GUARDED_BY(mutex_) = false;
    std::optional<std::string> error_ LU_GUARDED_BY(mutex_);
    ArchiveSummary summary_ LU_GUARDED_BY(mutex_);
    common::Mutex join_mutex_;  // the writer is joined once, by whichever of finish and the destructor comes first
};

}  // namespace liveupdate::host
