#include "host/sync_back/agreement_flusher.hpp"

#include <condition_variable>
#include <exception>
#include <thread>
#include <utility>

#include "common/mutex.hpp"

namespace liveupdate::host::sync_back {

struct AgreementFlusher::State {
    State(std::shared_ptr<SyncedJournal> journal, FailedFn failed, FlushFn flush)
        : journal(std::move(journal)), failed(std::move(failed)), flush(std::move(flush)) {}

    const std::shared_ptr<SyncedJournal> journal;
    const FailedFn failed;
    const FlushFn flush;
    common::Mutex mutex;
    std::condition_variable changed;
    WrittenFileSystems written LU_GUARDED_BY(mutex);
    std::vector<std::uint64_t> tickets LU_GUARDED_BY(mutex);
    std::uint64_t submitted LU_GUARDED_BY(mutex) = 0;  // batches submitted
    std::uint64_t settled LU_GUARDED_BY(mutex) = 0;    // of them, flushed and agreed on (or failed)
    bool stopping LU_GUARDED_BY(mutex) = false;
    bool left_behind LU_GUARDED_BY(mutex) = false;  // stop() gave up waiting: agree on nothing more, tell nothing
    bool telling LU_GUARDED_BY(mutex) = false;      // failed is called, outside the mutex
    bool ended LU_GUARDED_BY(mutex) = true;         // the thread returned, or never started
    std::size_t flushing LU_GUARDED_BY(mutex) = 0;  // agreements of the flush under way
    std::thread thread LU_GUARDED_BY(mutex);        // started by the first submit
};

AgreementFlusher::AgreementFlusher(std::shared_ptr<SyncedJournal> journal, FailedFn failed, FlushFn flush)
    : state_(std::make_shared<State>(
          std::move(journal), std::move(failed),
          flush ? std::move(flush) : [](WrittenFileSystems &written) { return written.flush(); })) {}

AgreementFlusher::~AgreementFlusher() { stop(); }

void AgreementFlusher::submit(WrittenFileSystems written, std::vector<std::uint64_t> tickets) {
    if (written.empty() && tickets.empty()) return;
    State &s = *state_;
    {
        common::MutexLock lock(s.mutex);
        if (s.stopping) {
            // Never flushed: nothing of it is agreed on.
            s.journal->drop_pending(tickets);
            return;
        }
        s.written.take(std::move(written));
        s.tickets.insert(s.tickets.end(), tickets.begin(), tickets.end());
        ++s.submitted;
        if (!s.thread.joinable()) {
            s.ended = false;
            s.thread = std::thread([state = state_] { run(state); });
        }
    }
    s.changed.notify_all();
}

void AgreementFlusher::wait_settled() {
    State &s = *state_;
    common::MutexLock lock(s.mutex);
    const std::uint64_t target = s.submitted;
    // A failure is told by then too.
    lock.wait(s.changed, [&]() LU_REQUIRES(s.mutex) { return (s.settled >= target && !s.telling) || s.left_behind; });
}

void AgreementFlusher::stop() {
    State &s = *state_;
    std::thread thread;
    std::size_t unwritten = 0;
    {
        common::MutexLock lock(s.mutex);
        if (s.left_behind) return;  // stopped before
        s.stopping = true;
        s.changed.notify_all();
        if (!lock.wait_for(s.changed, kStopLimit, [&]() LU_REQUIRES(s.mutex) { return s.ended; })) {
            s.left_behind = true;
            s.changed.notify_all();
            // A failure being told ends before stop() returns: never told after.
            lock.wait(s.changed, [&]() LU_REQUIRES(s.mutex) { return !s.telling; });
            if (!s.ended) {
                unwritten = s.flushing + s.tickets.size();
                s.thread.detach();
            }
        }
        thread = std::move(s.thread);
    }
    if (thread.joinable()) thread.join();
    if (unwritten > 0 && s.failed)
        s.failed("stopped while its flush to disk did not end within " +
                 std::to_string(std::chrono::duration_cast<std::chrono::seconds>(kStopLimit).count()) + " s; " +
                 std::to_string(unwritten) + " agreement(s) left unwritten");
}

void AgreementFlusher::run(const std::shared_ptr<State> &state) {
    State &s = *state;
    for (;;) {
        WrittenFileSystems written;
        std::vector<std::uint64_t> tickets;
        std::uint64_t batches = 0;
        {
            common::MutexLock lock(s.mutex);
            lock.wait(s.changed, [&]() LU_REQUIRES(s.mutex) { return s.stopping || s.settled < s.submitted; });
            if (s.settled == s.submitted) {  // stopping, everything settled
                s.ended = true;
                s.changed.notify_all();
                return;
            }
            if (!s.left_behind) {
                written.take(std::move(s.written));
                tickets.swap(s.tickets);
                s.flushing = tickets.size();
                batches = s.submitted;
            }
        }
        // The files first: an agreement line reaches the disk only after the bytes it names.
        std::string error = tickets.empty() && written.empty() ? std::string() : s.flush(written);
        {
            common::MutexLock lock(s.mutex);
            if (s.left_behind) {
                tickets.insert(tickets.end(), s.tickets.begin(), s.tickets.end());
                s.tickets.clear();
                s.ended = true;
                lock.unlock();
                // stop() said they are left unwritten: none is written now, nor stays agreed unflushed.
                s.journal->drop_pending(tickets);
                return;
            }
        }
        if (error.empty()) {
            try {
                s.journal->write_pending(tickets);
            } catch (const std::exception &e) {
                error = e.what();
            }
        }
        if (!error.empty()) s.journal->drop_pending(tickets);
        bool tell = false;
        {
            common::MutexLock lock(s.mutex);
            s.settled = batches;
            s.flushing = 0;
            tell = !error.empty() && s.failed && !s.left_behind;
            s.telling = tell;
        }
        s.changed.notify_all();
        if (!tell) continue;
        // Not under the mutex: the listener may take a lock held around submit().
        s.failed(error);
        {
            common::MutexLock lock(s.mutex);
            s.telling = false;
        }
        s.changed.notify_all();
    }
}

}  // namespace liveupdate::host::sync_back
