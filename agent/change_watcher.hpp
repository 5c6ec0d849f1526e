// lu-agent's half of sync back (docs/sync-back.md): the watches a host asked
// for (WatchChanges), inotify on every folder beneath each root, and the
// changes of wanted files sent once they are stable. Symlinks are never
// followed: a symlink, FIFO, socket or device is reported as what it is.
// Bounded: at most kMaxPending paths wait; past that, or when the kernel's
// queue overflows, the watch is rescanned instead (at most once a second),
// so a container writing without end costs the session a bounded amount of
// work between two requests and never stalls them. A file past one frame
// goes in parts, a few MiB between two looks at the requests.
#pragma once

#include <sys/stat.h>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "agent/frame_output.hpp"
#include "common/agent_protocol/messages.hpp"
#include "common/ignore_patterns.hpp"
#include "common/unique_fd.hpp"

namespace liveupdate::agent {

class ChangeWatcher {
public:
    using Clock = std::chrono::steady_clock;
    static constexpr std::size_t kMaxPending = 10'000;
    // A file changing without a pause is sent after this anyway (when it reads whole).
    static constexpr std::chrono::milliseconds kMaxHold{2000};
    // A file written and not closed yet (truncated and not written again, a
    // log held open) waits for this much quiet, or the watch's debounce when
    // longer: Tilt's rest before a batch of saves (BufferMinRestDuration).
    // Few writers pause that long between truncating a file and writing it,
    // and a log's line still comes back within it.
    static constexpr std::chrono::milliseconds kWriterQuiet{200};
    static constexpr std::chrono::milliseconds kRescanEvery{1000};

    // Starts (or replaces) the request's watch: the Result to answer.
    agent_protocol::Result watch(const agent_protocol::WatchChanges &request);
    bool active() const { return !watches_.empty(); }
    // The inotify descriptor to poll; -1 when nothing is watched.
    int fd() const { return inotify_.get(); }
    // How long a poll may wait before a change is due (-1: until an event).
    int wait_ms() const;
    // Takes a bounded amount of what the kernel reported, without waiting.
    void read_events();
    bool has_due() const;
    // Sends one batch of due changes (or of a large file's parts); false when the host is gone.
    bool send_due(FrameOutput &out);

private:
    struct Known {
        std::uint8_t kind = 0;
        std::uint32_t mode = 0;
        std::uint64_t size = 0;
        std::uint64_t hash = 0;
        // When it was seen so: a rescan skips a path whose inode and mtime are still these.
        std::uint64_t inode = 0;
        std::int64_t mtime_ns = 0;
        // Only kind and hash known: the host's agreement, seeded at the start.
        bool agreed_only = false;
        bool same_content(const Known &o) const {
            if (agreed_only || o.agreed_only) return kind == o.kind && hash == o.hash;
            return kind == o.kind && mode == o.mode && size == o.size && hash == o.hash;
        }
        bool same_stat(const Known &o) const {
            return kind == o.kind && mode == o.mode && size == o.size && inode == o.inode && mtime_ns == o.mtime_ns;
        }
    };
    static Known known_from(const struct stat &st);
    struct Watch {
        std::uint32_t id = 0;
        std::string root;
        common::IgnorePatterns patterns;
        std::uint64_t max_file_bytes = 0;
        std::chrono::milliseconds debounce{0};
        std::map<std::string, Known> known;  // what the host was last told (or found at the start)
        bool rescan_due = false;
        Clock::time_point last_rescan{};
    };
    struct Pending {
        Clock::time_point first;  // the first event since it was last sent
        Clock::time_point due;    // debounced: moved on by each event, up to first + kMaxHold
        bool writing = false;     // written since its writer last closed it: may be half written
    };
    // What inotify told of a path, which says how long it waits (pend).
    enum class Seen {
        other,     // its attributes changed, a rescan: the debounce (kWriterQuiet while writing)
        written,   // IN_MODIFY, IN_CREATE: a writer may still hold it open
        closed,    // IN_CLOSE_WRITE: its writer is done, it goes now
        replaced,  // deleted or moved: whoever wrote the old file is done with the name
    };
    using PendingKey = std::pair<std::uint32_t, std::string>;  // watch id, relative path

    bool wanted(const Watch &watch, const std::string &relative) const;
    // Watches the folder `relative` and everything beneath it; files there
    // become pending when `report`, else are only known; the wanted ones go in `seen` when given.
    void add_tree(Watch &watch, const std::string &relative, bool report,
                  std::unordered_set<std::string> *seen = nullptr);
    void forget_tree(Watch &watch, const std::string &relative);
    // Looked at once due: at once when its writer closed it, else debounced.
    void pend(Watch &watch, const std::string &relative, Clock::time_point now, Seen seen = Seen::other);
    static Seen seen_in(std::uint32_t inotify_mask);
    void overflowed(Watch &watch);
    void rescan(Watch &watch, FrameOutput &out, bool &sent_ok);
    // The change to send for a pending path; nullopt when there is none (or
    // it is still being written: then it waits again).
    std::optional<agent_protocol::ContainerChange> look(Watch &watch, const std::string &relative, bool &unstable);
    void drop_watch(std::uint32_t id);
    // Sends what is left of sending_ in parts, within the batch's `bytes`,
    // then its change; false while parts are left for the next batch.
    bool send_parts(FrameOutput &out, std::uint64_t &bytes, bool &sent_ok);

    common::UniqueFd inotify_;
    std::map<std::uint32_t, std::unique_ptr<Watch>> watches_;
    struct Folder {
        std::uint32_t watch_id;
        std::string relative;
    };
    // inotify watch descriptor -> its folder in each watch (roots may overlap: one inode, one descriptor)
    std::unordered_map<int, std::vector<Folder>> folders_;
    std::map<PendingKey, Pending> pending_;
    // A file past one frame, its content read whole, going out in parts over
    // several batches so that requests are read between them.
    struct Sending {
        agent_protocol::ContainerChange change;
        std::size_t sent = 0;  // bytes of its content sent in parts
    };
    std::optional<Sending> sending_;
};

}  // namespace liveupdate::agent
