// The synced journal: per LiveUpdate and container, the container paths this
// tool has put there (files, symlinks and the folders its archives carried),
// so that a repair deletes only what liveupdate itself synced and a
// restarted daemon can still tell (issue 19). Each container's journal is an
// append-only file in a state folder:
//
//   {"liveupdate-synced":1,"liveUpdate":"lu","via":"docker","container":"id:3f2a..."}
//   +"/app/a.txt"
//   -"/app/old"
//
// one JSON header line, then one line per change: "+" a path (written before
// its bytes leave for the container, so the journal is a superset of what is
// there even after a kill -9; and synced to disk (sync()) before those bytes
// leave, once per archive chunk rather than per path, so after a power loss
// too), "-" a path and all beneath it (written after its delete succeeded;
// not synced: a lost "-" line leaves a superset). A last line without its
// newline was torn by a crash and is ignored. Opening rewrites the journal
// compacted (temporary file, then rename), and so does compact_if_due() once
// dead lines dominate, so that recreating a big folder over and over does not
// grow it without end. A change that cannot be written throws: the update
// fails rather than forgetting a path it put in the container. One daemon
// per folder (host/core/state_folder.hpp locks it): a second one compacting
// would leave the first appending to a file no longer there.
//
// Sync back (docs/sync-back.md) adds the content digest both sides last
// agreed on, per path:
//
//   =["/app/package-lock.json","9e1c03a7b2d4f5e6"]
//   ~"/app/package-lock.json"
//
// "=" a path's agreed digest, "~" its agreement dropped ("-" drops the
// agreements beneath its path too). Not synced: a lost line leaves an older
// agreement, against which a change is a conflict rather than an overwrite.
// Sync back's agreement on a file it wrote or deleted locally is pending
// until that write is flushed to disk (AgreementFlusher): seen at once by
// every reader, its line written only after the flush, so a line that
// survives a power loss never names bytes that did not.
// A journal written before these lines existed opens as it always did.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/mutex.hpp"

namespace liveupdate::host {

// Whose journal: the container is its root folder for local containers (their
// IDs change with each daemon, their folder stays) and its ID otherwise (a
// recreated container has a new ID and a fresh filesystem).
struct SyncedKey {
    std::string live_update;
    std::string via;
    std::string container;  // "root:/abs/folder" or "id:ID"

    static SyncedKey of(const std::string &live_update, const std::string &via, const std::string &container_id,
                        const std::string &root);
    bool operator<(const SyncedKey &other) const;
};

// Absolute, clean container paths.
using SyncedPaths = std::set<std::string>;
// Container path → the content digest both sides last agreed on (sync back).
using AgreedDigests = std::map<std::string, std::string>;

// path is one of paths, or lies beneath one of them.
bool covers(const SyncedPaths &paths, const std::string &path);

// One container's journal, open for appending. Thread-safe.
class SyncedJournal {
public:
    // Loads and compacts file (created when absent); throws HostError naming the file and why.
    SyncedJournal(std::string file, SyncedKey key);
    SyncedJournal(const SyncedJournal &) = delete;
    SyncedJournal &operator=(const SyncedJournal &) = delete;
    ~SyncedJournal();

