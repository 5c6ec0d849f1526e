// Sync back's group commit, off the batches' path: each batch's local
// writes and deletes are in place at once and agreed on as pending
// (SyncedJournal::agree_pending, seen by every later judgement); a thread of
// its own flushes the file systems of every batch submitted before its flush
// began (syncfs), and only then writes their agreements' lines. A failed
// flush agrees on none of them (the files stay, judged again at their next
// report or at a restart) and says why. docs/sync-back.md, "Writing locally".
//
// One per sync back target (LocalSyncBack): a target's stop waits for its own
// flush only, a failing file system holds back only its own agreements, and
// flushes of several targets on one file system join the same disk commit.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "host/core/synced_journal.hpp"
#include "host/sync_back/written_file_systems.hpp"

namespace liveupdate::host::sync_back {

class AgreementFlusher {
public:
    // How a flush is made: "" or why it failed. WrittenFileSystems::flush
    // (syncfs) by default; a test injects its own.
    using FlushFn = std::function<std::string(WrittenFileSystems &written)>;
    // A flush failed, or stop() left one behind: why, naming what. Called on
    // the flusher's thread or in stop(), never after stop() returns.
    using FailedFn = std::function<void(const std::string &why)>;
    // How long stop() waits for the flushes of what was submitted: a hung
    // file system (NFS, a dying disk) must not hang a stop.
    static constexpr std::chrono::milliseconds kStopLimit{3000};

    AgreementFlusher(std::shared_ptr<SyncedJournal> journal, FailedFn failed, FlushFn flush = {});
    AgreementFlusher(const AgreementFlusher &) = delete;
    AgreementFlusher &operator=(const AgreementFlusher &) = delete;
    ~AgreementFlusher();

    // A batch written: written, what it reached; tickets, its pending
    // agreements. Returns at once [thread-safe].
    void submit(WrittenFileSystems written, std::vector<std::uint64_t> tickets);
    // Waits until everything submitted before is flushed and agreed on (or
    // failed) [thread-safe].
    void wait_settled();
    // Waits for the flush under way and one more of what was submitted
    // before, then ends the thread; nothing is submitted after. Past
    // kStopLimit it returns, says so through failed, and leaves the
    // agreements not flushed yet without a line: no agreement means "judge
    // again" (at the next start), never a deletion or an overwrite. The
    // thread is left to its flush; should it end, it takes them back
    // (SyncedJournal::drop_pending) and says nothing. Idempotent.
    void stop();

private:
    // What the thread holds: it outlives the flusher when stop() leaves a
    // flush that hangs behind.
    struct State;
    static void run(const std::shared_ptr<State> &state);

    std::shared_ptr<State> state_;
};

}  // namespace liveupdate::host::sync_back
