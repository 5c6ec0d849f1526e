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

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/mutex.hpp"
#include "host/core/synced_journal.hpp"
#include "host/sync_back/written_file_systems.hpp"

namespace liveupdate::host::sync_back {

class AgreementFlusher {
public:
    // How a flush is made: "" or why it failed. WrittenFileSystems::flush
    // (syncfs) by default; a test injects its own.
    using FlushFn = std::function<std::string(WrittenFileSystems &written)>;
    // A flush failed: why, naming what. Called on the flusher's thread, until stop() returns.
    using FailedFn = std::function<void(const std::string &why)>;

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
    // before, then ends the thread; nothing is submitted after. Idempotent.
    void stop();

private:
    void run();

    std::shared_ptr<SyncedJournal> journal_;
    FailedFn failed_;
    FlushFn flush_;
    common::Mutex mutex_;
    std::condition_variable changed_;
    WrittenFileSystems written_ LU_GUARDED_BY(mutex_);
    std::vector<std::uint64_t> tickets_ LU_GUARDED_BY(mutex_);
    std::uint64_t submitted_ LU_GUARDED_BY(mutex_) = 0;  // batches submitted
    std::uint64_t settled_ LU_GUARDED_BY(mutex_) = 0;    // of them, flushed and agreed on (or failed)
    bool stopping_ LU_GUARDED_BY(mutex_) = false;
    std::thread thread_;  // started by the first submit
};

}  // namespace liveupdate::host::sync_back