    // Appends what the journal does not hold yet: one write for the lot. Throws HostError.
    void add(const std::vector<std::string> &paths);
    // Makes what add() wrote durable (fdatasync), when there is any. Throws HostError.
    void sync();
    // Lines add() wrote that sync() has not made durable yet.
    bool has_unsynced() const;
    // Drops each path and everything beneath it. Throws HostError.
    void remove(const std::vector<std::string> &paths);
    // Rewrites the journal with only its live paths (temporary file, fsync,
    // rename, the open handle swapped) when its dead lines (paths added and
    // then removed, "-" lines) outnumber both its live paths and a floor.
    // Whether it did. Throws HostError; the journal is then as it was.
    bool compact_if_due();
    SyncedPaths paths() const;
    bool empty() const;
    // Sync back's agreements. Throws HostError when the line cannot be written.
    void agree(const std::string &path, const std::string &digest);
    void forget(const std::string &path);
    std::optional<std::string> agreed(const std::string &path) const;
    AgreedDigests agreements() const;
    // A pending agreement (digest nullopt: dropped) on a file sync back just
    // wrote or deleted locally, not yet flushed: agreed() and every reader
    // see it at once, its line waits for write_pending() (after the flush)
    // and drop_pending() takes it back (a failed flush). agree(), forget()
    // and remove() of its path supersede it. Returns its ticket.
    std::uint64_t agree_pending(const std::string &path, const std::optional<std::string> &digest);
    // Writes the lines of these tickets' agreements, each still pending and
    // not superseded by a later one of the same path's. Throws HostError.
    void write_pending(const std::vector<std::uint64_t> &tickets);
    // Takes these tickets' agreements back, and the later pending ones of
    // their paths (judged against them): each path agrees again on what its
    // last line (or an older pending agreement) says.
    void drop_pending(const std::vector<std::uint64_t> &tickets);
    // The forward sync carries path to the container now, from before its
    // first byte leaves until its update ends (one call each, counted): the
    // container's copy meanwhile (the old file, none, half the new one) is
    // the forward sync's, not a change to bring back. Not journaled.
    // forwarding() returns the path's agreement as it is at the call (what
    // the update may replace: its forward guard).
    std::optional<std::string> forwarding(const std::string &path);
    void forwarded(const std::string &path);
    bool is_forwarding(const std::string &path) const;
    // While path is forwarding: its agreement when its forwarding began
    // (nullopt inside for none), so that a look at the container taken
    // meanwhile and holding it is known for one from before the forward
    // write. nullopt when it is not forwarding.
    std::optional<std::optional<std::string>> agreed_before_forwarding(const std::string &path) const;
    // Told each path whose forwarding ended (its last update carrying it
    // ended), on that update's thread and never under the journal's lock: a
    // report held meanwhile is judged then. The listener must be quick (hand
    // the path to a thread of its own) and may still be called once after
    // unlisten() returned. Returns its id for unlisten().
    using ForwardEndFn = std::function<void(const std::string &path)>;
    int listen_forward_ends(ForwardEndFn listener);
    void unlisten_forward_ends(int id);
    // The forward sync carried digest to path: agreed on, and remembered
    // (the last few of each path, not journaled) until the container is seen
    // holding the agreement. A container copy reported with one of them
    // other than the agreement is a late look at a forward write that an
    // update in flight made (the report came after the update ended), not
    // the app's change. Throws HostError as agree does.
    void carried(const std::string &path, const std::string &digest);
    bool is_late_forward(const std::string &path, const std::string &digest);
    // The forward write of digest to path did not happen (the container kept
    // its file): a report of it is no late look at ours any more.
    void uncarried(const std::string &path, const std::string &digest);
    // Whether the journal holds a path or an agreement beneath path (a folder
    // the forward sync carried or files came back into).
    bool holds_beneath(const std::string &path) const;
    // Whether its file held paths when it was opened: what an earlier run recorded.
    bool inherited() const { return inherited_; }
    const std::string &file() const { return file_; }

private:
    void append(const std::string &lines, std::size_t count) LU_REQUIRES(mutex_);
    // The agreements as the journal's lines say: pending ones left out.
    AgreedDigests written_agreements() const LU_REQUIRES(mutex_);
    std::optional<std::string> written_agreement(const std::string &path) const LU_REQUIRES(mutex_);
    // A line of agree(), forget() or remove() covers what was pending on path.
    void supersede_pending(const std::string &path) LU_REQUIRES(mutex_);

    // A path's pending agreements, oldest first, and what its lines say.
    struct Pending {
        std::optional<std::string> written;
        std::vector<std::pair<std::uint64_t, std::optional<std::string>>> agreed;  // ticket, digest
    };

    std::string file_;
    SyncedKey key_;
    mutable common::Mutex mutex_;
    SyncedPaths paths_ LU_GUARDED_BY(mutex_);
    AgreedDigests agreed_ LU_GUARDED_BY(mutex_);
    struct Forwarding {
        int updates = 0;                           // carrying the path now
        std::optional<std::string> agreed_before;  // when the first of them began
    };
    std::map<std::string, Forwarding> forwarding_ LU_GUARDED_BY(mutex_);
    std::map<int, std::shared_ptr<const ForwardEndFn>> forward_end_listeners_ LU_GUARDED_BY(mutex_);
    int next_listener_ LU_GUARDED_BY(mutex_) = 0;
    std::map<std::string, std::deque<std::string>> carried_ LU_GUARDED_BY(mutex_);  // path → digests, newest last
    std::map<std::string, Pending> pending_ LU_GUARDED_BY(mutex_);
    std::map<std::uint64_t, std::string> pending_paths_ LU_GUARDED_BY(mutex_);  // ticket → path
    std::uint64_t next_ticket_ LU_GUARDED_BY(mutex_) = 1;
    int fd_ LU_GUARDED_BY(mutex_) = -1;
    long long size_ LU_GUARDED_BY(mutex_) = 0;  // the journal's length after the last complete write
    std::size_t lines_ LU_GUARDED_BY(mutex_) =
        0;  // its change lines: paths_.size() + agreed_.size() of them live, the rest dead
    bool broken_ LU_GUARDED_BY(mutex_) = false;    // a failed write's partial line is still there
    bool unsynced_ LU_GUARDED_BY(mutex_) = false;  // add() wrote since the last sync()
    bool inherited_ = false;                       // set by the constructor only
};

// The journals of every container, one file each in a folder.
class SyncedJournals {
public:
    // folder: created when the first journal opens.
    explicit SyncedJournals(std::string folder) : folder_(std::move(folder)) {}

    // The container's journal, opened (loaded and compacted) on first use. Throws HostError.
    std::shared_ptr<SyncedJournal> journal(const SyncedKey &key);
    // Whether the container has a journal with a path in it that an earlier
    // run left (a journal this run began has none). Throws HostError.
    bool has_earlier_paths(const SyncedKey &key);
    // Removes the journal of each container `gone` says no longer exists, so
    // that the folder does not grow with every container ever synced into.
    // `gone` must say false when it cannot tell. A file whose header cannot
    // be read is kept. Returns the journals removed.
    std::vector<SyncedKey> prune(const std::function<bool(const SyncedKey &)> &gone);
    const std::string &folder() const { return folder_; }

private:
    std::string folder_;
    common::Mutex mutex_;
    std::map<SyncedKey, std::shared_ptr<SyncedJournal>> open_ LU_GUARDED_BY(mutex_);
    std::string file_of(const SyncedKey &key) const;
};

}  // namespace liveupdate::host
